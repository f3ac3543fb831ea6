package settings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/functions/settings"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// heapObjects is the runtime metric sampled for the peak heap: bytes of
// live and not yet swept heap objects (cheap to read, no stop-the-world).
const heapObjects = "/memory/classes/heap/objects:bytes"

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakSampler records the highest heap-object bytes seen while it runs.
type peakSampler struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func startPeak() *peakSampler {
	p := &peakSampler{stop: make(chan struct{}), done: make(chan struct{})}
	p.peak.Store(readHeap())
	go func() {
		defer close(p.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				if h := readHeap(); h > p.peak.Load() {
					p.peak.Store(h)
				}
			}
		}
	}()
	return p
}

func (p *peakSampler) Stop() uint64 {
	close(p.stop)
	<-p.done
	if h := readHeap(); h > p.peak.Load() {
		p.peak.Store(h)
	}
	return p.peak.Load()
}

// BenchmarkAddCodes: one POST of 5,000 codes per op. "new": all new, into
// a fresh survey (no codes yet, so no existence check: 50 transactions of
// 99 codes and a count shard, 8 in flight). "known": the same 5,000 again
// into that survey (51 BatchGetItem checks, no write). Metrics:
// dynamodb-calls/op, transactions/op; heap-bytes/op, the bytes allocated
// during the request (runtime.MemStats TotalAlloc difference);
// heapinuse-delta-bytes/op, HeapInuse after minus before (after a GC);
// peak-heap-bytes/op, the highest heap-object bytes sampled every
// millisecond during the request above the level before it. (No
// handler-ns/op: the store's calls overlap, 8 at a time, so the emulator's
// summed time exceeds the wall time.) The emulator copies the table for
// each transaction, so its ns/op grows with the table; DynamoDB's does not.
func BenchmarkAddCodes(b *testing.B) {
	st := testenv.Store(b)
	ctx := context.Background()
	acct, key := testenv.NewAccount(b, survey.PlanFree)
	fo, err := st.CreateFolder(ctx, acct.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	h := testenv.Conform(settings.New(settings.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now}))
	codes := make([]string, 5000)
	for i := range codes {
		codes[i] = fmt.Sprintf("BENCH-%05d-%s", i, survey.NewCode(12))
	}
	raw, err := json.Marshal(codes)
	if err != nil {
		b.Fatal(err)
	}
	body := string(raw)
	if r := serve(h, "GET", settingsPath("warm"), key, "", nil); r.code != 404 { // warm the key cache
		b.Fatalf("warm-up: %v", r)
	}
	var last int64 // the survey the last "new" op filled
	for _, known := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "known"}[known]
		b.Run(name, func(b *testing.B) {
			var calls, txs int
			var allocated, inuse, peak float64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if !known || last == 0 {
					sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.ID, FolderID: fo.ID, Name: "bench", Language: 1, Theme: survey.DefaultTheme()})
					if err != nil {
						b.Fatal(err)
					}
					if known {
						testenv.SeedCodes(b, st, sv.ID, codes)
					}
					last = sv.ID
				}
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				base := readHeap()
				sampler := startPeak()
				b.StartTimer()
				r := serve(h, "POST", codesPath(last), key, "application/json", &body)
				b.StopTimer()
				top := sampler.Stop()
				runtime.ReadMemStats(&after)
				if r.code != 201 {
					b.Fatalf("POST 5000 codes: %d %.200s", r.code, r.body)
				}
				calls += r.calls.DynamoDB()
				txs += r.calls.Ops()["DynamoDB.TransactWriteItems"]
				allocated += float64(after.TotalAlloc - before.TotalAlloc)
				inuse += float64(int64(after.HeapInuse) - int64(before.HeapInuse))
				peak += float64(top - base)
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(float64(calls)/n, "dynamodb-calls/op")
			b.ReportMetric(float64(txs)/n, "transactions/op")
			b.ReportMetric(allocated/n, "heap-bytes/op")
			b.ReportMetric(inuse/n, "heapinuse-delta-bytes/op")
			b.ReportMetric(peak/n, "peak-heap-bytes/op")
		})
	}
}

// codesSurveys are the two surveys of 10,000 codes BenchmarkCodesPage
// reads, seeded once per test binary: "indexed", uploaded through the
// store (so its page index is kept, codepages.go), and "unindexed", the
// same codes written straight into the table (as codes from before the
// index are: read the old way, the pages before each page read and
// dropped).
var codesSurveys struct {
	once      sync.Once
	indexed   int64
	unindexed int64
	key       string
	st        *codeReadCounter
	h         *api.Router
	err       error
}

const seededCodes = 10_000

// codeReadCounter is the store, counting the items a page of codes reads
// (the index's and the codes'), which the handler does not see.
type codeReadCounter struct {
	*store.Store
	read atomic.Int64
}

func (c *codeReadCounter) CodesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error) {
	codes, read, err := c.Store.CodesPageRead(ctx, sid, page, pageSize)
	c.read.Add(int64(read))
	return codes, err
}

// BenchmarkCodesPage: GET of a page of a survey of 10,000 codes: pages 1,
// 10 and 20 of 500 a page, and 1, 250 and 500 of 20 a page, of the
// indexed survey and of the unindexed one (before the index, every survey
// read so). Metrics: dynamodb-calls/op; items-read/op, the items the
// store read (index nodes, count shards and codes); handler-ns/op, the
// wall time minus the time spent waiting on the emulator.
func BenchmarkCodesPage(b *testing.B) {
	st := testenv.Store(b)
	cs := &codesSurveys
	cs.once.Do(func() {
		ctx := context.Background()
		acct, key := testenv.NewAccount(b, survey.PlanFree)
		fo, err := st.CreateFolder(ctx, acct.ID, "bench", nil)
		if err != nil {
			cs.err = err
			return
		}
		codes := make([]string, seededCodes)
		for i := range codes {
			codes[i] = fmt.Sprintf("code-%06d", i)
		}
		for _, which := range []*int64{&cs.indexed, &cs.unindexed} {
			sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.ID, FolderID: fo.ID, Name: "10k codes", Language: 1, Theme: survey.DefaultTheme()})
			if err != nil {
				cs.err = err
				return
			}
			*which = sv.ID
		}
		start := time.Now()
		for i := 0; i < len(codes); i += 5000 { // as the API takes them: 5,000 a request
			if err := st.AddCodes(ctx, acct.ID, cs.indexed, codes[i:min(i+5000, len(codes))]); err != nil {
				cs.err = err
				return
			}
		}
		b.Logf("uploaded %d codes in %v", seededCodes, time.Since(start))
		testenv.SeedCodes(b, st, cs.unindexed, codes)
		cs.key = key
		cs.st = &codeReadCounter{Store: st}
		cs.h = settings.New(settings.Deps{Auth: api.NewAuthenticator(st), Store: cs.st, Now: time.Now})
	})
	if cs.err != nil {
		b.Fatal(cs.err)
	}
	for _, survey := range []struct {
		name string
		sid  int64
	}{{"indexed", cs.indexed}, {"unindexed", cs.unindexed}} {
		for _, pg := range []struct{ page, size int }{{1, 500}, {10, 500}, {20, 500}, {1, 20}, {250, 20}, {500, 20}} {
			b.Run(fmt.Sprintf("%s/page=%d/size=%d", survey.name, pg.page, pg.size), func(b *testing.B) {
				path := codesPath(survey.sid) + fmt.Sprintf("?page=%d&page_size=%d", pg.page, pg.size)
				first := fmt.Sprintf("code-%06d", (pg.page-1)*pg.size)
				get := func() reply {
					r := serve(cs.h, "GET", path, cs.key, "", nil)
					if r.code != 200 {
						b.Fatalf("GET %s: %d %.200s", path, r.code, r.body)
					}
					return r
				}
				r := get() // warm the key cache, and check the page
				var p api.Page[string]
				if err := json.Unmarshal(r.body, &p); err != nil {
					b.Fatal(err)
				}
				if p.Count != seededCodes || len(p.Results) != pg.size || p.Results[0] != first {
					b.Fatalf("page %d: count %d, %d results from %q (want %d from %q)", pg.page, p.Count, len(p.Results), p.Results[0], pg.size, first)
				}
				var calls int
				var own time.Duration
				cs.st.read.Store(0)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					start := time.Now()
					r := get()
					own += time.Since(start) - r.calls.Elapsed()
					calls += r.calls.DynamoDB()
				}
				n := float64(b.N)
				read := float64(cs.st.read.Load()) / n
				b.ReportMetric(float64(calls)/n, "dynamodb-calls/op")
				b.ReportMetric(read, "items-read/op")
				b.ReportMetric(float64(own.Nanoseconds())/n, "handler-ns/op")
				// The index reads the nodes down to the page's leaf, the
				// few codes of the leaf before the page, and the page:
				// never the pages before it.
				if max := float64(pg.size + 200); survey.name == "indexed" && read > max {
					b.Errorf("page %d of %d read %.0f items, want at most %.0f", pg.page, pg.size, read, max)
				}
			})
		}
	}
}
