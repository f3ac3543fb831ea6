package main

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// arrivals records when each webhook-id first reached the receiver.
type arrivals struct {
	mu    sync.Mutex
	first map[string]time.Time
	total int
}

func (a *arrivals) handler(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	if _, ok := a.first[r.Header.Get("webhook-id")]; !ok {
		a.first[r.Header.Get("webhook-id")] = time.Now()
	}
	a.total++
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (a *arrivals) at(id string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.first[id]
	return t, ok
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.first)
}

// BenchmarkWebhookLatency measures, on moto and a loopback receiver, the
// time from a response item's write to its delivery's arrival: 100
// responses (BENCH_WEBHOOK_SAMPLES; `make test` 20) written one after the
// other, each waited for. It reports the p50 and p99 (ms); the pollers are
// `make run`'s, with the stream polled at most 50 ms apart when idle.
func BenchmarkWebhookLatency(b *testing.B) {
	samples := testenv.BenchSize(b, "BENCH_WEBHOOK_SAMPLES", 100)
	e := newHookEnv(b, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Second}, workers: 2})
	rc := &arrivals{first: map[string]time.Time{}}
	srv := newReceiver(b, nil)
	srv.srv.Config.Handler = http.HandlerFunc(rc.handler)
	wid, _ := e.createHook(b, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+srv.srv.URL+`/in"}`)
	e.respond(b, 1) // warm the pollers, the sealer and the connections
	waitFor(b, settle, "the warm-up delivery", func() bool { return rc.count() == 1 })
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		lat = lat[:0]
		for range samples {
			written := time.Now()
			r := e.respond(b, 1)[0]
			id := survey.Delivery{WebhookID: wid, ResponseID: r.ID, Created: r.SubmittedAt}.MessageID()
			var got time.Time
			waitFor(b, settle, "a delivery", func() bool {
				var ok bool
				got, ok = rc.at(id)
				return ok
			})
			lat = append(lat, got.Sub(written))
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWebhookBurst measures deliveries a second on moto: 500
// responses (BENCH_WEBHOOK_BURST; `make test` 100) written at once (20
// BatchWriteItem calls for 500), until the receiver has seen every one.
func BenchmarkWebhookBurst(b *testing.B) {
	n := testenv.BenchSize(b, "BENCH_WEBHOOK_BURST", 500)
	e := newHookEnv(b, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Second}, workers: 4})
	rc := &arrivals{first: map[string]time.Time{}}
	srv := newReceiver(b, nil)
	srv.srv.Config.Handler = http.HandlerFunc(rc.handler)
	e.createHook(b, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+srv.srv.URL+`/in"}`)
	e.respond(b, 1)
	waitFor(b, settle, "the warm-up delivery", func() bool { return rc.count() == 1 })
	var rate float64
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		e.respond(b, n)
		want := 1 + (i+1)*n
		waitFor(b, 5*time.Minute, "the burst delivered", func() bool { return rc.count() >= want })
		rate = float64(n) / time.Since(start).Seconds()
	}
	b.StopTimer()
	b.ReportMetric(rate, "deliveries/s")
	b.ReportMetric(float64(rc.total-rc.count()), "duplicates")
}
