package ddblocal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/conflict"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The service's hot paths on both emulators, at two table sizes (why
// DynamoDB Local replaced moto for DynamoDB: docs/local.md). Each
// op is the store's work for one request (what the handler adds is the
// same on both and measured by the functions' own benchmarks):
//
//	submit          one response: an id, one TransactWriteItems
//	add-1000-codes  1,000 new codes: 11 transactions of up to 100 writes
//	codes-page      a page of 50 codes: one Query
//	survey-detail   the survey's item collection, 20 elements: one Query
//
// emulator-MB is the emulator's resident memory after the op. moto copies
// the whole table on every transaction, so its time per transaction grows
// with the table and its memory with the transactions; DynamoDB Local's
// should stay flat. BENCH_SIZES (default "1000,200000") and
// BENCH_EMULATORS (default "dynamodb-local,moto") narrow the run.
func BenchmarkEmulators(b *testing.B) {
	sizes := list(os.Getenv("BENCH_SIZES"), "1000,200000")
	for _, emu := range list(os.Getenv("BENCH_EMULATORS"), "dynamodb-local,moto") {
		for _, size := range sizes {
			n, err := strconv.Atoi(size)
			if err != nil {
				b.Fatalf("BENCH_SIZES: %v", err)
			}
			b.Run(fmt.Sprintf("%s/items=%d", emu, n), func(b *testing.B) {
				var cfg aws.Config
				var rss func(testing.TB) int64
				switch emu {
				case "dynamodb-local":
					cfg, rss = testenv.Config(b), testenv.DynamoDBRSS
				case "moto":
					cfg, rss = testenv.MotoConfig(b), testenv.MotoRSS
				default:
					b.Fatalf("unknown emulator %q", emu)
				}
				st := store.New(cfg, fmt.Sprintf("bench-%s-%d-%d", emu, n, time.Now().UnixNano()))
				if err := localaws.EnsureTable(b.Context(), st.Client(), st.TableName()); err != nil {
					b.Fatal(err)
				}
				f := newFixture(b, st)
				start := time.Now()
				fill(b, st, n-f.items(b))
				b.Logf("%s: filled to %d items in %s; emulator %d MB", emu, n, time.Since(start).Round(time.Millisecond), rss(b)>>20)
				for _, op := range f.ops() {
					b.Run(op.name, func(b *testing.B) {
						for b.Loop() {
							op.run(b)
						}
						b.ReportMetric(float64(rss(b))/(1<<20), "emulator-MB")
					})
				}
			})
		}
	}
}

func list(v, def string) []string {
	if v == "" {
		v = def
	}
	return strings.Split(v, ",")
}

// fixture is an account with one survey of 20 elements, on one store.
type fixture struct {
	st       *store.Store
	aid, sid int64
	codes    int // codes written so far, to make new ones
	resp     int
}

func newFixture(b testing.TB, st *store.Store) *fixture {
	b.Helper()
	ctx := b.Context()
	a, err := st.CreateAccount(ctx, survey.Account{Email: fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano()), FirstName: "Bench", LastName: "Owner", Plan: survey.PlanEnterprise})
	if err != nil {
		b.Fatal(err)
	}
	fo, err := st.CreateFolder(ctx, a.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fo.ID, Name: "bench", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		e := survey.NewElement(survey.TypeText)
		e.Title = fmt.Sprintf("Question %d with a realistic title of some length", i)
		if _, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{}); err != nil {
			b.Fatal(err)
		}
	}
	f := &fixture{st: st, aid: a.ID, sid: sv.ID}
	// Codes to page through, as an owner's first upload leaves them.
	if err := st.AddCodes(ctx, f.aid, f.sid, f.newCodes(1000)); err != nil {
		b.Fatal(err)
	}
	return f
}

// items is the count of items in the table now.
func (f *fixture) items(b *testing.B) int {
	out, err := f.st.Client().Scan(b.Context(), &dynamodb.ScanInput{TableName: aws.String(f.st.TableName()), Select: types.SelectCount})
	if err != nil {
		b.Fatal(err)
	}
	return int(out.Count)
}

func (f *fixture) newCodes(n int) []string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = fmt.Sprintf("CODE-%07d", f.codes+i)
	}
	f.codes += n
	return codes
}

type benchOp struct {
	name string
	run  func(b *testing.B)
}

func (f *fixture) ops() []benchOp {
	return []benchOp{
		{"submit", func(b *testing.B) {
			f.resp++
			_, err := f.st.Submit(b.Context(), store.Submission{
				Response: survey.Response{SurveyID: f.sid, StartedAt: time.Now().Add(-time.Minute),
					Answers: map[int64]json.RawMessage{7: json.RawMessage(`"an answer"`)}},
				KeyHash: fmt.Sprintf("key-%d-%d", f.resp, time.Now().UnixNano()), BodyHash: "body",
			})
			if err != nil {
				b.Fatal(err)
			}
		}},
		{"add-1000-codes", func(b *testing.B) {
			if err := f.st.AddCodes(b.Context(), f.aid, f.sid, f.newCodes(1000)); err != nil {
				b.Fatal(err)
			}
		}},
		{"codes-page", func(b *testing.B) {
			codes, err := f.st.CodesPage(b.Context(), f.sid, 2, 50)
			if err != nil || len(codes) != 50 {
				b.Fatalf("codes page: %d codes, %v", len(codes), err)
			}
		}},
		{"survey-detail", func(b *testing.B) {
			if _, err := f.st.SurveyCollection(b.Context(), f.aid, f.sid); err != nil {
				b.Fatal(err)
			}
		}},
	}
}

// fill writes n items of other surveys' codes (as a table shared by many
// accounts holds), 25 to a BatchWriteItem, from 8 writers.
func fill(b *testing.B, st *store.Store, n int) {
	b.Helper()
	if n <= 0 {
		return
	}
	const writers = 8
	batches := make(chan []types.WriteRequest)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for reqs := range batches {
				pending := map[string][]types.WriteRequest{st.TableName(): reqs}
				for len(pending) > 0 {
					out, err := st.Client().BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
					if err != nil {
						errs <- err
						return
					}
					pending = out.UnprocessedItems
				}
			}
		})
	}
	for i := 0; i < n; i += 25 {
		reqs := make([]types.WriteRequest, 0, 25)
		for j := i; j < min(i+25, n); j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				store.AttrPK: &types.AttributeValueMemberS{Value: store.CodesPK(int64(1_000_000 + j/5000))},
				store.AttrSK: &types.AttributeValueMemberS{Value: store.CodeSK(fmt.Sprintf("FILL-%08d", j))},
			}}})
		}
		select {
		case batches <- reqs:
		case err := <-errs:
			b.Fatalf("fill: %v", err)
		}
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatalf("fill: %v", err)
	default:
	}
}

// BenchmarkRacingUploads: a survey with 100,000 codes (BENCH_CODES), then 8
// uploads of the same 1,000 new codes at once, through the conflict model (as `make run`
// serves them): the count must come out exact (the seed and 1,000) and DynamoDB Local
// must stay under 1.5 GB. It reports the conflicts the uploads met, the 503s
// they answered after the store's own retries (which the client then sends
// again), the race's wall time and the emulator's memory. (On moto this
// measured 21.7 GB and 503s for everything; it is not run there.)
func BenchmarkRacingUploads(b *testing.B) {
	seeded := testenv.BenchSize(b, "BENCH_CODES", 100_000)
	if seeded < 1000 {
		b.Fatalf("BENCH_CODES=%d: want at least the fixture's 1,000", seeded)
	}
	for b.Loop() {
		cfg, proxy := testenv.ConflictConfig(b, conflict.DefaultHold)
		st := store.New(cfg, testenv.Store(b).TableName())
		f := newFixture(b, st) // 1,000 codes
		if seeded > 1000 {
			testenv.SeedCodes(b, st, f.sid, f.newCodes(seeded-1000))
		}
		same := f.newCodes(1000)
		start := time.Now()
		// Each uploader is a client that sends its upload again when it is
		// answered 503 (the store gave up after its own retries of
		// conflicts), as the API asks (Retry-After), up to 10 times.
		var wg sync.WaitGroup
		var busy atomic.Int64
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				var err error
				for try := 0; try < 10; try++ {
					if err = st.AddCodes(b.Context(), f.aid, f.sid, same); survey.ErrorCode(err) != survey.EUNAVAILABLE {
						break
					}
					busy.Add(1)
					time.Sleep(100 * time.Millisecond)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatalf("an upload: %v", err)
			}
		}
		race := time.Since(start)
		n, err := st.CodeCount(b.Context(), f.aid, f.sid)
		if err != nil {
			b.Fatal(err)
		}
		rss := testenv.DynamoDBRSS(b)
		b.ReportMetric(float64(n), "codes")
		b.ReportMetric(float64(proxy.Conflicts()), "conflicts")
		b.ReportMetric(float64(busy.Load()), "503s")
		b.ReportMetric(race.Seconds(), "race-s")
		b.ReportMetric(float64(rss)/(1<<20), "emulator-MB")
		if n != int64(seeded)+1000 {
			b.Errorf("count: got %d, want %d", n, seeded+1000)
		}
		if rss > 1500<<20 {
			b.Errorf("DynamoDB Local: %d MB, want under 1,500", rss>>20)
		}
	}
}
