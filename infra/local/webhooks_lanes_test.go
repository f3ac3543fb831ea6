package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// The lanes and the attempts count: a receiver has
// its whole timeout in either lane, so one answering in time gets one
// request per attempt; `attempts` counts the requests sent. Run on the
// deliver function's handler with the test's clock and short timeouts
// (the scale of the contract's: a 1 s budget, a 10 s timeout).

const slowARN = "arn:aws:sqs:us-east-1:000000000000:slow"

// withLanes gives the env's deliverer a slow lane (its jobs captured) and
// short timeouts: budget before a webhook is marked slow, timeout for the
// receiver.
func (e *resumeEnv) withLanes(budget, timeout time.Duration) *capturedJobs {
	slow := &capturedJobs{}
	e.d.Slow, e.d.SlowARN, e.d.Budget, e.d.Timeout = slow, slowARN, budget, timeout
	return slow
}

// TestWebhookSlowAnswerInTimeIsOnePost: a receiver answering 204 after
// the main lane's budget and within its timeout (4 s of 10 s, scaled)
// gets one POST; the delivery succeeded at attempt 1. The webhook is then
// marked slow, so its next delivery goes to the slow lane before any
// request. Before the fix the main lane cut the request at the budget and
// the slow lane sent it again: two POSTs, the cut one not counted.
func TestWebhookSlowAnswerInTimeIsOnePost(t *testing.T) {
	e := newResumeEnv(t)
	slow := e.withLanes(100*time.Millisecond, 2*time.Second)
	e.ok.Store(true)
	e.delay.Store(int64(600 * time.Millisecond))
	jobs := e.deliveries(t, 1)
	e.run(t, jobs)
	e.runFrom(t, slowARN, slow.take()) // whatever the main lane handed over
	if n := e.hits.Load(); n != 1 {
		t.Fatalf("the receiver got %d POSTs, want 1", n)
	}
	if d := e.delivery(t, jobs[0]); d.Status != survey.DeliverySucceeded || d.Attempts != 1 || d.LastStatusCode != 200 {
		t.Fatalf("the delivery reads %+v, want succeeded at attempt 1", d)
	}
	// Marked slow: the next delivery is the slow lane's, moved unsent.
	next := e.deliveries(t, 1)
	e.run(t, next)
	moved := slow.take()
	if n := e.hits.Load(); n != 1 || len(moved) != 1 {
		t.Fatalf("after the slow answer the main lane sent %d requests and moved %d jobs, want 0 and 1", n-1, len(moved))
	}
	e.runFrom(t, slowARN, moved)
	if d := e.delivery(t, next[0]); e.hits.Load() != 2 || d.Status != survey.DeliverySucceeded || d.Attempts != 1 {
		t.Fatalf("the slow lane's delivery reads %+v (%d POSTs in all), want succeeded at attempt 1", d, e.hits.Load())
	}
}

// TestWebhookReceiverPastTheTimeoutIsOneAttempt: a receiver that answers
// after the timeout (12 s of 10 s, scaled) gets one POST, cut at the
// timeout: attempt 1 failed, its retry on the schedule. Before the fix the
// main lane cut it at the budget and the slow lane sent it again at once.
func TestWebhookReceiverPastTheTimeoutIsOneAttempt(t *testing.T) {
	e := newResumeEnv(t)
	slow := e.withLanes(100*time.Millisecond, time.Second)
	e.ok.Store(true)
	e.delay.Store(int64(time.Minute)) // answers only when cut
	jobs := e.deliveries(t, 1)
	e.run(t, jobs)
	e.runFrom(t, slowARN, slow.take())
	if n := e.hits.Load(); n != 1 {
		t.Fatalf("the receiver got %d POSTs, want 1", n)
	}
	d := e.delivery(t, jobs[0])
	if d.Status != survey.DeliveryPending || d.Attempts != 1 || !strings.Contains(d.LastError, "did not answer within 1 second") {
		t.Fatalf("the delivery reads %+v, want pending after 1 attempt that timed out", d)
	}
	if got, want := d.NextAttempt.Sub(d.LastAttempt), e.d.Delays[0]; got != want {
		t.Fatalf("the next attempt in %v, want the schedule's %v", got, want)
	}
}

// TestWebhookPausedStepsAreNotAttempts: while the breaker holds a
// delivery back, its schedule goes on (a step each time it is due) but no
// request is sent, so `attempts` stays 0; a stale copy of a step's job
// takes nothing. Before the fix each held-back step counted as an attempt.
func TestWebhookPausedStepsAreNotAttempts(t *testing.T) {
	e := newResumeEnv(t)
	held := e.pause(t, 1)
	hits := e.hits.Load()
	d := e.delivery(t, held[0])
	again := webhook.JobsOf([]survey.Delivery{d})
	e.run(t, again) // due again while the breaker is still open
	e.run(t, held)  // a stale copy of the first step's job
	d = e.delivery(t, held[0])
	if e.hits.Load() != hits || d.Attempts != 0 || d.Held != 2 || d.View().Attempts != 0 || d.Status != survey.DeliveryPending {
		t.Fatalf("after two held-back steps the delivery reads %+v (%d requests), want 0 attempts, 2 held, none sent", d, e.hits.Load()-hits)
	}
	if got, want := d.NextAttempt.Sub(e.clock.now()).Round(time.Second), e.d.Delays[1]; got != want {
		t.Fatalf("the next step in %v, want the schedule's second wait %v", got, want)
	}
}

// TestWebhookCutByTheFunctionsDeadlineIsAnAttempt: a request the
// function's own deadline cuts (the receiver still has time) is recorded
// and counted as an attempt, with time left to record it. Before the fix
// it was left unrecorded (the function gone), the request sent but not
// counted.
func TestWebhookCutByTheFunctionsDeadlineIsAnAttempt(t *testing.T) {
	e := newResumeEnv(t)
	e.d.Timeout = 10 * time.Second
	e.d.Client = webhook.Guard{AllowLoopback: true}.Client(webhook.Timeout)
	e.ok.Store(true)
	e.delay.Store(int64(time.Minute))
	jobs := e.deliveries(t, 1)
	// 5 s left: the request gets what remains less the 3 s kept to
	// record it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev := jobEvent(jobs[0], "")
	if _, err := e.d.Handle(ctx, ev); err != nil {
		t.Fatal(err)
	}
	d := e.delivery(t, jobs[0])
	if e.hits.Load() != 1 || d.Attempts != 1 || d.Status != survey.DeliveryPending || !strings.Contains(d.LastError, "function's time ran out") {
		t.Fatalf("the delivery reads %+v (%d requests), want 1 attempt recorded as cut", d, e.hits.Load())
	}
}

// TestWebhookRetryIsTheSlowLanes: a delivery tried before (here its
// webhook's failures were forgotten since, as the owner's PATCH does) is
// moved to the slow lane before any request when its job comes through
// the main lane, so a backlog resumed at once (a PATCH of a webhook whose
// receiver is still down) cannot fill the main lane with attempts that
// wait out the whole timeout.
func TestWebhookRetryIsTheSlowLanes(t *testing.T) {
	e := newResumeEnv(t)
	slow := e.withLanes(time.Second, 2*time.Second)
	jobs := e.deliveries(t, 1)
	e.run(t, jobs) // fails (500): attempt 1
	if err := e.st.CloseBreaker(context.Background(), e.sid, e.wid); err != nil {
		t.Fatal(err)
	}
	slow.take()
	retry := webhook.JobsOf([]survey.Delivery{e.delivery(t, jobs[0])})
	e.run(t, retry)
	moved := slow.take()
	if n := e.hits.Load(); n != 1 || len(moved) != 1 {
		t.Fatalf("the main lane made %d requests for a retry and moved %d jobs, want none made and 1 moved", n-1, len(moved))
	}
	e.ok.Store(true)
	e.runFrom(t, slowARN, moved)
	if d := e.delivery(t, jobs[0]); e.hits.Load() != 2 || d.Status != survey.DeliverySucceeded || d.Attempts != 2 {
		t.Fatalf("the slow lane's retry: %+v (%d requests), want succeeded at attempt 2", d, e.hits.Load())
	}
}
