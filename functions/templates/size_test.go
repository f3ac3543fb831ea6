package templates_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/functions/templates"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// TestCatalogAnswersAtTheBounds: a catalog of 101 templates, each exactly
// survey.MaxTemplateBytes of JSON and similar to the 100 others (the most
// the import takes), on a table of its own: the detail (a template and its
// 100 similar ones) and a page of 100 stay under api.MaxAnswer.
func TestCatalogAnswersAtTheBounds(t *testing.T) {
	t.Parallel()
	const n = survey.MaxSimilarTemplates + 1
	items := make([]map[string]any, n)
	for i := range items {
		id := int64(i + 1)
		var similar []int64
		for j := int64(1); j <= n; j++ {
			if j != id {
				similar = append(similar, j)
			}
		}
		items[i] = map[string]any{
			"id": id, "score": 100, "is_general": true, "long_description": "", "short_description": "s",
			"title": fmt.Sprintf("Template %d", id), "title_color": 1, "embedding_link": "https://templates.example.com/s/x/",
			"thumbnail_image": "/media/t.png", "url_slug": fmt.Sprintf("t%d", id), "categories": []int64{1},
			"usage_guide": "", "language": 1, "type": 1, "similar_templates": similar,
		}
		base, err := survey.ParseCatalog(mustJSON(t, []any{with(items[i], "similar_templates", nil)}), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Pad with a character JSON escapes (6 bytes), up to the bound.
		pad := survey.MaxTemplateBytes - base[0].JSONLen()
		items[i]["long_description"] = strings.Repeat("\x01", pad/6) + strings.Repeat("x", pad%6)
	}
	st := testenv.Store(t)
	if _, err := st.ImportTemplates(t.Context(), mustJSON(t, items)); err != nil {
		t.Fatalf("import: %v", err)
	}
	h := testenv.Conform(templates.New(templates.Deps{Catalog: st, MediaURL: "https://media.example.com", TemplatesURL: "https://templates.example.com"}))
	for _, target := range []string{"/api/templates/t1/", "/api/templates/?page_size=100"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %.300s", target, rec.Code, rec.Body.String())
		}
		t.Logf("GET %s: %d bytes (%s)", target, rec.Body.Len(), api.SizeName(int64(rec.Body.Len())))
		if rec.Body.Len() > api.MaxAnswer {
			t.Errorf("GET %s: %d bytes, over the %d bound", target, rec.Body.Len(), api.MaxAnswer)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// with is m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}
