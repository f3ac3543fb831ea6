package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

// TestWebhookResponseUpdated: an edit of a response (contract section 16)
// reaches the webhooks that subscribe to response.updated, as its own
// signed event carrying the answers as edited; one subscribed only to
// response.submitted gets the submission alone.
func TestWebhookResponseUpdated(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}})
	both := newReceiver(t, nil)
	only := newReceiver(t, nil)
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+both.srv.URL+`/in", "events": ["response.submitted", "response.updated"]}`)
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+only.srv.URL+`/in"}`)
	r := e.respond(t, 1)[0]
	waitFor(t, settle, "the submission delivered", func() bool { return len(both.snapshot()) == 1 && len(only.snapshot()) == 1 })
	if _, err := e.st.EditResponse(context.Background(), store.ResponseEdit{SurveyID: e.sid, ResponseID: r.ID,
		Answers: map[int64]json.RawMessage{1: json.RawMessage(`"No"`)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, settle, "the edit delivered", func() bool { return len(both.snapshot()) == 2 })
	var ev responseEvent
	got := both.snapshot()[1]
	if err := json.Unmarshal(got.body, &ev); err != nil || ev.Type != "response.updated" || ev.Data.Response.ID != r.ID ||
		string(ev.Data.Response.Answers["1"]) != `"No"` || ev.Data.Response.EditedAt == nil {
		t.Fatalf("updated event %s (%v)", got.body, err)
	}
	if got.header.Get("webhook-id") == both.snapshot()[0].header.Get("webhook-id") {
		t.Errorf("the edit has the submission's webhook-id")
	}
	time.Sleep(time.Second)
	if n := len(only.snapshot()); n != 1 {
		t.Errorf("the response.submitted-only webhook got %d events, want 1", n)
	}
}

// TestWebhookCarriesTheResponseAsSent: what a delivery carries
// (docs/webhooks.md, "What a delivery carries"; the contract is silent):
// the response as it is when the attempt is made, not as it was at the
// event. A response.submitted that could not be delivered before an edit
// carries the edited answers and edited_at when it is, so that a receiver
// keeping the latest by response id never goes back to older answers,
// whatever order retries arrive in. The failures stay below the breaker's
// five, and the receiver takes the delivery only once the edit is made.
func TestWebhookCarriesTheResponseAsSent(t *testing.T) {
	t.Parallel() // newHookEnv: its own database, queues, receivers and clock
	delays := make([]time.Duration, 9)
	for i := range delays {
		delays[i] = time.Second
	}
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, delays: delays})
	var edited atomic.Bool
	rc := newReceiver(t, func(int, *http.Request) int {
		if edited.Load() {
			return 204
		}
		return 503
	})
	e.createHook(t, fmt.Sprintf("/api/surveys/%d/webhooks/", e.sid), `{"url": "`+rc.srv.URL+`/in"}`)
	r := e.respond(t, 1)[0]
	waitFor(t, settle, "the submission's first attempt", func() bool { return len(rc.snapshot()) >= 1 })
	if _, err := e.st.EditResponse(context.Background(), store.ResponseEdit{SurveyID: e.sid, ResponseID: r.ID,
		Answers: map[int64]json.RawMessage{1: json.RawMessage(`"No"`)}}); err != nil {
		t.Fatal(err)
	}
	edited.Store(true)
	waitFor(t, settle, "the submission delivered after the edit", func() bool {
		got := rc.snapshot()
		return len(got) > 0 && got[len(got)-1].status == 204
	})
	got := rc.snapshot()
	var ev responseEvent
	last := got[len(got)-1]
	if err := json.Unmarshal(last.body, &ev); err != nil || ev.Type != "response.submitted" || ev.Data.Response.ID != r.ID ||
		string(ev.Data.Response.Answers["1"]) != `"No"` || ev.Data.Response.EditedAt == nil {
		t.Errorf("the submission delivered after the edit: %s (%v); want response.submitted with the edited answers", last.body, err)
	}
	if first := got[0].body; !strings.Contains(string(first), `"Yes"`) {
		t.Errorf("the first attempt, before the edit: %s", first)
	}
	if last.header.Get("webhook-id") != got[0].header.Get("webhook-id") {
		t.Errorf("the attempts have different webhook-ids: one delivery, one id")
	}
}

// responseEvent is what these tests read of a response event's body.
type responseEvent struct {
	Type string `json:"type"`
	Data struct {
		Response struct {
			ID       int64                      `json:"id"`
			Answers  map[string]json.RawMessage `json:"answers"`
			EditedAt *string                    `json:"edited_at"`
		} `json:"response"`
	} `json:"data"`
}
