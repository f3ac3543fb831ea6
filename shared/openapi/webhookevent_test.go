package openapi_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"surveyservice/shared/openapi"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestWebhookEventSchema: the OpenAPI document's WebhookEvent is the body
// deliveries send (contract section 13 as amended in section 21):
// response.submitted and response.updated carry form_response with
// exactly the keys the n8n trigger node reads, no other top-level key, and
// docs/webhooks.md names the same form_response keys.
func TestWebhookEventSchema(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	ref := doc.Components.Schemas["WebhookEvent"]
	if ref == nil || ref.Value == nil {
		t.Fatal("no WebhookEvent schema")
	}
	schema := ref.Value
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r := survey.Response{ID: 7, SurveyID: 3, SubmittedAt: at, StartedAt: at.Add(-time.Minute), EditedAt: at.Add(time.Hour),
		Answers: map[int64]json.RawMessage{12: json.RawMessage(`"yes"`), 4: json.RawMessage(`[1,2]`)}}
	for _, event := range []string{survey.EventResponseSubmitted, survey.EventResponseUpdated} {
		b, err := json.Marshal(survey.EventOf(event, r))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.VisitJSON(v); err != nil {
			t.Errorf("%s body %s: %v", event, b, err)
		}
		if _, ok := v.(map[string]any)["form_response"]; !ok {
			t.Errorf("%s body without form_response: %s", event, b)
		}
	}
	partial, err := survey.PartialEvent(3, at, json.RawMessage(`{"id":7}`))
	if err != nil {
		t.Fatal(err)
	}
	var pv any
	_ = json.Unmarshal(partial, &pv)
	if err := schema.VisitJSON(pv); err != nil {
		t.Errorf("response.partial body %s: %v", partial, err)
	}
	for _, fill := range []store.CapFill{{SurveyID: 3, Limit: 20}, {SurveyID: 3, Quota: 9, Limit: 5}} {
		body, err := survey.FullEvent(at, fill.Payload())
		if err != nil {
			t.Fatal(err)
		}
		var fv any
		_ = json.Unmarshal(body, &fv)
		if err := schema.VisitJSON(fv); err != nil {
			t.Errorf("survey.full body %s: %v", body, err)
		}
	}
	suspended, err := survey.PayloadEvent(survey.EventDomainSuspended, at, survey.DomainSuspendedData(12, "forms.acme.example"))
	if err != nil {
		t.Fatal(err)
	}
	var sv any
	_ = json.Unmarshal(suspended, &sv)
	if err := schema.VisitJSON(sv); err != nil {
		t.Errorf("domain.suspended body %s: %v", suspended, err)
	}
	sameBody(t, suspended, `{"type":"domain.suspended","timestamp":"2026-05-01T12:00:00.000000Z","data":{"domain_id":12,"domain":"forms.acme.example"}}`)
	fr := schema.Properties["form_response"].Value
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range fr.Properties {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{"answers", "definition", "form_id", "submitted_at", "token"}; !slices.Equal(keys, want) {
		t.Errorf("form_response keys %v, want %v", keys, want)
	}
	md, err := os.ReadFile("../../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	shape := regexp.MustCompile("`form_response` `\\{\"form_id\", \"token\", \"submitted_at\", \"definition\": \\{\"id\",\\s+" +
		"\"fields\": \\[\\{\"id\"\\}\\]\\}, \"answers\": \\[\\{\"field\": \\{\"id\"\\}, \"value\"\\}\\]\\}`")
	if !shape.Match(md) {
		t.Error("docs/webhooks.md does not give form_response's shape as the document does")
	}
}

// sameBody holds an event's body to the contract's, byte for byte.
func sameBody(t *testing.T, got []byte, want string) {
	t.Helper()
	if string(got) != want {
		t.Errorf("body %s, want %s", got, want)
	}
}
