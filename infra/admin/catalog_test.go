package main

import (
	"strconv"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestCatalogAccount: `account create --catalog` makes the catalog's
// account, and only one; a catalog template may name one of its surveys
// (survey_id), which the import marks is_template and whose slug the
// template then carries; a survey that is not a live one of the catalog
// account fails the import, which then writes nothing.
func TestCatalogAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)

	// A survey_id before any account is the catalog's: refused.
	a := template(21, 10, "with-survey", "With a survey", nil)
	a["survey_id"] = 5
	e.run(t, "templates", "import", writeFile(t, "early.json", []any{a})).fails(t, 1, "catalog")

	var out struct {
		AccountID int64  `json:"account_id"`
		APIKey    string `json:"api_key"`
		Catalog   bool   `json:"catalog"`
	}
	e.run(t, "account", "create", "--email", "catalog@example.com", "--plan", "enterprise", "--catalog").
		ok(t, &out, "account_id", "api_key", "catalog")
	if got, err := st.CatalogAccount(t.Context()); err != nil || got != out.AccountID || !out.Catalog {
		t.Fatalf("catalog account %d, %v; want %d", got, err, out.AccountID)
	}
	e.run(t, "account", "create", "--email", "second@example.com", "--plan", "free", "--catalog").
		fails(t, 1, "already the catalog account")
	if _, err := st.AccountByEmail(t.Context(), "second@example.com"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("a refused --catalog created an account: %v", err)
	}

	f, err := st.CreateFolder(t.Context(), out.AccountID, "Templates", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(t.Context(), survey.Survey{AccountID: out.AccountID, FolderID: f.ID, Name: "NPS", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	other := e.createAccount(t, "--email", "owner@example.com", "--plan", "pro")
	of, err := st.CreateFolder(t.Context(), other.AccountID, "Mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := st.CreateSurvey(t.Context(), survey.Survey{AccountID: other.AccountID, FolderID: of.ID, Name: "Mine", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}

	// Another account's survey: refused, nothing written.
	a["survey_id"] = foreign.ID
	e.run(t, "templates", "import", writeFile(t, "foreign.json", []any{a})).fails(t, 1, "survey_id", strconv.FormatInt(foreign.ID, 10))
	if got := catalog(t, st); len(got) != 0 {
		t.Fatalf("a refused import wrote %d templates", len(got))
	}
	if s, _ := st.Survey(t.Context(), other.AccountID, foreign.ID); s.IsTemplate {
		t.Fatal("a refused import marked another account's survey a template")
	}

	a["survey_id"] = sv.ID
	b := template(22, 5, "without-survey", "Without a survey", nil)
	e.importOK(t, writeFile(t, "catalog.json", []any{a, b}), 2)
	got, err := st.TemplateBySlug(t.Context(), "with-survey")
	if err != nil {
		t.Fatal(err)
	}
	if got.SurveyURLSlug == nil || *got.SurveyURLSlug != sv.URLSlug || got.SurveyID != sv.ID {
		t.Fatalf("template survey_url_slug %v, survey %d; want %q, %d", got.SurveyURLSlug, got.SurveyID, sv.URLSlug, sv.ID)
	}
	if none, _ := st.TemplateBySlug(t.Context(), "without-survey"); none.SurveyURLSlug != nil {
		t.Fatalf("a template without a survey has survey_url_slug %q", *none.SurveyURLSlug)
	}
	if s, err := st.Survey(t.Context(), out.AccountID, sv.ID); err != nil || !s.IsTemplate {
		t.Fatalf("the template's survey: is_template %v, %v", s.IsTemplate, err)
	}
	title, sid, err := st.TemplateSurvey(t.Context(), "21")
	if err != nil || sid != sv.ID || !strings.HasPrefix(title, "With") {
		t.Fatalf("TemplateSurvey(21) = %q, %d, %v", title, sid, err)
	}
}
