package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"surveyservice/internal/testenv"
)

// findSurvey finds the object with the survey's id (and a views field) in
// a JSON answer, at any depth.
func findSurvey(v any, sid float64) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if x["id"] == sid {
			if _, ok := x["views"]; ok {
				return x
			}
		}
		for _, e := range x {
			if m := findSurvey(e, sid); m != nil {
				return m
			}
		}
	case []any:
		for _, e := range x {
			if m := findSurvey(e, sid); m != nil {
				return m
			}
		}
	}
	return nil
}

// TestRespondingReachesTheOwner: what responders do shows in the owner's
// API, across the groups: GETs of the public survey count views (HEADs do
// not), a response counts in submitted_responses, in the folder list and
// the survey's detail alike, once the tally has read the stream.
func TestRespondingReachesTheOwner(t *testing.T) {
	fx := newFaultFixture(t)
	h := fx.mk()
	for _, m := range []string{"GET", "GET", "HEAD", "GET"} {
		if rec := fx.serve(h, m, "/api/public/surveys/{slug}/", ""); rec.Code != 200 {
			t.Fatalf("%s public survey: %d %s", m, rec.Code, rec.Body)
		}
	}
	rec := fx.serve(h, "POST", "/api/public/surveys/{slug}/responses/", `{"session":"{session}","answers":{"{question}":"hello"}}`)
	if rec.Code != 201 {
		t.Fatalf("response: %d %s", rec.Code, rec.Body)
	}
	var sid float64
	fmt.Sscan(fx.ids["survey"], &sid)
	testenv.Tally(t) // views and responses are counted from the stream
	for _, path := range []string{"/api/folders/", "/api/folders/{folder}/", "/api/v2/surveys/{survey}/"} {
		rec := fx.serve(h, "GET", path, "")
		var body any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		sv := findSurvey(body, sid)
		// The fixture holds 3 imported responses; this one is the fourth.
		if sv == nil || sv["views"] != float64(3) || sv["submitted_responses"] != float64(4) {
			t.Errorf("GET %s shows %v; want 3 views and 4 responses", path, sv)
		}
	}
}
