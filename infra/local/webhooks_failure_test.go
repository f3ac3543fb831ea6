package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"surveyservice/functions/dispatch"
	"surveyservice/functions/retrier"
	"surveyservice/internal/eventsource"
	"surveyservice/internal/localaws"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// Webhooks under failure: the whole schedule on an accelerated
// clock, racing retries, a poison stream record and its replay, a dead
// receiver beside a healthy one.

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// queueDepth answers the delivery queue's messages waiting, in flight
// (received, not deleted) and delayed, and its dead-letter queue's.
func (e *hookEnv) queueDepth(t testing.TB) (visible, inFlight, delayed, dead int) {
	t.Helper()
	ctx, client := context.Background(), e.sqs(t)
	attrs := func(url string) map[string]string {
		out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	n := func(m map[string]string, k types.QueueAttributeName) int {
		v, _ := strconv.Atoi(m[string(k)])
		return v
	}
	a := attrs(e.hooks.queue.URL)
	dlq, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(e.opts.queueName + "-dlq")})
	if err != nil {
		t.Fatal(err)
	}
	return n(a, types.QueueAttributeNameApproximateNumberOfMessages), n(a, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible),
		n(a, types.QueueAttributeNameApproximateNumberOfMessagesDelayed),
		n(attrs(aws.ToString(dlq.QueueUrl)), types.QueueAttributeNameApproximateNumberOfMessages)
}

// sqs is a client of the env's queues.
func (e *hookEnv) sqs(t testing.TB) *sqs.Client {
	t.Helper()
	cfg, err := localaws.Load(context.Background(), e.opts.aws)
	if err != nil {
		t.Fatal(err)
	}
	return sqs.NewFromConfig(cfg)
}

// lanesIdle reports whether both delivery lanes (the queue and its slow
// lane) hold no message, waiting or in flight: no attempt is under way.
func (e *hookEnv) lanesIdle(t testing.TB) bool {
	t.Helper()
	ctx, client := context.Background(), e.sqs(t)
	for _, name := range []string{e.opts.queueName, e.opts.queueName + "-slow"} {
		url, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url.QueueUrl,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out.Attributes {
			if v != "0" {
				return false
			}
		}
	}
	return true
}

func parseStamp(t testing.TB, s *string) time.Time {
	t.Helper()
	if s == nil {
		t.Fatal("no time")
	}
	at, err := time.Parse(survey.TimestampLayout, *s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestWebhookFullScheduleOnAnAcceleratedClock: a receiver that always
// fails gets all ten attempts of the default schedule, 34 h 42 min on the
// test's clock, each when the schedule says; the two 12-hour waits are
// the retrier's (the due index), not a message's visibility, so no message
// is in flight between attempts, nothing reaches the dead-letter queue,
// and the retrier queues nothing before a delivery is due. Before issue
// 21 the copies of the 12-hour steps were received ~20 times in their last
// minute and went to the dead-letter queue: attempts 9 and 10 never ran.
func TestWebhookFullScheduleOnAnAcceleratedClock(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now().UTC()}
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: webhook.DefaultDelays,
		now: clk.now, retrierEvery: -1, maxDelay: -1})
	rc := newReceiver(t, func(int, *http.Request) int { return 503 })
	wid, _ := e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+rc.srv.URL+`/in"}`)
	e.respond(t, 1)
	ctx := context.Background()
	start := clk.now()
	maxInFlight := 0
	var gaps []time.Duration
	var last time.Time
	for k := 1; k <= webhook.MaxAttempts(webhook.DefaultDelays); k++ {
		var d survey.DeliveryView
		waitFor(t, settle, fmt.Sprintf("attempt %d recorded", k), func() bool {
			ds := e.deliveries(t, wid)
			if len(ds) == 1 {
				d = ds[0]
			}
			return len(ds) == 1 && d.Attempts == k
		})
		at := parseStamp(t, d.LastAttemptAt)
		if k > 1 {
			gaps = append(gaps, at.Sub(last))
		}
		last = at
		// The attempt's message is deleted as it is recorded: while the
		// delivery waits, the queue holds nothing of it.
		waitFor(t, settle, fmt.Sprintf("the queue empty after attempt %d", k), func() bool {
			v, f, dl, _ := e.queueDepth(t)
			return v+f+dl == 0
		})
		_, _, _, dead := e.queueDepth(t)
		if dead != 0 {
			t.Fatalf("after attempt %d the dead-letter queue holds %d", k, dead)
		}
		if k == webhook.MaxAttempts(webhook.DefaultDelays) {
			if d.Status != survey.DeliveryFailed || d.NextAttemptAt != nil {
				t.Fatalf("after the last attempt the delivery reads %+v", d)
			}
			break
		}
		next := parseStamp(t, d.NextAttemptAt)
		if want := webhook.DefaultDelays[k-1]; next.Sub(at) != want || d.Status != survey.DeliveryPending {
			t.Fatalf("attempt %d: next attempt in %v (%s), want %v", k, next.Sub(at), d.Status, want)
		}
		// A second early: nothing is due, nothing is queued.
		clk.set(next.Add(-time.Second))
		if res, err := retrier.New(retrier.Deps{Store: e.st, Queue: e.hooks.queue}).Run(ctx, clk.now()); err != nil || res.Queued != 0 {
			t.Fatalf("the retrier a second early: %+v %v", res, err)
		}
		v, f, dl, _ := e.queueDepth(t)
		maxInFlight = max(maxInFlight, v+f+dl)
		clk.set(next)
		if res, err := retrier.New(retrier.Deps{Store: e.st, Queue: e.hooks.queue}).Run(ctx, clk.now()); err != nil || res.Queued != 1 {
			t.Fatalf("the retrier at attempt %d's time: %+v %v", k+1, res, err)
		}
	}
	if got := len(rc.snapshot()); got != 10 {
		t.Fatalf("the receiver got %d attempts, want 10", got)
	}
	for i, g := range gaps {
		if g != webhook.DefaultDelays[i] {
			t.Errorf("wait %d was %v, want %v", i+1, g, webhook.DefaultDelays[i])
		}
	}
	t.Logf("10 attempts over %v of the test clock; waits %v; at most %d messages in the queue while a delivery waits",
		last.Sub(start).Round(time.Second), gaps, maxInFlight)
	if maxInFlight != 0 {
		t.Errorf("%d messages in the queue while waiting, want none", maxInFlight)
	}
}

// TestWebhookRacingRetriesMakeOneChain: ten manual retries at once of a
// delivery whose attempt failed (each a job; the dispatch's and the
// retrier's copies race the same way) make one attempt: the receiver is
// called twice in all, the delivery counts two attempts.
func TestWebhookRacingRetriesMakeOneChain(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Hour}, workers: 4})
	release := make(chan struct{})
	rc := newReceiver(t, func(n int, _ *http.Request) int {
		if n == 1 {
			<-release // the retried attempt waits until every retry was asked
		}
		return 500
	})
	wid, _ := e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+rc.srv.URL+`/in"}`)
	e.respond(t, 1)
	var d survey.DeliveryView
	waitFor(t, settle, "the first attempt", func() bool {
		ds := e.deliveries(t, wid)
		if len(ds) == 1 {
			d = ds[0]
		}
		return len(ds) == 1 && d.Attempts == 1
	})
	var wg sync.WaitGroup
	var accepted atomic.Int32
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := e.do(t, "POST", fmt.Sprintf("/api/surveys/%d/webhooks/%d/deliveries/%s/retry/", e.sid, wid, d.ID), "")
			if code == 202 {
				accepted.Add(1)
			}
		}()
	}
	wg.Wait()
	close(release)
	if accepted.Load() != 10 {
		t.Fatalf("%d retries accepted, want 10", accepted.Load())
	}
	waitFor(t, settle, "the queue drained", func() bool {
		v, f, dl, _ := e.queueDepth(t)
		return v+f+dl == 0 && len(rc.snapshot()) >= 2
	})
	time.Sleep(500 * time.Millisecond)
	ds := e.deliveries(t, wid)
	if n := len(rc.snapshot()); n != 2 || ds[0].Attempts != 2 || ds[0].Status != survey.DeliveryFailed {
		t.Fatalf("the receiver got %d requests; the delivery reads %+v; want 2, one chain", n, ds[0])
	}
}

// TestStreamPoisonRecordIsReportedAndReplayed: one survey's webhooks item
// is corrupt, so its response's record fails at every try. The stream's
// event source retries it a bounded number of times (halving the batch),
// then reports it to the on-failure destination and moves on: the other
// survey's responses, before and after it, are delivered. Once the item
// is mended, the replay of the window from the responses delivers the
// lost event, and delivers nothing twice.
func TestStreamPoisonRecordIsReportedAndReplayed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var failures []eventsource.Failure
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Second},
		stream:          eventsource.Stream{MaxRetries: 2, Bisect: true, MaxRecordAge: time.Hour, RetryWait: 20 * time.Millisecond},
		onStreamFailure: func(f eventsource.Failure) { mu.Lock(); failures = append(failures, f); mu.Unlock() }})
	rc := newReceiver(t, nil)
	good := e.sid
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", good), `{"url": "`+rc.srv.URL+`/good"}`)
	// A second survey of the same account, whose webhooks item breaks.
	ctx := context.Background()
	bad := survey.Survey{ID: e.newSurvey(t, "Poisoned")}
	e.sid = bad.ID
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", bad.ID), `{"url": "`+rc.srv.URL+`/bad"}`)
	key := map[string]dtypes.AttributeValue{"PK": &dtypes.AttributeValueMemberS{Value: store.HooksPK(bad.ID)},
		"SK": &dtypes.AttributeValueMemberS{Value: "WEBHOOKS"}}
	item, err := e.st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.st.TableName()), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	doc := item.Item["doc"]
	setDoc := func(v dtypes.AttributeValue) {
		_, err := e.st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.st.TableName()), Key: key,
			UpdateExpression: aws.String("SET doc = :d"), ExpressionAttributeValues: map[string]dtypes.AttributeValue{":d": v}})
		if err != nil {
			t.Fatal(err)
		}
	}
	setDoc(&dtypes.AttributeValueMemberS{Value: "{broken"})
	// Responses: good, bad, good, written at once (one batch, as far as
	// the stream goes).
	e.sid = good
	from := time.Now().UTC()
	var rs []survey.Response
	rs = append(rs, e.respond(t, 1)...)
	e.sid = bad.ID
	poison := e.respond(t, 1)[0]
	e.sid = good
	rs = append(rs, e.respond(t, 1)...)
	to := time.Now().UTC()
	byID := func() map[string]int {
		out := map[string]int{}
		for _, d := range rc.snapshot() {
			out[d.header.Get("webhook-id")]++
		}
		return out
	}
	waitFor(t, settle, "the poison record reported and the others delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(failures) > 0 && len(byID()) == 2
	})
	mu.Lock()
	f := failures[0]
	mu.Unlock()
	if f.Records != 1 || f.Reason != "RetryAttemptsExhausted" {
		t.Fatalf("reported %+v, want the one poison record", f)
	}
	for _, r := range rs {
		if r.SurveyID != good {
			t.Fatal("mixed surveys")
		}
	}
	// Mended, then replayed from the responses of the window, twice.
	setDoc(doc)
	d := dispatch.New(dispatch.Deps{Store: e.st, Queue: e.hooks.queue})
	res, err := d.Replay(ctx, e.st, from.Add(-time.Second), to.Add(time.Second))
	if err != nil || res.Queued != 1 || res.Responses < 3 {
		t.Fatalf("replay = %+v %v, want the poison response's one delivery queued", res, err)
	}
	waitFor(t, settle, "the replayed event delivered", func() bool { return len(byID()) == 3 })
	again, err := d.Replay(ctx, e.st, from.Add(-time.Second), to.Add(time.Second))
	if err != nil || again.Queued != 0 {
		t.Fatalf("a second replay = %+v %v, want nothing queued", again, err)
	}
	time.Sleep(time.Second)
	for id, n := range byID() {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	_ = poison
}

// TestWebhookDeadReceiverBesideAHealthyOne: one survey's webhook hangs past
// the timeout at every request, another survey's answers at once; both
// get a stream of responses. The dead one's breaker opens after
// webhook.BreakerThreshold failures, after which its attempts cost no
// request, so the healthy receiver's latency (submission to receipt) is
// measured against a run without the dead one: the figures are logged,
// and counts asserted (every healthy event once; the dead receiver asked
// at most the threshold plus the probes). The webhook's read shows the
// pause; its owner fixes the receiver and a PATCH lifts the pause, and the
// requests still in flight at the dead receiver, begun before the PATCH,
// do not count against it once they fail (on a busy machine they used to
// land after the PATCH: consecutive_failures 2).
func TestWebhookDeadReceiverBesideAHealthyOne(t *testing.T) {
	t.Parallel()
	const n = 90
	// Three responses to each survey every 300 ms (see deadBesideHealthy).
	const pace = 300 * time.Millisecond
	base := deadBesideHealthy(t, healthyNeighbour, n, pace)
	run := deadBesideHealthy(t, deadNeighbour, n, pace)
	e, deadID, hits := run.e, run.deadID, run.deadHits
	t.Logf("healthy receiver, %d events: beside a healthy receiver p50 %v p99 %v; beside a dead receiver p50 %v p99 %v; the dead one was asked %d times for %d events",
		n, base.p50.Round(time.Millisecond), base.p99.Round(time.Millisecond), run.p50.Round(time.Millisecond), run.p99.Round(time.Millisecond), hits, n)
	t.Logf("the dead receiver held main-lane batches %v in all (%d attempts, before it was marked slow) and the slow lane %v; "+
		"without the lanes and the breaker, its %d events would hold main-lane batches %v (one timeout each) for the first attempt alone",
		run.mainHeld.Round(time.Millisecond), run.mainAttempts, run.slowHeld.Round(time.Millisecond), n, time.Duration(n)*time.Second)
	if hits > n/2 {
		t.Errorf("the dead receiver was asked %d times for %d events; the breaker should stop it", hits, n)
	}
	detail := fmt.Sprintf("/api/surveys/%d/webhooks/%d/", e.sid, deadID)
	_, body := e.do(t, "GET", detail, "")
	var v survey.WebhookView
	if err := jsonUnmarshal([]byte(body), &v); err != nil || v.PausedUntil == nil || v.ConsecutiveFailures < webhook.BreakerThreshold {
		t.Fatalf("the dead webhook reads %s", body)
	}
	run.fixed.Store(true)
	t.Logf("requests in flight at the dead receiver at the PATCH: %d", run.inFlight.Load())
	if code, body := e.do(t, "PATCH", detail, `{"active": true}`); code != 200 {
		t.Fatalf("PATCH = %d %s", code, body)
	}
	_, body = e.do(t, "GET", detail, "")
	if err := jsonUnmarshal([]byte(body), &v); err != nil || v.PausedUntil != nil || v.ConsecutiveFailures != 0 {
		t.Fatalf("after the PATCH the webhook reads %s", body)
	}
	// The requests the dead receiver held end (cut at the timeout) and
	// their failures are recorded; they began before the PATCH.
	waitFor(t, settle, "the dead receiver's requests in flight ended", func() bool { return run.inFlight.Load() == 0 })
	waitFor(t, settle, "no delivery attempt under way", func() bool { return e.lanesIdle(t) })
	_, body = e.do(t, "GET", detail, "")
	if err := jsonUnmarshal([]byte(body), &v); err != nil || v.PausedUntil != nil || v.ConsecutiveFailures != 0 {
		t.Fatalf("once the attempts in flight at the PATCH ended, the webhook reads %s", body)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestWebhookPatchForgetsAttemptsInFlight: the owner's PATCH resets the
// webhook's breaker, and an attempt that began before the PATCH and fails
// after it does not count against the reset breaker (it was made to the
// webhook as it was before the owner's change); an attempt begun after
// the PATCH does count. Deterministic: the receiver holds the first
// request until the PATCH is answered. Before, the held attempt's failure
// landed on the reset breaker (consecutive_failures 1 right after the
// owner reset it; a fresh-clone CI run saw 2 in
// TestWebhookDeadReceiverBesideAHealthyOne).
func TestWebhookPatchForgetsAttemptsInFlight(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: []time.Duration{time.Hour},
		timeout: webhook.Timeout, budget: webhook.Timeout})
	held, release := make(chan struct{}, 1), make(chan struct{})
	rc := newReceiver(t, func(n int, r *http.Request) int {
		if n == 0 {
			held <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		return 500
	})
	wid, _ := e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+rc.srv.URL+`/in"}`)
	detail := fmt.Sprintf("/api/surveys/%d/webhooks/%d/", e.sid, wid)
	failures := func() int {
		t.Helper()
		code, body := e.do(t, "GET", detail, "")
		var v survey.WebhookView
		if err := jsonUnmarshal([]byte(body), &v); code != 200 || err != nil {
			t.Fatalf("GET webhook = %d %s", code, body)
		}
		return v.ConsecutiveFailures
	}
	attempted := func(events int) func() bool {
		return func() bool {
			ds := e.deliveries(t, wid)
			n := 0
			for _, d := range ds {
				if d.Attempts == 1 {
					n++
				}
			}
			return len(ds) == events && n == events
		}
	}
	e.respond(t, 1)
	select {
	case <-held:
	case <-time.After(settle):
		t.Fatalf("no attempt reached the receiver within %v", settle)
	}
	if code, body := e.do(t, "PATCH", detail, `{"active": true}`); code != 200 {
		t.Fatalf("PATCH = %d %s", code, body)
	}
	close(release)
	// The deliver function counts the failure before it records the
	// attempt: once the attempt shows, the breaker is as it will stay.
	waitFor(t, settle, "the held attempt recorded", attempted(1))
	if n := failures(); n != 0 {
		t.Errorf("after the PATCH, an attempt begun before it left consecutive_failures %d, want 0", n)
	}
	e.respond(t, 1)
	waitFor(t, settle, "the next event's attempt recorded", attempted(2))
	if n := failures(); n != 1 {
		t.Errorf("an attempt begun after the PATCH failed: consecutive_failures %d, want 1", n)
	}
}
