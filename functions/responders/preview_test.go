package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// makeTemplate makes survey sid of the fixture's account the survey of a
// catalog template: the account becomes the catalog's and the import marks
// the survey is_template.
func (f fixture) makeTemplate(t testing.TB, sid int64) {
	t.Helper()
	ctx := context.Background()
	if err := f.st.SetCatalogAccount(ctx, f.aid); err != nil {
		t.Fatal(err)
	}
	tpl := []map[string]any{{
		"id": 1, "score": 1, "is_general": true, "long_description": "", "short_description": "", "title": "Preview",
		"title_color": 1, "embedding_link": "https://example.com/t/preview", "thumbnail_image": "", "url_slug": "preview",
		"categories": []int{}, "usage_guide": "", "language": 1, "type": 1, "survey_id": sid,
	}}
	data, _ := json.Marshal(tpl)
	if _, err := f.st.ImportTemplates(ctx, data); err != nil {
		t.Fatal(err)
	}
}

// TestTemplatePreview: a template survey's public routes work as any
// survey's, as a preview (contract section 17): answers are checked as
// any, and a valid submission answers 200 {"preview": true} and stores
// and counts nothing, views included.
func TestTemplatePreview(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	q := f.textQuestion(t, sid, "Name", true)
	f.makeTemplate(t, sid)

	if r := send(t, f.h, "GET", surveyPath(slug), ""); r.code != 200 {
		t.Fatalf("public view: %d %s", r.code, r.body)
	}
	session := f.session(t, slug, nil)
	if r := f.respond(t, slug, session, nil); r.code != 400 {
		t.Fatalf("a preview without a required answer: %d %s, want 400", r.code, r.body)
	}
	r := f.respond(t, slug, session, map[string]any{fmt.Sprint(q): "Ana"})
	if r.code != 200 || r.body != `{"preview": true}` && r.body != `{"preview":true}` {
		t.Fatalf("preview submission: %d %s, want 200 {\"preview\": true}", r.code, r.body)
	}
	f.wantStored(t, "after a preview", sid, 0)
	if sv, err := f.st.Survey(context.Background(), f.aid, sid); err != nil || sv.Views != 0 || !sv.IsTemplate {
		t.Fatalf("template survey: views %d, is_template %v, %v", sv.Views, sv.IsTemplate, err)
	}
	if c, err := f.st.SurveyCollection(context.Background(), f.aid, sid); err != nil || c.Survey.Views != 0 {
		t.Fatalf("views %d, %v; want 0", c.Survey.Views, err)
	}
}
