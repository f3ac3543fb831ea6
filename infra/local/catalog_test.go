package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"surveyservice/infra/seed"
	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestSampleTemplates: `make run`'s catalog has templates backed by real
// surveys of the catalog account (twice loaded, the same surveys); a new user
// starts a survey from one with the single request of
// docs/templates-and-embedding.md; the template's survey is a preview to
// everyone and 404 to other accounts' owner API.
func TestSampleTemplates(t *testing.T) {
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t)}))
	n, slugs, err := loadCatalog(t.Context(), st, h, seed.Templates)
	if err != nil {
		t.Fatal(err)
	}
	if len(slugs) < 2 || n != 15 {
		t.Fatalf("loaded %d templates, %d with surveys", n, len(slugs))
	}
	if _, again, err := loadCatalog(t.Context(), st, h, seed.Templates); err != nil || fmt.Sprint(again) != fmt.Sprint(slugs) {
		t.Fatalf("second load: %v, %v; want the same surveys %v", again, err, slugs)
	}

	_, key := testenv.NewAccount(t, survey.PlanFree)
	user := apiClient{h: h, key: key}
	var folder struct {
		ID int64 `json:"id"`
	}
	if err := user.call("POST", "/api/folders/", map[string]any{"name": "Mine"}, &folder); err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Title         string  `json:"title"`
		SurveyURLSlug *string `json:"survey_url_slug"`
	}
	if err := user.call("GET", "/api/templates/customer-satisfaction-survey/", nil, &tpl); err != nil {
		t.Fatal(err)
	}
	if tpl.SurveyURLSlug == nil || *tpl.SurveyURLSlug != slugs[102] {
		t.Fatalf("template survey_url_slug %v, want %q", tpl.SurveyURLSlug, slugs[102])
	}
	var started struct {
		ID              int64    `json:"id"`
		Name            string   `json:"name"`
		IsTemplate      bool     `json:"is_template"`
		DroppedSettings []string `json:"dropped_settings"`
		Welcome         []any    `json:"welcome"`
		Questions       [][]any  `json:"questions"`
		Appreciations   []any    `json:"appreciations"`
	}
	if err := user.call("POST", "/api/v2/surveys/", map[string]any{"template": "customer-satisfaction-survey", "folder_id": folder.ID}, &started); err != nil {
		t.Fatal(err)
	}
	if started.Name != tpl.Title || started.IsTemplate || len(started.Welcome) != 1 || len(started.Questions) != 3 || len(started.Appreciations) != 1 ||
		started.DroppedSettings == nil {
		t.Fatalf("started from the template: %+v", started)
	}
	// By the template's id too.
	if err := user.call("POST", "/api/v2/surveys/", map[string]any{"template": 104, "folder_id": folder.ID, "name": "Our NPS"}, &started); err != nil || started.Name != "Our NPS" {
		t.Fatalf("start by id: %+v, %v", started, err)
	}
	for _, c := range []struct{ body, want string }{
		{fmt.Sprintf(`{"template": 105, "folder_id": %d}`, folder.ID), `{"template":["This template has no survey to start from."]}`},
		{fmt.Sprintf(`{"template": "no-such-template", "folder_id": %d}`, folder.ID), `{"template":["Invalid pk \"no-such-template\" - object does not exist."]}`},
		{`{"template": 102}`, `{"folder_id":["This field is required."]}`},
	} {
		err := user.call("POST", "/api/v2/surveys/", json.RawMessage(c.body), nil)
		if err == nil || !strings.Contains(err.Error(), ": 400 "+c.want) {
			t.Errorf("%s: %v, want 400 %s", c.body, err, c.want)
		}
	}

	// The template's survey: the owner API of another account answers 404;
	// its page is a preview.
	var sv struct {
		ID int64 `json:"id"`
	}
	sid, err := st.SurveyIDBySlug(t.Context(), slugs[102])
	if err != nil {
		t.Fatal(err)
	}
	if err := user.call("GET", fmt.Sprintf("/api/v2/surveys/%d/", sid), nil, &sv); err == nil || !strings.Contains(err.Error(), ": 404 ") {
		t.Fatalf("another account reads the template's survey: %v", err)
	}
	if err := user.call("POST", fmt.Sprintf("/api/v2/surveys/%d/copy/", sid), nil, nil); err == nil || !strings.Contains(err.Error(), ": 404 ") {
		t.Fatalf("another account copies the template's survey: %v", err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/s/"+url.PathEscape(slugs[102])+"/", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "This is a preview: answers are not saved.") {
		t.Fatalf("the template's page: %d %.300s", rec.Code, rec.Body)
	}
}
