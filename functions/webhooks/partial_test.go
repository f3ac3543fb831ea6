package webhooks_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestPartialEvent: webhooks subscribe to response.partial (contract
// section 20), on the notifications route too, whose shape shows its
// events, and to survey.full (section 25); an unknown event is still
// refused.
func TestPartialEvent(t *testing.T) {
	f := newFixture(t, false)
	cases := []struct {
		name, path, body string
		code             int
		want             string
	}{
		{"webhook", f.list(), `{"url": "https://hooks.example.com/a", "events": ["response.partial", "response.submitted"]}`, 201,
			`"events":["response.partial","response.submitted"]`},
		{"notification", fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid),
			`{"recipient_type": 5, "sending_method": 3, "webhook_endpoint": "https://hooks.example.com/b", "events": ["response.partial"]}`, 201,
			`"events":["response.partial"]`},
		{"survey.full", f.list(), `{"url": "https://hooks.example.com/e", "events": ["survey.full"]}`, 201, `"events":["survey.full"]`},
		{"notification default", fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid),
			`{"webhook_endpoint": "https://hooks.example.com/c"}`, 201, `"events":["response.submitted"]`},
		{"unknown", fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid),
			`{"webhook_endpoint": "https://hooks.example.com/d", "events": ["response.started"]}`, 400,
			`{"events":["\"response.started\" is not a valid choice."]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, "POST", tc.path, tc.body)
			if r.code != tc.code || !strings.Contains(r.body, tc.want) {
				t.Errorf("POST %s = %d %s, want %d with %s", tc.body, r.code, r.body, tc.code, tc.want)
			}
		})
	}
}
