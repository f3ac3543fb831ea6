package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// API tests of contract section 15 across the function groups: what the
// owner's views agree on, and the answer sheet's page refusals.

// TestQuestionsRespondingDurationEverywhere: the read-only
// questions_responding_duration is the sum of the questions' own
// durations in the settings and in the survey detail's settings summary
// alike, computed in one place (survey.Settings.WithLayout), and a write
// changes neither.
func TestQuestionsRespondingDurationEverywhere(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Timed", Language: 4, Elements: []map[string]any{
		{"title": "One", "type": 2, "responding_duration": "00:00:45"},
		{"title": "Two", "type": 2, "responding_duration": "00:01:20"},
		{"title": "Three", "type": 2},
	}, Settings: map[string]any{"responding_duration_type": 2}})
	views := func() (settings, detail any) {
		var s map[string]any
		if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), nil, &s); err != nil {
			t.Fatal(err)
		}
		var d struct {
			Settings map[string]any `json:"settings"`
		}
		if err := p.api.call("GET", fmt.Sprintf("/api/v2/surveys/%d/", sv.ID), nil, &d); err != nil {
			t.Fatal(err)
		}
		return s["questions_responding_duration"], d.Settings["questions_responding_duration"]
	}
	if s, d := views(); s != "00:02:05" || d != "00:02:05" {
		t.Errorf("questions_responding_duration: settings %v, detail %v, want 00:02:05 in both", s, d)
	}
	// A write is ignored (read-only); a changed duration shows in both.
	if err := p.api.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), map[string]any{"questions_responding_duration": "01:00:00"}, nil); err != nil {
		t.Fatal(err)
	}
	p.patchElement(t, sv.ID, idOf(sv.Elements[2]), map[string]any{"responding_duration": "00:00:15"})
	if s, d := views(); s != "00:02:20" || d != "00:02:20" {
		t.Errorf("after a write and a new duration: settings %v, detail %v, want 00:02:20 in both", s, d)
	}
	// A new survey's detail (the create answer) and a survey without
	// durations show 00:00:00.
	var created struct {
		Settings map[string]any `json:"settings"`
	}
	if err := p.api.call("POST", "/api/v2/surveys/", map[string]any{"name": "Untimed", "folder_id": sv.FolderID}, &created); err != nil {
		t.Fatal(err)
	}
	if got := created.Settings["questions_responding_duration"]; got != "00:00:00" {
		t.Errorf("a new survey's questions_responding_duration %v, want 00:00:00", got)
	}
}

// TestSheetPageRefusals: the answer sheet's page answers 404 when the
// survey does not show sheets to responders (the token is then never
// given, but one made while it did stops opening), for a tampered token,
// another survey's token, and a session token in a sheet's place.
func TestSheetPageRefusals(t *testing.T) {
	p := newPagesServer(t)
	quiz := func(name string) builtSurvey {
		sv := p.build(t, surveySpec{Name: name, Language: 4, Elements: []map[string]any{
			{"title": "2 + 2?", "type": 3, "choices": []map[string]any{{"name": "3"}, {"name": "4"}}},
		}, Settings: map[string]any{"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true, "show_answer_key_after_response_submit": true}})
		p.patchElement(t, sv.ID, idOf(sv.Elements[0]), map[string]any{"correct_choice": itemID(sv.Elements[0], "choices", 1)})
		return sv
	}
	sv, other := quiz("Quiz"), quiz("Other quiz")
	submit := func(sv builtSurvey) (session, token string) {
		var s struct {
			Session string `json:"session"`
		}
		if err := p.api.call("POST", "/api/public/surveys/"+sv.URLSlug+"/sessions/", map[string]any{}, &s); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("POST", p.srv.URL+"/api/public/surveys/"+sv.URLSlug+"/responses/", strings.NewReader(jsonOf(map[string]any{
			"session": s.Session, "answers": map[string]any{fmt.Sprint(idOf(sv.Elements[0])): []int64{itemID(sv.Elements[0], "choices", 1)}}})))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "k-"+sv.URLSlug)
		var done struct {
			SheetToken string `json:"sheet_token"`
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&done); err != nil || resp.StatusCode != 201 || done.SheetToken == "" {
			t.Fatalf("submit: %d, sheet_token %q (%v)", resp.StatusCode, done.SheetToken, err)
		}
		return s.Session, done.SheetToken
	}
	session, token := submit(sv)
	_, otherToken := submit(other)
	page := func(slug, token string) (int, string) {
		resp, err := http.Get(p.srv.URL + "/s/" + slug + "/sheet/" + url.PathEscape(token) + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	if code, body := page(sv.URLSlug, token); code != 200 || !strings.Contains(body, `id="score"`) {
		t.Fatalf("the sheet: %d %.300s", code, body)
	}
	tampered := []byte(token)
	i := len(tampered) / 2
	if tampered[i] == 'A' {
		tampered[i] = 'B'
	} else {
		tampered[i] = 'A'
	}
	for name, c := range map[string]struct{ slug, token string }{
		"tampered token":          {sv.URLSlug, string(tampered)},
		"truncated token":         {sv.URLSlug, token[:len(token)-4]},
		"another survey's token":  {sv.URLSlug, otherToken},
		"a session in its place":  {sv.URLSlug, session},
		"the token on another":    {other.URLSlug, token},
		"the token on an unknown": {"nosuchsurvey", token},
	} {
		if code, body := page(c.slug, c.token); code != 404 || !strings.Contains(body, "There is nothing at this address.") {
			t.Errorf("%s: %d %.200s, want the 404 page", name, code, body)
		}
	}
	// Sheets turned off: the token made while they were on opens no more.
	if err := p.api.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), map[string]any{"show_answer_sheet_to_responder": false}, nil); err != nil {
		t.Fatal(err)
	}
	if code, body := page(sv.URLSlug, token); code != 404 || !strings.Contains(body, "There is nothing at this address.") {
		t.Errorf("sheets off: %d %.200s, want the 404 page", code, body)
	}
}
