package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/webhook"
)

// The dead receiver beside a healthy one, shared by
// TestWebhookDeadReceiverBesideAHealthyOne (counts asserted) and
// BenchmarkWebhookDeadReceiver (latencies reported), on DynamoDB Local
// (its stream) and moto (SQS).

// neighbour is what the other survey's webhook does.
type neighbour int

const (
	noNeighbour      neighbour = iota // the other survey has no webhook
	healthyNeighbour                  // it answers at once, as the first
	deadNeighbour                     // it hangs past the timeout every time
)

func (n neighbour) String() string {
	return [...]string{"alone", "beside-healthy", "beside-dead"}[n]
}

// deadRun is what one run measured.
type deadRun struct {
	// p50 and p99 are the healthy receiver's latency, from the response's
	// write to the delivery's arrival; steady50 and steady99 the same of
	// the events written after the first steadyAfter (by then a dead
	// neighbour's breaker is open and its webhook marked slow).
	p50, p99           time.Duration
	steady50, steady99 time.Duration
	// deadHits counts the requests the other receiver got.
	deadHits int
	e        *hookEnv
	deadSID  int64
	deadID   int64
	// How long the other receiver's requests held their senders, in the
	// main lane and in the slow lane, and how many the main lane made.
	mainHeld, slowHeld time.Duration
	mainAttempts       int
	// fixed, once set, makes the dead receiver answer 204 at once (its
	// owner fixed it); inFlight counts its requests under way.
	fixed    *atomic.Bool
	inFlight *atomic.Int64
}

// laneObservers has, by receiver host, what counts its requests' times by
// lane: every env's stream sees every response of the shared table, so
// any env's deliverer may make a run's requests.
var laneObservers sync.Map

// observeLane is the envs' hookOptions.onRequest: it tells the observer of
// the request's host, if any.
func observeLane(lane string, req *http.Request, took time.Duration) {
	if f, ok := laneObservers.Load(req.URL.Host); ok {
		f.(func(string, time.Duration))(lane, took)
	}
}

// steadyAfter is when a run's steady state starts: a dead receiver's
// first attempts (in the main lane until it is marked slow, then the slow
// lane's until the breaker opens) are over.
const steadyAfter = 5 * time.Second

// deadBesideHealthy writes n responses to each of two surveys, three to
// each every pace; the first survey's webhook answers at once, the
// other's is as next says. It waits for every healthy delivery.
func deadBesideHealthy(t testing.TB, next neighbour, n int, pace time.Duration) deadRun {
	t.Helper()
	var run deadRun
	var heldMu sync.Mutex
	otherDone := 0 // the other receiver's requests answered or cut
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Hour},
		workers: 2, timeout: time.Second, budget: 200 * time.Millisecond, onRequest: observeLane})
	run.e, run.fixed, run.inFlight = e, new(atomic.Bool), new(atomic.Int64)
	fixed, inFlight := run.fixed, run.inFlight
	healthy := newReceiver(t, nil)
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+healthy.srv.URL+`/in"}`)
	other := newReceiver(t, func(_ int, r *http.Request) int {
		if next != deadNeighbour || fixed.Load() {
			return 204
		}
		inFlight.Add(1)
		defer inFlight.Add(-1)
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		return 200
	})
	// How long the other receiver held each lane's senders, told by the
	// lanes' clients.
	otherHost := strings.TrimPrefix(other.srv.URL, "http://")
	laneObservers.Store(otherHost, func(lane string, took time.Duration) {
		heldMu.Lock()
		defer heldMu.Unlock()
		if lane == "main" {
			run.mainHeld += took
			run.mainAttempts++
		} else {
			run.slowHeld += took
		}
		otherDone++
	})
	t.Cleanup(func() { laneObservers.Delete(otherHost) })
	healthySID := e.sid
	run.deadSID = e.newSurvey(t, "Other")
	if next != noNeighbour {
		e.sid = run.deadSID
		run.deadID, _ = e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", run.deadSID), `{"url": "`+other.srv.URL+`/in"}`)
	}
	sent := map[int64]time.Time{}
	for range n / 3 {
		e.sid = run.deadSID
		e.respond(t, 3)
		e.sid = healthySID
		for _, r := range e.respond(t, 3) {
			sent[r.ID] = time.Now()
		}
		time.Sleep(pace)
	}
	want := n / 3 * 3
	waitFor(t, 2*time.Minute, "every healthy event", func() bool { return len(healthy.snapshot()) >= want })
	var lat, steady []time.Duration
	var first time.Time
	for _, at := range sent {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	for _, d := range healthy.snapshot() {
		var body struct {
			Data struct {
				Response struct {
					ID int64 `json:"id"`
				} `json:"response"`
			} `json:"data"`
		}
		_ = jsonUnmarshal(d.body, &body)
		at := sent[body.Data.Response.ID]
		lat = append(lat, d.at.Sub(at))
		if at.Sub(first) >= steadyAfter {
			steady = append(steady, d.at.Sub(at))
		}
	}
	if len(lat) != want {
		t.Fatalf("the healthy receiver got %d requests for %d events", len(lat), want)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	run.p50, run.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	if len(steady) > 0 {
		sort.Slice(steady, func(i, j int) bool { return steady[i] < steady[j] })
		run.steady50, run.steady99 = steady[len(steady)/2], steady[len(steady)*99/100]
	}
	run.deadHits = len(other.snapshot())
	// The other receiver's requests still under way end within the
	// timeout: their times count. (Those of an env without the lanes'
	// clients, whose stream saw these responses too, are never told: the
	// wait gives up on them after a while, without failing.)
	for give := time.Now().Add(20 * time.Second); time.Now().Before(give); time.Sleep(50 * time.Millisecond) {
		heldMu.Lock()
		over := otherDone >= run.deadHits
		heldMu.Unlock()
		if over {
			break
		}
	}
	e.sid = run.deadSID
	heldMu.Lock()
	defer heldMu.Unlock()
	return run
}

// BenchmarkWebhookDeadReceiver: the healthy receiver's latency (a
// response's write to its delivery's arrival), p50 and p99, alone (the
// other survey has no webhook), beside another healthy receiver, and
// beside a dead one (every request hangs past the timeout), on DynamoDB
// Local and moto with `make run`'s pollers; -steady- metrics are those of
// the events written after the first steadyAfter. BENCH_WEBHOOK_EVENTS
// sets the events a run (default 90, three every 300 ms; `make test` 30,
// whose runs end before steadyAfter: their steady metrics are 0).
func BenchmarkWebhookDeadReceiver(b *testing.B) {
	n := testenv.BenchSize(b, "BENCH_WEBHOOK_EVENTS", 90)
	if n < 3 {
		b.Fatalf("BENCH_WEBHOOK_EVENTS=%d: want 3 or more (three a round)", n)
	}
	const pace = 300 * time.Millisecond
	for range b.N {
		for _, next := range []neighbour{noNeighbour, healthyNeighbour, deadNeighbour} {
			r := deadBesideHealthy(b, next, n, pace)
			b.ReportMetric(float64(r.p50.Microseconds())/1000, next.String()+"-p50-ms")
			b.ReportMetric(float64(r.p99.Microseconds())/1000, next.String()+"-p99-ms")
			b.ReportMetric(float64(r.steady50.Microseconds())/1000, next.String()+"-steady-p50-ms")
			b.ReportMetric(float64(r.steady99.Microseconds())/1000, next.String()+"-steady-p99-ms")
			if next == deadNeighbour {
				b.ReportMetric(float64(r.deadHits), "dead-receiver-requests")
				b.Logf("the dead receiver was asked %d times for %d events; it held main-lane batches %v (%d attempts, before it was marked slow) and the slow lane %v",
					r.deadHits, n, r.mainHeld.Round(time.Millisecond), r.mainAttempts, r.slowHeld.Round(time.Millisecond))
			}
		}
	}
	b.ReportMetric(0, "ns/op")
}
