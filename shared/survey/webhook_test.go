package survey_test

import (
	"encoding/json"
	"strings"
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

// TestDeliveryViewResponseID: the deliveries list names the response of a
// response's event (a partial's id too), and null for an event about no
// response, whose delivery id only names the event (a fill, a suspension).
func TestDeliveryViewResponseID(t *testing.T) {
	for _, tc := range []struct {
		event string
		want  string
	}{
		{survey.EventResponseSubmitted, "77"},
		{survey.EventResponseUpdated, "77"},
		{survey.EventResponsePartial, "77"},
		{survey.EventSurveyFull, "null"},
		{survey.EventDomainSuspended, "null"},
	} {
		d := survey.Delivery{WebhookID: 4, ResponseID: 77, Event: tc.event, Created: time.Now()}
		b, err := json.Marshal(d.View())
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if string(got["response_id"]) != tc.want {
			t.Errorf("%s: response_id %s, want %s", tc.event, got["response_id"], tc.want)
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

// TestEventFormResponse: submitted and updated events carry the response
// again as Typeform's form_response (the Porsline n8n trigger node drops a
// body without its definition and answers), answers in element order, ids
// as strings; an answerless response still has both, as empty lists.
func TestEventFormResponse(t *testing.T) {
	at := time.Date(2026, 11, 27, 8, 30, 0, 0, time.UTC)
	r := survey.Response{ID: 77, SurveyID: 9, SubmittedAt: at, StartedAt: at.Add(-time.Minute), EditedAt: at.Add(time.Hour),
		Answers: map[int64]json.RawMessage{12: json.RawMessage(`[1,2]`), 3: json.RawMessage(`"تهران"`)}}
	for _, event := range []string{survey.EventResponseSubmitted, survey.EventResponseUpdated} {
		b, err := json.Marshal(survey.EventOf(event, r))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			FormResponse json.RawMessage `json:"form_response"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		want := `{"form_id":"9","token":"77","submitted_at":"2026-11-27T08:30:00.000000Z","definition":{"id":"9","fields":[{"id":"3"},{"id":"12"}]},` +
			`"answers":[{"field":{"id":"3"},"value":"تهران"},{"field":{"id":"12"},"value":[1,2]}]}`
		if string(got.FormResponse) != want {
			t.Errorf("%s: form_response %s\nwant %s", event, got.FormResponse, want)
		}
	}
	b, _ := json.Marshal(survey.SubmittedEvent(survey.Response{ID: 1, SurveyID: 2}))
	if !strings.Contains(string(b), `"definition":{"id":"2","fields":[]},"answers":[]`) {
		t.Errorf("an answerless response: %s", b)
	}
	// A file answer is the owner's view of it, as in data.response: its
	// name and size, never the upload it was stored under.
	file, _ := json.Marshal(survey.FileAnswer{Upload: "up-secret", FileName: "cv.pdf", Size: 10, ContentType: "application/pdf"})
	b, _ = json.Marshal(survey.SubmittedEvent(survey.Response{ID: 3, SurveyID: 4, Answers: map[int64]json.RawMessage{5: file}}))
	if strings.Contains(string(b), "up-secret") || !strings.Contains(string(b), `"answers":[{"field":{"id":"5"},"value":{"file_name":"cv.pdf","size":10,"url":null}}]`) {
		t.Errorf("a file answer: %s", b)
	}
}
