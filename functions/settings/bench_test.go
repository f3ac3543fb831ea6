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
	h := settings.New(api.NewAuthenticator(st), st, time.Now)
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

// codesSurvey is the survey of 100,000 codes BenchmarkCodesPage reads,
// seeded once per test binary.
var codesSurvey struct {
	once sync.Once
	sid  int64
	key  string
	h    *api.Router
	err  error
}

const seededCodes = 100_000

// BenchmarkCodesPage: GET of page 1 and page 20 (page_size 500) of a
// survey of 100,000 codes. Metrics: dynamodb-calls/op; items-read/op,
// the code items the store reads to answer the page (DynamoDB has no
// offset: the pages before are read and dropped, so page*page_size);
// handler-ns/op, the wall time minus the time spent waiting on the
// emulator.
func BenchmarkCodesPage(b *testing.B) {
	st := testenv.Store(b)
	cs := &codesSurvey
	cs.once.Do(func() {
		ctx := context.Background()
		acct, key := testenv.NewAccount(b, survey.PlanFree)
		fo, err := st.CreateFolder(ctx, acct.ID, "bench", nil)
		if err != nil {
			cs.err = err
			return
		}
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.ID, FolderID: fo.ID, Name: "100k codes", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			cs.err = err
			return
		}
		// Straight into the table: through the API the emulator would copy
		// the growing table for every code (see testenv.SeedCodes).
		start := time.Now()
		codes := make([]string, seededCodes)
		for i := range codes {
			codes[i] = fmt.Sprintf("code-%06d", i)
		}
		testenv.SeedCodes(b, st, sv.ID, codes)
		b.Logf("seeded %d codes in %v", seededCodes, time.Since(start))
		cs.sid, cs.key = sv.ID, key
		cs.h = settings.New(api.NewAuthenticator(st), st, time.Now)
	})
	if cs.err != nil {
		b.Fatal(cs.err)
	}
	const pageSize = 500
	for _, page := range []int{1, 20} {
		b.Run(fmt.Sprintf("page=%d", page), func(b *testing.B) {
			path := codesPath(cs.sid) + fmt.Sprintf("?page=%d&page_size=%d", page, pageSize)
			first := fmt.Sprintf("code-%06d", (page-1)*pageSize)
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
			if p.Count != seededCodes || len(p.Results) != pageSize || p.Results[0] != first {
				b.Fatalf("page %d: count %d, %d results from %q (want %d from %q)", page, p.Count, len(p.Results), p.Results[0], pageSize, first)
			}
			var calls int
			var own time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				r := get()
				own += time.Since(start) - r.calls.Elapsed()
				calls += r.calls.DynamoDB()
			}
			n := float64(b.N)
			b.ReportMetric(float64(calls)/n, "dynamodb-calls/op")
			b.ReportMetric(float64(page*pageSize), "items-read/op")
			b.ReportMetric(float64(own.Nanoseconds())/n, "handler-ns/op")
		})
	}
}
