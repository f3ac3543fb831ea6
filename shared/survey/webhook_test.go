package survey_test

import (
	"testing"
	"time"

	"surveyservice/shared/survey"
)

func TestDeliveryID(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 11, 12, 123456000, time.UTC)
	d := survey.Delivery{WebhookID: 4, ResponseID: 77, Created: at}
	id := d.ID()
	got, rid, ok := survey.ParseDeliveryID(id)
	if !ok || !got.Equal(at) || rid != 77 {
		t.Fatalf("ParseDeliveryID(%s) = %v %d %v", id, got, rid, ok)
	}
	if d.MessageID() != "msg_4_"+id {
		t.Fatalf("MessageID = %s", d.MessageID())
	}
	for _, bad := range []string{"", "1", "-1", "1-", "01-2", "1-02", "1-0", "a-1", "1-1-1", "1763900000123456-99999999999999999999"} {
		if _, _, ok := survey.ParseDeliveryID(bad); ok {
			t.Errorf("ParseDeliveryID(%q) ok", bad)
		}
	}
}

func FuzzParseDeliveryID(f *testing.F) {
	f.Add("1763900000123456-99")
	f.Fuzz(func(t *testing.T, s string) {
		at, rid, ok := survey.ParseDeliveryID(s)
		if ok && survey.DeliveryID(at, rid) != s {
			t.Fatalf("%q parses to %v %d, which renders %q", s, at, rid, survey.DeliveryID(at, rid))
		}
	})
}

func TestHeaderProblem(t *testing.T) {
	// Content-Type is the webhook's to choose (contract section 21): the
	// n8n node sends it.
	ok := [][2]string{{"Authorization", "Bearer x"}, {"X-Api-Key", ""}, {"x-n8n", "a\tb"}, {"Content-Type", "application/json"}}
	bad := [][2]string{{"", "x"}, {"Bad Name", "x"}, {"webhook-signature", "x"}, {"Webhook-Id", "x"}, {"webhook-timestamp", "1"},
		{"Content-Length", "1"}, {"HOST", "x"},
		{"X-A", "line\r\nInjected: 1"}, {"X-A", string(make([]rune, 1001))}}
	for _, h := range ok {
		if p := survey.HeaderProblem(h[0], h[1]); p != "" {
			t.Errorf("%q: %s", h[0], p)
		}
	}
	for _, h := range bad {
		if survey.HeaderProblem(h[0], h[1]) == "" {
			t.Errorf("%q: %q accepted", h[0], h[1])
		}
	}
}
