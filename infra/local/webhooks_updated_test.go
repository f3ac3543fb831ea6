package main

import (
	"context"
	"encoding/json"
	"fmt"
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
	var ev struct {
		Type string `json:"type"`
		Data struct {
			Response struct {
				ID       int64                      `json:"id"`
				Answers  map[string]json.RawMessage `json:"answers"`
				EditedAt *string                    `json:"edited_at"`
			} `json:"response"`
		} `json:"data"`
	}
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
