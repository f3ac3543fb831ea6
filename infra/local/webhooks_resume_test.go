package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/deliver"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// resumeEnv is a survey with a webhook whose receiver the test switches,
// its deliveries attempted by the deliver function's handler on a clock the
// test moves, their jobs captured.
type resumeEnv struct {
	st       *store.Store
	h        http.Handler
	key      string
	sid, wid int64
	ok       atomic.Bool // the receiver answers 200 (else 500, or status when set)
	status   atomic.Int32
	// delay is how long the receiver takes to answer (nanoseconds; it
	// gives up when the request is cut).
	delay atomic.Int64
	hits  atomic.Int64
	jobs  *capturedJobs
	clock *testClock
	d     *deliver.Deliverer
	next  atomic.Int64 // responses made
}

func newResumeEnv(t *testing.T) *resumeEnv {
	t.Helper()
	e := &resumeEnv{st: testenv.Store(t), jobs: &capturedJobs{}, clock: &testClock{t: time.Now()}}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		if d := time.Duration(e.delay.Load()); d > 0 {
			// Read the body first: only then does the server notice a
			// cut request (and end r's context).
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
				return
			case <-time.After(d):
			}
		}
		if e.ok.Load() {
			w.WriteHeader(200)
			return
		}
		if code := e.status.Load(); code != 0 {
			w.WriteHeader(int(code))
			return
		}
		w.WriteHeader(500)
	}))
	t.Cleanup(recv.Close)
	cfg := config{sealer: testenv.Sealer(t), exports: testenv.Exports(t), queue: e.jobs, guard: webhook.Guard{AllowLoopback: true}}
	e.h = serve(routers(e.st, cfg))
	owner := testenv.NewOwner(t, survey.PlanEnterprise, "Hooks")
	e.key = owner.Key
	e.sid = testenv.NewSurvey(t, e.st, owner.Account.ID, owner.Folder, "Hooks").ID
	rec := serveAs(e.h, e.key, "POST", fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url":"`+recv.URL+`/in"}`)
	if rec.Code != 201 {
		t.Fatalf("create webhook: %d %s", rec.Code, rec.Body)
	}
	var hook struct {
		ID int64 `json:"id"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &hook)
	e.wid = hook.ID
	// Every retry is hours away (the retrier's), as late in the schedule.
	e.d = deliver.New(deliver.Deps{Store: e.st, Opener: cfg.sealer, Queue: e.jobs, Client: webhook.Guard{AllowLoopback: true}.Client(2 * time.Second),
		Delays: []time.Duration{6 * time.Hour, 6 * time.Hour, 6 * time.Hour, 6 * time.Hour, 6 * time.Hour, 6 * time.Hour}, MaxDelay: -1, Now: e.clock.now})
	return e
}

// deliveries makes n responses and their pending deliveries, and answers
// their first jobs.
func (e *resumeEnv) deliveries(t *testing.T, n int) []webhook.Job {
	t.Helper()
	ctx := context.Background()
	var rs []survey.Response
	for range n {
		at := time.Now().UTC().Add(time.Duration(e.next.Add(1)) * time.Millisecond)
		rs = append(rs, survey.Response{SurveyID: e.sid, SubmittedAt: at, StartedAt: at.Add(-time.Minute), Answers: map[int64]json.RawMessage{}})
	}
	made, err := storetest.ImportResponses(ctx, e.st, rs)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []webhook.Job
	for _, r := range made {
		d := survey.Delivery{WebhookID: e.wid, SurveyID: e.sid, ResponseID: r.ID, Event: survey.EventResponseSubmitted,
			Created: r.SubmittedAt, Status: survey.DeliveryPending}
		if _, _, err := e.st.CreateDelivery(ctx, d, e.clock.now().Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, webhook.Job{SurveyID: e.sid, WebhookID: e.wid, ResponseID: r.ID, Delivery: d.ID()})
	}
	return jobs
}

// run hands the jobs to the deliver handler as one batch per job (in
// order, so the breaker sees each outcome), as the main lane's messages.
func (e *resumeEnv) run(t *testing.T, jobs []webhook.Job) {
	t.Helper()
	e.runFrom(t, "", jobs)
}

// runFrom is run of the messages of the queue arn ("": the main lane).
func (e *resumeEnv) runFrom(t *testing.T, arn string, jobs []webhook.Job) {
	t.Helper()
	for _, j := range jobs {
		if _, err := e.d.Handle(context.Background(), jobEvent(j, arn)); err != nil {
			t.Fatal(err)
		}
	}
}

// jobEvent is a batch of one message, job j, from the queue arn.
func jobEvent(j webhook.Job, arn string) events.SQSEvent {
	return events.SQSEvent{Records: []events.SQSMessage{{MessageId: j.Delivery, Body: j.Encode(), EventSourceARN: arn}}}
}

func (e *resumeEnv) delivery(t *testing.T, j webhook.Job) survey.Delivery {
	t.Helper()
	d, err := e.st.Delivery(context.Background(), e.wid, j.Delivery)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pause opens the webhook's breaker (BreakerThreshold failures) and has
// the breaker hold back n more deliveries: answers their jobs.
func (e *resumeEnv) pause(t *testing.T, n int) []webhook.Job {
	t.Helper()
	e.ok.Store(false)
	e.run(t, e.deliveries(t, webhook.BreakerThreshold))
	hits := e.hits.Load()
	held := e.deliveries(t, n)
	e.run(t, held)
	if e.hits.Load() != hits {
		t.Fatalf("the open breaker let %d attempts through", e.hits.Load()-hits)
	}
	for _, j := range held {
		d := e.delivery(t, j)
		if d.Status != survey.DeliveryPending || d.LastError != deliver.MsgPaused || d.NextAttempt.Sub(e.clock.now()) < 5*time.Hour {
			t.Fatalf("a held-back delivery: %+v, want pending, paused, next attempt in 6 h", d)
		}
		// No request was sent: no attempt, one step held.
		if d.Attempts != 0 || d.Held != 1 || d.View().Attempts != 0 || !d.LastAttempt.IsZero() {
			t.Fatalf("a held-back delivery: %+v, want 0 attempts (none sent), 1 held", d)
		}
	}
	e.jobs.take() // (no job: every retry is the retrier's)
	return held
}

// dueNow reports whether the due index holds d as due at now.
func (e *resumeEnv) dueNow(t *testing.T, j webhook.Job) bool {
	t.Helper()
	for shard := range store.DueShards {
		due, _, err := e.st.DueDeliveries(context.Background(), shard, e.clock.now(), nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.ID() == j.Delivery && d.WebhookID == j.WebhookID {
				return true
			}
		}
	}
	return false
}

// TestWebhookHeldStepsKeepTheLastStatus (contract section 13): a
// delivery whose receiver answered 503 five times (which opens the
// breaker) and whose next step the open breaker held back still shows
// last_status_code 503 and the receiver's error in its log: a step held
// back sends nothing and overwrites neither.
func TestWebhookHeldStepsKeepTheLastStatus(t *testing.T) {
	e := newResumeEnv(t)
	e.status.Store(http.StatusServiceUnavailable)
	j := e.deliveries(t, 1)[0]
	for step := range webhook.BreakerThreshold + 1 {
		j.Attempt = step
		e.run(t, []webhook.Job{j})
	}
	d := e.delivery(t, j)
	if e.hits.Load() != webhook.BreakerThreshold || d.Attempts != webhook.BreakerThreshold || d.Held != 1 {
		t.Fatalf("%d requests, delivery %+v; want %d sent and 1 held back", e.hits.Load(), d, webhook.BreakerThreshold)
	}
	if d.LastStatusCode != 503 || d.LastError != "The receiver answered 503." || d.LastAttempt.IsZero() {
		t.Errorf("after a held-back step: %+v, want the last real answer (503)", d)
	}
	rec := serveAs(e.h, e.key, "GET", fmt.Sprintf("/api/surveys/%d/webhooks/%d/deliveries/", e.sid, e.wid), "")
	var page struct {
		Results []struct {
			Attempts       int     `json:"attempts"`
			LastStatusCode *int    `json:"last_status_code"`
			LastError      *string `json:"last_error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || rec.Code != 200 || len(page.Results) != 1 {
		t.Fatalf("deliveries: %d %s (%v)", rec.Code, rec.Body, err)
	}
	if got := page.Results[0]; got.Attempts != 5 || got.LastStatusCode == nil || *got.LastStatusCode != 503 || got.LastError == nil || !strings.Contains(*got.LastError, "503") {
		t.Errorf("the log shows %s, want attempts 5, last_status_code 503", rec.Body)
	}
}

// TestWebhookProbeSuccessResendsPausedDeliveries: deliveries the open
// breaker held back were due again only at their next scheduled attempt
// (6 hours here; up to 12 late in the default schedule). The probe's
// success closes the breaker and makes them due now: their jobs are
// queued at once and each is sent on its next run.
func TestWebhookProbeSuccessResendsPausedDeliveries(t *testing.T) {
	e := newResumeEnv(t)
	held := e.pause(t, 4)
	failed := e.jobs.take()
	_ = failed
	// The pause (FirstPause) passes; the receiver is back. A retry of one
	// of the failed deliveries is the probe.
	e.clock.set(e.clock.now().Add(webhook.FirstPause + time.Second))
	e.ok.Store(true)
	probe := e.deliveries(t, 1)
	e.run(t, probe)
	if d := e.delivery(t, probe[0]); d.Status != survey.DeliverySucceeded {
		t.Fatalf("the probe: %+v", d)
	}
	queued := e.jobs.take()
	if len(queued) != len(held) {
		t.Fatalf("the probe's success queued %d jobs, want the %d held-back deliveries", len(queued), len(held))
	}
	for _, j := range held {
		if !e.dueNow(t, j) {
			t.Errorf("%s: not due now in the due index", j.Delivery)
		}
	}
	e.run(t, queued)
	for _, j := range held {
		// Its first step was held back (no request): the resumed one
		// is its first attempt (before: it read 2).
		if d := e.delivery(t, j); d.Status != survey.DeliverySucceeded || d.Attempts != 1 || d.Held != 1 {
			t.Errorf("resumed delivery: %+v, want succeeded at its first attempt, one step held", d)
		}
	}
	// Nothing paused is left: a second success resumes nothing more.
	if again, more, err := e.st.ResumePaused(context.Background(), e.wid, e.clock.now(), 0); err != nil || len(again) != 0 || more {
		t.Errorf("after the resume: %d more resumed (%v, %v)", len(again), more, err)
	}
}

// TestWebhookPatchResendsPausedDeliveries: the owner's PATCH closes the
// breaker and queues the held-back deliveries at once; the resume is one
// Query per paused-index shard and one UpdateItem per delivery.
func TestWebhookPatchResendsPausedDeliveries(t *testing.T) {
	e := newResumeEnv(t)
	held := e.pause(t, 3)
	e.ok.Store(true)
	ctx, calls := awsenv.WithCalls(context.Background())
	req := testenv.NewRequest("PATCH", fmt.Sprintf("/api/surveys/%d/webhooks/%d/", e.sid, e.wid), e.key, "application/json", strings.NewReader(`{"active":true}`))
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req.WithContext(ctx))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"paused_until":null`) {
		t.Fatalf("PATCH: %d %s", rec.Code, rec.Body)
	}
	ops := calls.Ops()
	if ops["DynamoDB.Query"] != store.PausedShards {
		t.Errorf("the resume made %d Queries, want one per paused-index shard (%d): %v", ops["DynamoDB.Query"], store.PausedShards, ops)
	}
	queued := e.jobs.take()
	if len(queued) != len(held) {
		t.Fatalf("PATCH queued %d jobs, want the %d held-back deliveries", len(queued), len(held))
	}
	e.run(t, queued)
	for _, j := range held {
		if d := e.delivery(t, j); d.Status != survey.DeliverySucceeded {
			t.Errorf("resumed delivery: %+v, want succeeded", d)
		}
	}
}

// TestResumePausedBoundAndRaces: a bounded resume says more are left and
// the breakers item carries it, so the next success resumes the rest; a
// delivery whose attempt was recorded since (it left the pause) or that an
// attempt holds is not moved; a second resume moves nothing twice.
func TestResumePausedBoundAndRaces(t *testing.T) {
	e := newResumeEnv(t)
	held := e.pause(t, 5)
	ctx := context.Background()
	// One of them is being attempted (a live claim): not moved.
	busy := e.delivery(t, held[0])
	if ok, err := e.st.ClaimAttempt(ctx, busy, "busy", time.Now().Add(time.Hour)); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	first, more, err := e.st.ResumePaused(ctx, e.wid, e.clock.now(), 2)
	if err != nil || !more || len(first) > 2 {
		t.Fatalf("bounded resume: %d resumed, more %v, %v; want at most 2 and more", len(first), more, err)
	}
	if err := e.st.MarkResume(ctx, e.sid, e.wid); err != nil {
		t.Fatal(err)
	}
	// The next success (a new delivery; the breaker is still open until
	// its pause ends) resumes the rest.
	e.clock.set(e.clock.now().Add(webhook.FirstPause + time.Second))
	e.ok.Store(true)
	e.run(t, e.deliveries(t, 1))
	rest := e.jobs.take()
	got := map[string]bool{}
	for _, d := range first {
		got[d.ID()] = true
	}
	for _, j := range rest {
		if got[j.Delivery] {
			t.Errorf("%s resumed twice", j.Delivery)
		}
		got[j.Delivery] = true
	}
	for _, j := range held[1:] {
		if !got[j.Delivery] {
			t.Errorf("%s: never resumed", j.Delivery)
		}
	}
	if got[held[0].Delivery] {
		t.Errorf("the delivery under attempt was resumed")
	}
}
