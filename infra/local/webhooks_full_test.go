package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/dispatch"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// TestWebhookSurveyFull (contract section 25): 60 submissions racing for
// a response_limit of 20 places, through the store and `make run`'s stream
// poller, make exactly one survey.full delivery, signed, with the limit in
// its data; a webhook that does not list the event gets none. Every
// allowance's record dispatched again (a retried batch, each reporting a
// fill) makes no second one. A deletion and one more response fill it
// again: a second event, and again only one, however often replayed.
func TestWebhookSurveyFull(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}})
	full := newReceiver(t, nil)
	other := newReceiver(t, nil)
	wid, _ := e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+full.srv.URL+`/in", "events": ["survey.full"]}`)
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+other.srv.URL+`/in"}`)
	if code, body := e.do(t, "PATCH", fmt.Sprintf("/api/surveys/%d/settings/", e.sid), `{"response_limit": 20}`); code != 200 {
		t.Fatalf("set response_limit = %d %s", code, body)
	}
	ctx := context.Background()
	_, set, err := e.st.SurveySettings(ctx, e.aid, e.sid)
	if err != nil {
		t.Fatal(err)
	}
	limit := store.LimitCap(set)

	var mu sync.Mutex
	var won []int64
	refused := 0
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := e.submitCapped(limit, i)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, id)
			case errors.Is(err, survey.ErrSurveyFull):
				refused++
			default:
				t.Errorf("submission %d: %v, want recorded or full", i, err)
			}
		}()
	}
	wg.Wait()
	if len(won) != 20 || refused != 40 {
		t.Fatalf("60 for 20 places: %d recorded, %d full, want 20 and 40", len(won), refused)
	}
	waitFor(t, settle, "the survey.full event", func() bool { return len(full.snapshot()) >= 1 })
	// The response.submitted webhook's 20 come from the same stream: once
	// they are in, the allowances' records have been dispatched too.
	waitFor(t, settle, "the 20 responses' events", func() bool { return len(other.snapshot()) == 20 })
	e.replayAllowances(t, limit)
	e.wantFullEvents(t, wid, full, 1)
	var ev struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			SurveyID int64  `json:"survey_id"`
			QuotaID  *int64 `json:"quota_id"`
			Limit    int64  `json:"limit"`
		} `json:"data"`
	}
	got := full.snapshot()[0]
	if err := json.Unmarshal(got.body, &ev); err != nil || ev.Type != "survey.full" || ev.Timestamp == "" || ev.Data.SurveyID != e.sid ||
		ev.Data.QuotaID != nil || ev.Data.Limit != 20 || !strings.Contains(string(got.body), `"quota_id":null`) {
		t.Errorf("survey.full body %s (%v)", got.body, err)
	}
	if got.header.Get("webhook-id") == "" || !strings.HasPrefix(got.header.Get("webhook-signature"), "v1,") {
		t.Errorf("survey.full unsigned: %v", got.header)
	}
	for _, d := range other.snapshot() {
		if strings.Contains(string(d.body), "survey.full") {
			t.Errorf("the response.submitted webhook got %s", d.body)
		}
	}

	// Freed and filled again: a second fill, a second event.
	if err := e.st.DeleteResponse(ctx, e.aid, e.sid, won[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.submitCapped(limit, 60); err != nil {
		t.Fatalf("after a deletion: %v, want recorded", err)
	}
	if _, err := e.submitCapped(limit, 61); !errors.Is(err, survey.ErrSurveyFull) {
		t.Fatalf("after refilling: %v, want full", err)
	}
	waitFor(t, settle, "the second survey.full event", func() bool { return len(full.snapshot()) >= 2 })
	waitFor(t, settle, "the 21st response's event", func() bool { return len(other.snapshot()) == 21 })
	e.replayAllowances(t, limit)
	e.wantFullEvents(t, wid, full, 2)
	if a, b := full.snapshot()[0].header.Get("webhook-id"), full.snapshot()[1].header.Get("webhook-id"); a == b {
		t.Errorf("the refill's event has the first fill's webhook-id %s", a)
	}
}

// submitCapped records a response under the limit's cap, as the
// submission does (shared/responding passes the survey's caps).
func (e *hookEnv) submitCapped(limit store.Cap, i int) (int64, error) {
	now := time.Now().UTC()
	done, err := e.st.Submit(context.Background(), store.Submission{
		Response: survey.Response{SurveyID: e.sid, StartedAt: now.Add(-time.Minute), Answers: map[int64]json.RawMessage{1: json.RawMessage(`"Yes"`)}},
		KeyHash:  fmt.Sprintf("%060d%04d", time.Now().UnixNano(), i), BodyHash: strings.Repeat("0", 64), Caps: []store.Cap{limit},
	})
	return done.ID, err
}

// replayAllowances dispatches a record of every allowance of the survey
// in which the limit's counter reaches its share, as a retried batch
// would (in one dispatcher of its own), and requires no record failed.
func (e *hookEnv) replayAllowances(t *testing.T, limit store.Cap) {
	t.Helper()
	var ev events.DynamoDBEvent
	for k := range store.CapAllowances {
		ev.Records = append(ev.Records, events.DynamoDBEventRecord{EventName: "MODIFY", EventID: fmt.Sprint(k), Change: events.DynamoDBStreamRecord{
			SequenceNumber: fmt.Sprint(k + 1),
			Keys:           map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute(store.CapPK(e.sid, k)), "SK": events.NewStringAttribute("CAP")},
			OldImage:       map[string]events.DynamoDBAttributeValue{limit.Attr: events.NewNumberAttribute("0")},
			NewImage:       map[string]events.DynamoDBAttributeValue{limit.Attr: events.NewNumberAttribute("1000000")},
		}})
	}
	resp, err := dispatch.New(dispatch.Deps{Store: e.st, Queue: e.hooks.queue}).Handle(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("replayed allowances: %v, %d failed", err, len(resp.BatchItemFailures))
	}
}

// wantFullEvents requires exactly n survey.full deliveries of the webhook,
// each succeeded, and n events at its receiver.
func (e *hookEnv) wantFullEvents(t *testing.T, wid int64, rc *receiver, n int) {
	t.Helper()
	waitFor(t, settle, "the deliveries settled", func() bool {
		for _, d := range e.deliveries(t, wid) {
			if d.Status != survey.DeliverySucceeded {
				return false
			}
		}
		return true
	})
	ds := e.deliveries(t, wid)
	if len(ds) != n {
		t.Fatalf("%d deliveries, want %d: %+v", len(ds), n, ds)
	}
	for _, d := range ds {
		if d.Event != survey.EventSurveyFull || d.ResponseID != nil {
			t.Errorf("delivery %+v, want survey.full about no response (response_id null)", d)
		}
	}
	if got := rc.snapshot(); len(got) != n {
		t.Errorf("the receiver got %d events, want %d", len(got), n)
	}
}
