package survey_test

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// catalogSeeds are the seed corpus of FuzzParseCatalog.
func catalogSeeds(f *testing.F) [][]byte {
	return [][]byte{
		catalog(f, template(1, "a", 2), template(2, "نظرسنجی-رضایت-مشتری", map[string]any{"id": 1})),
		catalog(f, template(1, "a", 1)),
		catalog(f, template(1, "a"), template(1, "b")),
		catalog(f, template(1, "a"), template(2, "a")),
		catalog(f, template(1, "a", 9)),
		catalog(f, with(template(1, "a b"), "industries", nil)),
		catalog(f, with(template(1, "a"), "categories", []string{"x"})),
		catalog(f, with(template(1, "a"), "thumbnail_image", "ftp://x")),
		[]byte(`[]`), []byte(`{}`), []byte(`null`), []byte(`[null]`), []byte(`[1]`), []byte(`[{}]`), []byte(``),
		[]byte(`[{"id":1,"similar_templates":[{"id":1}]}]`),
	}
}

func FuzzParseCatalog(f *testing.F) {
	for _, s := range catalogSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := survey.ParseCatalog(data, nil)
		if err != nil {
			if got != nil {
				t.Errorf("templates %v returned with error %v", got, err)
			}
			if code := survey.ErrorCode(err); code != survey.EINVALID {
				t.Errorf("code = %q, want %q: %v", code, survey.EINVALID, err)
			}
			return
		}
		ids := map[int64]bool{}
		slugs := map[string]bool{}
		for _, tp := range got {
			if tp.ID <= 0 {
				t.Errorf("id %d is not positive", tp.ID)
			}
			if !survey.ValidSlug(tp.URLSlug) {
				t.Errorf("template %d: slug %q is not valid", tp.ID, tp.URLSlug)
			}
			if ids[tp.ID] {
				t.Errorf("id %d twice", tp.ID)
			}
			if slugs[tp.URLSlug] {
				t.Errorf("slug %q twice", tp.URLSlug)
			}
			if strings.TrimSpace(tp.Title) == "" {
				t.Errorf("template %d: blank title", tp.ID)
			}
			if tp.Categories == nil || tp.Industries == nil {
				t.Errorf("template %d: nil categories or industries", tp.ID)
			}
			ids[tp.ID] = true
			slugs[tp.URLSlug] = true
		}
		for _, tp := range got {
			seen := map[int64]bool{}
			for _, sid := range tp.SimilarIDs {
				if !ids[sid] {
					t.Errorf("template %d: similar id %d names no template", tp.ID, sid)
				}
				if sid == tp.ID {
					t.Errorf("template %d is similar to itself", tp.ID)
				}
				if seen[sid] {
					t.Errorf("template %d: similar id %d twice", tp.ID, sid)
				}
				seen[sid] = true
			}
		}
	})
}
