package outbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/internal/outbox"
	"surveyservice/shared/sending"
)

type senderFunc func(context.Context, sending.Message) error

func (f senderFunc) Send(ctx context.Context, m sending.Message) error { return f(ctx, m) }

// TestOutbox: what is sent is kept newest first and printed; a failed send
// is neither; GET answers the contract's JSON list, other methods 405.
func TestOutbox(t *testing.T) {
	var printed bytes.Buffer
	o := outbox.New(&printed)
	fail := errors.New("boom")
	s := o.Wrap(senderFunc(func(_ context.Context, m sending.Message) error {
		if m.To == "fail@example.com" {
			return fail
		}
		return nil
	}))
	ctx := context.Background()
	if err := s.Send(ctx, sending.Message{Channel: sending.ChannelEmail, To: "a@example.com", Subject: "کد", Body: "۱۲۳۴۵۶"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, sending.Message{Channel: sending.ChannelEmail, To: "fail@example.com", Body: "x"}); !errors.Is(err, fail) {
		t.Fatalf("a failed send: %v", err)
	}
	if err := s.Send(ctx, sending.Message{Channel: sending.ChannelSMS, To: "+989121234567", Body: "code 1"}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	o.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/local/outbox/", nil))
	var got []map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET: %d %s %v", rec.Code, rec.Body, err)
	}
	if len(got) != 2 || got[0]["to"] != "+989121234567" || got[0]["channel"] != "sms" || got[1]["subject"] != "کد" || got[1]["body"] != "۱۲۳۴۵۶" {
		t.Errorf("the outbox: %v", got)
	}
	for _, k := range []string{"to", "channel", "subject", "body", "sent_at"} {
		if _, ok := got[0][k]; !ok || len(got[0]) != 5 {
			t.Errorf("an entry %v lacks %q or has more", got[0], k)
		}
	}
	if p := printed.String(); !strings.Contains(p, "۱۲۳۴۵۶") || !strings.Contains(p, "code 1") || strings.Contains(p, "fail@") {
		t.Errorf("printed:\n%s", p)
	}
	rec = httptest.NewRecorder()
	o.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/local/outbox/", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %v", rec.Code, rec.Header())
	}
}

// TestOutboxKeepsTheNewest: past Keep messages, the oldest are dropped.
func TestOutboxKeepsTheNewest(t *testing.T) {
	o := outbox.New(nil)
	s := o.Wrap(senderFunc(func(context.Context, sending.Message) error { return nil }))
	for i := range outbox.Keep + 5 {
		_ = s.Send(context.Background(), sending.Message{Channel: sending.ChannelSMS, To: "+15550000000", Body: string(rune('a' + i%26))})
	}
	got := o.Messages()
	if len(got) != outbox.Keep {
		t.Fatalf("%d kept, want %d", len(got), outbox.Keep)
	}
	last := string(rune('a' + (outbox.Keep+4)%26))
	if got[0].Body != last {
		t.Errorf("newest %q, want %q", got[0].Body, last)
	}
}
