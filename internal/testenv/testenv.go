// Package testenv runs integration tests against real emulators, started
// by Main: one DynamoDB Local (AWS's own DynamoDB emulator) and one
// moto_server (KMS, SQS and S3) per test binary, with the table and the KMS
// key created as `make run` creates them. Tests isolate themselves with
// tables and accounts of their own (Store, NewAccount), never with resets
// or deleted tables.
package testenv

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/internal/localaws"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

var (
	cfg   aws.Config
	keyID string
	seq   atomic.Int64

	mu      sync.Mutex
	stores  = map[string]*store.Store{}
	keys    = map[string]string{}
	buckets = map[string]*exports.Bucket{}
)

// Main starts the emulators (unless -short), runs the tests and stops
// them. Without Java, DynamoDB Local (`make emulators`) or moto_server it
// fails the binary: integration tests never skip silently.
func Main(m *testing.M) {
	os.Exit(run(m))
}

// MainThen is Main, with cleanup run after the tests and the emulators'
// stop, before the binary exits (for what a package keeps across its tests
// and benchmarks, such as built binaries).
func MainThen(m *testing.M, cleanup func()) {
	code := run(m)
	cleanup()
	os.Exit(code)
}

func run(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if !testing.Verbose() {
		// Handlers log every request; keep test output to the failures
		// (their errors for KeepErrorLog).
		slog.SetDefault(slog.New(newErrorRing()))
	}
	if testing.Short() {
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop, err := startEmulators(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	defer stop()
	env := emulatorEnv()
	cfg, err = localaws.Load(ctx, awsenv.FromEnv(func(k string) string { return env[k] }))
	if err == nil {
		motoCfg, err = localaws.Load(ctx, awsenv.FromEnv(func(k string) string {
			if strings.HasPrefix(k, "AWS_ENDPOINT_URL_") {
				return ""
			}
			return env[k]
		}))
	}
	if err == nil {
		keyID, err = localaws.EnsureKey(ctx, kms.NewFromConfig(cfg), links.DefaultKeyAlias)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv: prepare emulator:", err)
		return 1
	}
	if benchmarking() {
		// Benchmarks measure the handlers: the conformance check would run
		// inside them (make bench runs no tests; make test no benchmarks).
		return m.Run()
	}
	conf, err := installConformance()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if !conf.report(os.Stderr) && code == 0 {
		code = 1
	}
	return code
}

// Store returns the store of the running top-level test: a table of its
// own on DynamoDB Local, made on first use and shared by its subtests.
// Each top-level test signs with an access key of its own (AccessKey), and
// DynamoDB Local keeps a database for each key (ddblocal.StartPerKey):
// one test's writes never slow another's. Tables are never deleted
// (DynamoDB Local slows down for good once a table with a stream is
// deleted); within a test, accounts keep subtests apart. In -short mode
// the test is skipped (make test never runs -short).
func Store(tb testing.TB) *store.Store {
	tb.Helper()
	if motoSrv == nil {
		if testing.Short() {
			tb.Skip("needs the emulator; run without -short")
		}
		tb.Fatal("testenv: the emulator is not running: call testenv.Main from TestMain")
	}
	root, _, _ := strings.Cut(tb.Name(), "/")
	mu.Lock()
	defer mu.Unlock()
	if st, ok := stores[root]; ok {
		return st
	}
	name := tableName(root)
	keys[root] = fmt.Sprintf("AKIDTEST%s%d", strings.ToUpper(runID), seq.Add(1))
	st := store.New(signedAs(keys[root], root), name)
	if err := localaws.EnsureTable(context.Background(), st.Client(), name); err != nil {
		tb.Fatalf("testenv: create table %s: %v", name, err)
	}
	stores[root] = st
	return st
}

// AccessKey is the access key the running top-level test signs with (its
// DynamoDB Local database), for a test that builds an environment of its
// own: AWS_ACCESS_KEY_ID, with any secret.
func AccessKey(tb testing.TB) string {
	tb.Helper()
	Store(tb)
	root, _, _ := strings.Cut(tb.Name(), "/")
	mu.Lock()
	defer mu.Unlock()
	return keys[root]
}

// signedAs is a copy of the emulators' configuration signing with key,
// whose calls carry root, the top-level test's name, as their scope.
func signedAs(key, root string) aws.Config {
	c := localaws.Scoped(cfg, root)
	c.Credentials = credentials.NewStaticCredentialsProvider(key, "test", "")
	return c
}

// rootOf is the name of tb's top-level test.
func rootOf(tb testing.TB) string {
	root, _, _ := strings.Cut(tb.Name(), "/")
	return root
}

// Own reports whether an AWS call, by its context (a localaws.Fault's),
// was made by a client of tb's top-level test: its Store, Container,
// Config, Sealer or Exports. A test injecting faults that fails only its
// own calls can run beside other tests.
func Own(tb testing.TB, ctx context.Context) bool {
	return localaws.ScopeOf(ctx) == rootOf(tb)
}

// Exports returns the exports bucket of the running top-level test, on
// the emulator's S3: a bucket of its own, made on first use, as `make run`
// makes the local one.
func Exports(tb testing.TB) *exports.Bucket {
	tb.Helper()
	Store(tb)
	root, _, _ := strings.Cut(tb.Name(), "/")
	mu.Lock()
	defer mu.Unlock()
	if b, ok := buckets[root]; ok {
		return b
	}
	b := exports.New(localaws.Scoped(cfg, root), fmt.Sprintf("exports-%d", seq.Add(1)))
	if err := localaws.EnsureExports(context.Background(), b); err != nil {
		tb.Fatalf("testenv: create bucket: %v", err)
	}
	buckets[root] = b
	return b
}

// Endpoint is one URL for every emulated service (AWS_ENDPOINT_URL):
// DynamoDB and its streams on it are DynamoDB Local, KMS, SQS and S3 are
// moto. Env gives each service its own endpoint, as `make run` does.
func Endpoint(tb testing.TB) string {
	Store(tb)
	return frontSrv.URL
}

// Config is the emulator's AWS configuration, for tests that build a
// client or a Store of their own on it (with another HTTP client, say).
// It is a copy: changing it changes nothing for other tests.
func Config(tb testing.TB) aws.Config {
	return signedAs(AccessKey(tb), rootOf(tb))
}

// KMSKeyID is the id of the emulator's links key.
func KMSKeyID(tb testing.TB) string {
	Store(tb)
	return keyID
}

// NewAccount creates an account of its own for one test, with a fresh API
// key, and returns both.
func NewAccount(tb testing.TB, plan survey.Plan) (survey.Account, string) {
	tb.Helper()
	s := Store(tb)
	ctx := context.Background()
	n := seq.Add(1)
	a, err := s.CreateAccount(ctx, survey.Account{
		Email: fmt.Sprintf("owner-%d-%d@example.com", time.Now().UnixNano(), n), FirstName: "Test", LastName: fmt.Sprintf("Owner %d", n), Plan: plan,
	})
	if err != nil {
		tb.Fatalf("testenv: create account: %v", err)
	}
	key, err := s.CreateKey(ctx, a.ID)
	if err != nil {
		tb.Fatalf("testenv: create key: %v", err)
	}
	return a, key
}

// Sealer returns a personalised-link sealer on the emulator's KMS key and
// the test's table, as the variables and responders functions build one.
func Sealer(tb testing.TB) *links.Sealer {
	tb.Helper()
	return links.NewSealer(kms.NewFromConfig(localaws.Scoped(cfg, rootOf(tb))), KMSKeyID(tb), Store(tb))
}

// benchmarking reports whether this run was asked for benchmarks (-bench).
func benchmarking() bool {
	f := flag.Lookup("test.bench")
	return f != nil && f.Value.String() != ""
}

// Container returns another Store on the test's table, as a second Lambda
// container would have one: it shares the table and nothing else (no
// caches, its own clock).
func Container(tb testing.TB) *store.Store {
	tb.Helper()
	return store.New(Config(tb), Store(tb).TableName())
}

// SeedCodes stores codes of a survey straight into the table, as AddCodes
// would leave them (one item a code, the count raised by as many), with
// BatchWriteItem and no transaction. It is for tests that need many codes
// to read: the emulator copies the whole table for every action of a
// transaction, so writing thousands through AddCodes takes minutes there.
// The codes must be new to the survey and free of duplicates.
func SeedCodes(tb testing.TB, st *store.Store, sid int64, codes []string) {
	tb.Helper()
	ctx := context.Background()
	table := st.TableName()
	total := len(codes)
	for len(codes) > 0 {
		n := min(len(codes), 25)
		reqs := make([]types.WriteRequest, n)
		for i, c := range codes[:n] {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				store.AttrPK: &types.AttributeValueMemberS{Value: store.CodesPK(sid)},
				store.AttrSK: &types.AttributeValueMemberS{Value: store.CodeSK(c)},
			}}}
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for len(pending) > 0 {
			out, err := st.Client().BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			for try := 1; err != nil && awsenv.IsUnavailable(err) && try < 10; try++ {
				// A loaded emulator outlasted the SDK's tries; the puts
				// are idempotent, so seeding simply tries again.
				out, err = st.Client().BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			}
			if err != nil {
				tb.Fatalf("testenv: seed codes: %v", err)
			}
			pending = out.UnprocessedItems
		}
		codes = codes[n:]
	}
	_, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.CodesPK(sid)},
			store.AttrSK: &types.AttributeValueMemberS{Value: store.CodeCountSK(0)},
		},
		UpdateExpression:          aws.String("ADD #n :n"),
		ExpressionAttributeNames:  map[string]string{"#n": store.AttrCodeCount},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: fmt.Sprint(total)}},
	})
	if err != nil {
		tb.Fatalf("testenv: count seeded codes: %v", err)
	}
}
