package responses_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"surveyservice/functions/responses"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// scanCounter is the store, counting the items DynamoDB reads for the
// responses (ScannedCount of each Query), which the handler does not see.
type scanCounter struct {
	*store.Store
	scanned atomic.Int64
}

func (s *scanCounter) ResponsesPage(ctx context.Context, sid int64, q store.ResponseQuery) (store.ResponsePage, error) {
	p, err := s.Store.ResponsesPage(ctx, sid, q)
	s.scanned.Add(int64(p.Scanned))
	return p, err
}

func (s *scanCounter) SkipResponses(ctx context.Context, sid int64, q store.ResponseQuery, n int) (*store.ResponsePosition, int, error) {
	pos, scanned, err := s.Store.SkipResponses(ctx, sid, q, n)
	s.scanned.Add(int64(scanned))
	return pos, scanned, err
}

// benchSurvey is the survey of many responses the benchmarks read, seeded
// once per test binary (BatchWriteItem). BENCH_RESPONSES sets how many:
// the default, 10,000, seeds in well under a minute; 100,000 takes moto
// several minutes to seed and each of its Queries gets slower with the
// index (moto walks it; DynamoDB seeks), while the figures that matter
// here, calls and items read a page, do not change: a page is a Query
// whose key condition starts at the cursor and whose Limit is the page
// size, so DynamoDB reads the page's items and no others, however many
// responses come before or after them.
var benchSurvey struct {
	once sync.Once
	f    *fixture
	st   *scanCounter
	h    http.Handler
	n    int
	err  error
}

func seededSurvey(b *testing.B) (*fixture, *scanCounter, http.Handler, int) {
	bs := &benchSurvey
	bs.once.Do(func() {
		bs.n = 10_000
		if v, err := strconv.Atoi(os.Getenv("BENCH_RESPONSES")); err == nil && v > 0 {
			bs.n = v
		}
		f := newFixture(b)
		start := time.Now()
		const chunk = 5000
		for done := 0; done < bs.n; done += chunk {
			rs := make([]survey.Response, min(chunk, bs.n-done))
			for i := range rs {
				at := t0.Add(time.Duration(done+i) * time.Second)
				answer, _ := json.Marshal(fmt.Sprintf("answer number %d, with a few words of text", done+i))
				rs[i] = survey.Response{SurveyID: f.sid, SubmittedAt: at, StartedAt: at.Add(-2 * time.Minute),
					Answers: map[int64]json.RawMessage{f.text: answer}, Variables: map[string]any{"city": "Tabriz", "age": json.Number("30")}}
			}
			if _, err := storetest.ImportResponses(context.Background(), f.st, rs); err != nil {
				bs.err = err
				return
			}
		}
		b.Logf("seeded %d responses in %v", bs.n, time.Since(start).Round(time.Second))
		bs.f, bs.st = f, &scanCounter{Store: f.st}
		bs.h = api.ServeAt(testenv.APIBase, responses.New(responses.Deps{Auth: api.NewAuthenticator(f.st), Store: bs.st, Sealer: testenv.Sealer(b),
			Exports: testenv.Exports(b), Jobs: f.jobs.Queue, Now: f.clk.Now}))
	})
	if bs.err != nil {
		b.Fatal(bs.err)
	}
	return bs.f, bs.st, bs.h, bs.n
}

// BenchmarkResponses reads a survey of many responses (BENCH_RESPONSES,
// default 10,000). Metrics per request: dynamodb-calls/op and queries/op;
// items-read/op, the responses DynamoDB read (the Queries' ScannedCount):
// the target is the page's own items, whatever the survey's size;
// handler-cpu-ns/op, the CPU time this process spent on the request
// (handler, JSON or CSV rendering, SDK; not the emulator's, which runs in
// its own process: the wall time is moto's); body-bytes/op.
//
//   - first-page: GET ?page_size=100, the newest 100.
//   - deep-page: the page after a cursor half way down (submitted_before
//     the middle, then its next link): the same cost.
//   - csv-page-1000: ?format=csv&page_size=1000.
//   - results-table: the middle page at 100 per page (page 50 of
//     10,000), first cold (the keys of the pages before are read), then
//     as a walk reads it (the page before was just served, so its start
//     is known).
func BenchmarkResponses(b *testing.B) {
	f, st, h, n := seededSurvey(b)
	mid := t0.Add(time.Duration(n/2) * time.Second).Format(time.RFC3339)
	var deep string
	{
		r := serve(h, "GET", listPath(f.sid)+"?page_size=100&submitted_before="+mid, f.key)
		p := decode[page](b, r)
		if r.code != 200 || p.Next == nil {
			b.Fatalf("deep page: %v", r)
		}
		deep = relative(b, *p.Next)
	}
	run := func(b *testing.B, target string, wantItems int, prepare func()) {
		if prepare != nil {
			prepare()
		}
		if r := serve(h, "GET", target, f.key); r.code != 200 { // warm, and check
			b.Fatalf("GET %s: %v", target, r)
		}
		var calls, queries, items, bytes int64
		var cpu time.Duration
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if prepare != nil {
				b.StopTimer()
				prepare()
				b.StartTimer()
			}
			st.scanned.Store(0)
			before := cpuTime()
			r := serve(h, "GET", target, f.key)
			cpu += cpuTime() - before
			if r.code != 200 {
				b.Fatalf("GET %s: %v", target, r)
			}
			calls += int64(r.calls.DynamoDB())
			queries += int64(r.calls.Ops()["DynamoDB.Query"])
			items += st.scanned.Load()
			bytes += int64(len(r.body))
		}
		N := float64(b.N)
		b.ReportMetric(float64(calls)/N, "dynamodb-calls/op")
		b.ReportMetric(float64(queries)/N, "queries/op")
		b.ReportMetric(float64(items)/N, "items-read/op")
		b.ReportMetric(float64(cpu.Nanoseconds())/N, "handler-cpu-ns/op")
		b.ReportMetric(float64(bytes)/N, "body-bytes/op")
		// Responses are spread over store.ResponseShards partition keys
		// and merged lazily: a page reads its own items and a few
		// a shard past its end (the merge's buffers), not a page from
		// each shard (16 x 101 = 1,616 for a page of 100 before).
		if max := int64(wantItems + 6*store.ResponseShards); wantItems > 0 && items/int64(b.N) > max {
			b.Errorf("%d items read a request, want at most %d", items/int64(b.N), max)
		}
	}
	// indexReads bounds what finding a page's start reads through the page
	// index: its nodes, a second's responses, the uncounted ends.
	const indexReads = 400
	// A page reads its items and one more, the look-ahead that tells
	// whether a next page exists (none past the last response).
	read := func(size int) int { return min(size+1, n) }
	b.Run("first-page", func(b *testing.B) { run(b, listPath(f.sid)+"?page_size=100", read(100), nil) })
	b.Run("deep-page", func(b *testing.B) { run(b, deep, read(100), nil) })
	b.Run("csv-page-1000", func(b *testing.B) { run(b, listPath(f.sid)+"?format=csv&page_size=1000", read(1000), nil) })
	table := tablePath(f.sid) + "?page_size=100&page="
	middle := max(n/200, 2)
	// Cold: a fresh handler each time, no page start known. The page
	// index (store/responsepages.go) finds the start: its nodes, one
	// second's responses, and the responses near the ends of the survey
	// that it does not count (a minute's worth here), then the page. Before
	// the index a cold page passed over every response before it (page 50
	// of 100: 5,000 keys, and 16 x that from the shards before the lazy
	// merge: 11,616 items).
	cold := func() {
		h = api.ServeAt(testenv.APIBase, responses.New(responses.Deps{Auth: api.NewAuthenticator(f.st), Store: st, Sealer: testenv.Sealer(b),
			Exports: testenv.Exports(b), Jobs: f.jobs.Queue, Now: f.clk.Now}))
		serve(h, "GET", listPath(f.sid)+"?page_size=1", f.key) // warm the key cache
	}
	last := (n + 99) / 100
	for _, pg := range []struct {
		name string
		page int
	}{{"first", 1}, {"middle", middle}, {"last", last}} {
		b.Run("results-table-"+pg.name+"-page-cold", func(b *testing.B) {
			run(b, table+strconv.Itoa(pg.page), read(100)+indexReads, cold)
		})
	}
	b.Run("results-table-middle-page-in-turn", func(b *testing.B) {
		run(b, table+strconv.Itoa(middle), 101, func() { serve(h, "GET", table+strconv.Itoa(middle-1), f.key) })
	})
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
