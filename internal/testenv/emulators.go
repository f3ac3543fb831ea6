package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/internal/conflict"
	"surveyservice/internal/ddblocal"
	"surveyservice/internal/localaws"
	"surveyservice/internal/moto"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
)

var (
	motoSrv  *moto.Server
	ddbURL   string
	ddbPID   int
	frontSrv *httptest.Server
	motoCfg  aws.Config
	runID    = newRunID()
)

// newRunID tells this binary's tables from those of another binary on the
// same DynamoDB Local (tests of two packages may have one name).
func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// startEmulators starts moto and DynamoDB Local at once (Java takes
// seconds to start, moto one). It returns what stops them.
//
// The emulators: DynamoDB Local serves DynamoDB and its streams, moto
// serves KMS, SQS and S3; each test binary starts its own of both.
func startEmulators(ctx context.Context) (stop func(), err error) {
	type started struct {
		ddb *ddblocal.Server
		err error
	}
	ddbc := make(chan started, 1)
	go func() {
		in, err := ddblocal.Find(os.Getenv("DYNAMODB_LOCAL_DIR"))
		if err != nil {
			ddbc <- started{err: err}
			return
		}
		s, err := ddblocal.StartPerKey(ctx, in, os.Getenv("DYNAMODB_LOCAL_HEAP"))
		ddbc <- started{s, err}
	}()
	bin, merr := moto.Find(os.Getenv("HOME"))
	if merr == nil {
		motoSrv, merr = moto.Start(ctx, bin)
	}
	d := <-ddbc
	stop = func() {
		motoSrv.Stop()
		d.ddb.Stop()
		if frontSrv != nil {
			frontSrv.Close()
		}
	}
	if err := errors.Join(merr, d.err); err != nil {
		stop()
		return nil, err
	}
	ddbURL, ddbPID = d.ddb.URL, d.ddb.PID()
	front, err := newFront(ddbURL, motoSrv.URL)
	if err != nil {
		stop()
		return nil, err
	}
	frontSrv = httptest.NewServer(front)
	return stop, nil
}

// emulatorEnv is the environment a Lambda function would see, pointed at
// the emulators.
func emulatorEnv() map[string]string {
	return map[string]string{
		"AWS_ENDPOINT_URL":                  motoSrv.URL,
		"AWS_ENDPOINT_URL_DYNAMODB":         ddbURL,
		"AWS_ENDPOINT_URL_DYNAMODB_STREAMS": ddbURL,
		"AWS_REGION":                        "us-east-1",
		"AWS_ACCESS_KEY_ID":                 "test",
		"AWS_SECRET_ACCESS_KEY":             "test",
	}
}

// newFront is one endpoint for every emulated service, as tests that give
// a function only AWS_ENDPOINT_URL need: DynamoDB and its streams go to
// DynamoDB Local (told by the JSON protocol's X-Amz-Target), the rest to
// moto.
func newFront(ddb, motoURL string) (http.Handler, error) {
	du, err := url.Parse(ddb)
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	mu, err := url.Parse(motoURL)
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	to := func(u *url.URL) *httputil.ReverseProxy {
		return &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host
		}}
	}
	ddbProxy, motoProxy := to(du), to(mu)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB") {
			ddbProxy.ServeHTTP(w, r)
			return
		}
		motoProxy.ServeHTTP(w, r)
	}), nil
}

// Env is the environment of a Lambda function on the emulators, each
// service on its own endpoint (AWS_ENDPOINT_URL for moto,
// AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_DYNAMODB_STREAMS for
// DynamoDB Local), with the test's table as TABLE_NAME. A fresh map: add to
// it freely.
func Env(tb testing.TB) map[string]string {
	tb.Helper()
	env := emulatorEnv()
	env["TABLE_NAME"] = Store(tb).TableName()
	env["AWS_ACCESS_KEY_ID"] = AccessKey(tb)
	env["KMS_KEY_ID"] = keyID
	return env
}

// ConflictConfig is Config with DynamoDB behind a conflict model of its own
// (internal/conflict) holding each write transaction's items for hold: for
// the tests that check how the service behaves when transactions contend,
// which DynamoDB Local alone never shows. The proxy lives until the test
// ends.
func ConflictConfig(tb testing.TB, hold time.Duration) (aws.Config, *conflict.Proxy) {
	tb.Helper()
	Store(tb)
	p, err := conflict.New(ddbURL, hold)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(p)
	tb.Cleanup(srv.Close)
	env := emulatorEnv()
	env["AWS_ENDPOINT_URL_DYNAMODB"] = srv.URL
	env["AWS_ACCESS_KEY_ID"] = AccessKey(tb)
	ac := awsenv.FromEnv(func(k string) string { return env[k] })
	// The HTTP functions' tries, each as patient as the loaded emulator
	// needs: a conflict is what these tests are about, not a timeout.
	ac.Policy = awsenv.HTTP
	ac.Policy.AttemptTimeout = 10 * time.Second
	c, err := localaws.Load(context.Background(), ac)
	if err != nil {
		tb.Fatal(err)
	}
	return c, p
}

// MotoStore returns a store on a table of its own in moto's DynamoDB, for
// the tests and benchmarks that show how moto differs from DynamoDB (the
// emulator the service used before DynamoDB Local). One per top-level test.
func MotoStore(tb testing.TB) *store.Store {
	tb.Helper()
	Store(tb)
	root, _, _ := strings.Cut(tb.Name(), "/")
	mu.Lock()
	defer mu.Unlock()
	if st, ok := motoStores[root]; ok {
		return st
	}
	name := tableName("moto-" + root)
	st := store.New(motoCfg, name)
	if err := localaws.EnsureTable(context.Background(), st.Client(), name); err != nil {
		tb.Fatalf("testenv: create table %s on moto: %v", name, err)
	}
	motoStores[root] = st
	return st
}

var motoStores = map[string]*store.Store{}

// MotoConfig is the AWS configuration with every service, DynamoDB
// included, on moto.
func MotoConfig(tb testing.TB) aws.Config {
	Store(tb)
	return motoCfg.Copy()
}

// tableName is a table name of this binary's: tables are never deleted
// (DynamoDB Local slows down for good after deleting a table with a
// stream).
func tableName(root string) string {
	name := fmt.Sprintf("t%s-%d-%s", runID, seq.Add(1), root)
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

// DynamoDBRSS is the resident memory of DynamoDB Local, in bytes.
func DynamoDBRSS(tb testing.TB) int64 {
	tb.Helper()
	Store(tb)
	n, err := ddblocal.RSS(ddbPID)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// MotoRSS is the resident memory of moto_server, in bytes.
func MotoRSS(tb testing.TB) int64 {
	tb.Helper()
	Store(tb)
	n, err := ddblocal.RSS(motoSrv.PID())
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// EmulatorDeadline is how long a request may take on the local emulators
// in the contention tests. On Lambda a request has 8.5 s, and an owner's
// write or a submission that lost a race keeps its turn until 1 s before
// that; DynamoDB Local on a loaded 2-core machine is tens of times slower
// than DynamoDB, so those tests check that every write is applied (0 ×
// 503) within this scaled deadline, and the simulation (internal/ddbsim,
// DynamoDB's rules and times) checks the time.
const EmulatorDeadline = 2 * time.Minute

// WithDeadline serves h with each request's context ending after d, as
// Lambda's does after the function's timeout.
func WithDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
