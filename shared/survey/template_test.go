package survey_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// template returns a complete, valid catalog item: every required field set,
// the optional ones as the sample catalog writes them.
func template(id int64, slug string, similar ...any) map[string]any {
	if similar == nil {
		similar = []any{}
	}
	return map[string]any{
		"id":                id,
		"score":             10 * id,
		"is_general":        true,
		"long_description":  "<p>long</p>",
		"short_description": "short",
		"title":             fmt.Sprintf("Template %d", id),
		"title_color":       1,
		"embedding_link":    "https://templates.example.com/s/k7Qx2m/",
		"thumbnail_image":   "/media/templates/thumbs/t.png",
		"url_slug":          slug,
		"categories":        []int{1, 2},
		"industries":        []any{},
		"usage_guide":       "<p>guide</p>",
		"language":          1,
		"type":              2,
		"similar_templates": similar,
		"meta_description":  nil,
	}
}

// with returns a copy of m with key set to v; the value del deletes the key.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	if v == del {
		delete(out, key)
	} else {
		out[key] = v
	}
	return out
}

type deleted struct{}

var del any = deleted{}

func catalog(t testing.TB, items ...any) []byte {
	t.Helper()
	if items == nil {
		items = []any{}
	}
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertInvalid checks that err is an EINVALID *survey.Error whose message
// contains every one of want.
func assertInvalid(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want EINVALID containing %q", want)
	}
	var e *survey.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *survey.Error", err, err)
	}
	if got := survey.ErrorCode(err); got != survey.EINVALID {
		t.Errorf("code = %q, want %q (%v)", got, survey.EINVALID, err)
	}
	for _, w := range want {
		if !strings.Contains(e.Detail, w) {
			t.Errorf("detail %q does not contain %q", e.Detail, w)
		}
	}
}

func TestParseCatalogValid(t *testing.T) {
	t.Parallel()
	meta := "Meta"
	data := catalog(t,
		with(template(1, "customer-satisfaction", 2), "meta_description", meta),
		template(2, "نظرسنجی-رضایت-مشتری", map[string]any{"id": 1}),
	)
	got, err := survey.ParseCatalog(data, nil)
	if err != nil {
		t.Fatalf("ParseCatalog: %v", err)
	}
	want := []survey.Template{
		{
			ID: 1, Score: 10, IsGeneral: true, LongDescription: "<p>long</p>", ShortDescription: "short",
			Title: "Template 1", TitleColor: 1, EmbeddingLink: "https://templates.example.com/s/k7Qx2m/",
			ThumbnailImage: "/media/templates/thumbs/t.png", URLSlug: "customer-satisfaction",
			Categories: []int64{1, 2}, Industries: []json.RawMessage{}, UsageGuide: "<p>guide</p>",
			Language: 1, Type: 2, MetaDescription: &meta, SimilarIDs: []int64{2},
		},
		{
			ID: 2, Score: 20, IsGeneral: true, LongDescription: "<p>long</p>", ShortDescription: "short",
			Title: "Template 2", TitleColor: 1, EmbeddingLink: "https://templates.example.com/s/k7Qx2m/",
			ThumbnailImage: "/media/templates/thumbs/t.png", URLSlug: "نظرسنجی-رضایت-مشتری",
			Categories: []int64{1, 2}, Industries: []json.RawMessage{}, UsageGuide: "<p>guide</p>",
			Language: 1, Type: 2, SimilarIDs: []int64{1},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseCatalog =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseCatalogDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		item           map[string]any
		wantIndustries int
		wantCategories int
		wantSimilar    []int64
		wantMeta       bool
	}{
		{"industries absent", with(template(1, "a"), "industries", del), 0, 2, nil, false},
		{"industries null", with(template(1, "a"), "industries", nil), 0, 2, nil, false},
		{"industries kept as given", with(template(1, "a"), "industries", []any{1, "x", map[string]any{"id": 3}}), 3, 2, nil, false},
		{"categories empty", with(template(1, "a"), "categories", []int{}), 0, 0, nil, false},
		{"similar absent", with(template(1, "a"), "similar_templates", del), 0, 2, nil, false},
		{"similar null", with(template(1, "a"), "similar_templates", nil), 0, 2, nil, false},
		{"similar empty", template(1, "a"), 0, 2, nil, false},
		{"similar deduplicated, order kept", template(1, "a", 3, map[string]any{"id": 2}, 3, map[string]any{"id": 3}), 0, 2, []int64{3, 2}, false},
		{"meta absent", with(template(1, "a"), "meta_description", del), 0, 2, nil, false},
		{"meta empty string", with(template(1, "a"), "meta_description", ""), 0, 2, nil, true},
		{"thumbnail empty", with(template(1, "a"), "thumbnail_image", ""), 0, 2, nil, false},
		{"thumbnail https", with(template(1, "a"), "thumbnail_image", "https://cdn.example.com/t.png"), 0, 2, nil, false},
		{"thumbnail http", with(template(1, "a"), "thumbnail_image", "http://cdn.example.com/t.png"), 0, 2, nil, false},
		{"unknown fields ignored", with(template(1, "a"), "extra", "ignored"), 0, 2, nil, false},
		{"id at the 2^53 bound", with(template(1, "a"), "id", int64(1)<<53), 0, 2, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := survey.ParseCatalog(catalog(t, tt.item), map[int64]bool{2: true, 3: true})
			if err != nil {
				t.Fatalf("ParseCatalog: %v", err)
			}
			if len(got) != 1 {
				t.Fatalf("got %d templates, want 1", len(got))
			}
			tp := got[0]
			if tp.Industries == nil || len(tp.Industries) != tt.wantIndustries {
				t.Errorf("Industries = %#v, want non-nil with %d items", tp.Industries, tt.wantIndustries)
			}
			if tp.Categories == nil || len(tp.Categories) != tt.wantCategories {
				t.Errorf("Categories = %#v, want non-nil with %d items", tp.Categories, tt.wantCategories)
			}
			if !reflect.DeepEqual(tp.SimilarIDs, tt.wantSimilar) {
				t.Errorf("SimilarIDs = %v, want %v", tp.SimilarIDs, tt.wantSimilar)
			}
			if got := tp.MetaDescription != nil; got != tt.wantMeta {
				t.Errorf("MetaDescription set = %v, want %v", got, tt.wantMeta)
			}
			if tp.SimilarTemplates != nil {
				t.Errorf("SimilarTemplates = %v, want nil (only the ids are parsed)", tp.SimilarTemplates)
			}
		})
	}
}

func TestParseCatalogEmpty(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"[]", " [ ] "} {
		got, err := survey.ParseCatalog([]byte(in), nil)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("ParseCatalog(%q) = %#v, %v; want an empty slice", in, got, err)
		}
	}
}

var requiredFields = []string{
	"id", "score", "is_general", "long_description", "short_description", "title", "title_color",
	"embedding_link", "thumbnail_image", "url_slug", "categories", "usage_guide", "language", "type",
}

func TestParseCatalogRequiredFields(t *testing.T) {
	t.Parallel()
	for _, field := range requiredFields {
		for _, how := range []string{"absent", "null"} {
			t.Run(field+" "+how, func(t *testing.T) {
				t.Parallel()
				bad := with(template(2, "b"), field, del)
				if how == "null" {
					bad = with(template(2, "b"), field, nil)
				}
				got, err := survey.ParseCatalog(catalog(t, template(1, "a"), bad), nil)
				if got != nil {
					t.Errorf("templates = %v, want nil on error", got)
				}
				assertInvalid(t, err, "template #2", fmt.Sprintf("field %q", field), "missing")
			})
		}
	}
}

func TestParseCatalogInvalid(t *testing.T) {
	t.Parallel()
	ok := template(1, "a")
	tests := []struct {
		name  string
		data  []byte
		known map[int64]bool
		want  []string // substrings of the detail
	}{
		{"not JSON", []byte(`[{`), nil, []string{"not a JSON array"}},
		{"empty input", []byte(``), nil, []string{"not a JSON array"}},
		{"object", []byte(`{"id":1}`), nil, []string{"not a JSON array"}},
		{"string", []byte(`"x"`), nil, []string{"not a JSON array"}},
		{"item is a number", []byte(`[1]`), nil, []string{"not a JSON array of template objects"}},
		{"item is an array", []byte(`[[]]`), nil, []string{"not a JSON array of template objects"}},
		{"item is a string", catalog(t, ok, "x"), nil, []string{"not a JSON array of template objects"}},
		{"item is null", []byte(`[null]`), nil, []string{"template #1", `field "id"`, "missing"}},
		{"item is empty object", []byte(`[{}]`), nil, []string{"template #1", `field "id"`, "missing"}},

		{"string id", catalog(t, with(ok, "id", "1")), nil, []string{"template #1", `field "id"`, "wrong type"}},
		{"float id", catalog(t, with(ok, "id", 1.5)), nil, []string{"template #1", `field "id"`, "wrong type"}},
		{"string score", catalog(t, with(ok, "score", "10")), nil, []string{"template #1 (id 1)", `field "score"`, "wrong type"}},
		{"string is_general", catalog(t, with(ok, "is_general", "true")), nil, []string{"template #1 (id 1)", `field "is_general"`, "wrong type"}},
		{"number title", catalog(t, with(ok, "title", 5)), nil, []string{"template #1 (id 1)", `field "title"`, "wrong type"}},
		{"string title_color", catalog(t, with(ok, "title_color", "1")), nil, []string{"template #1 (id 1)", `field "title_color"`, "wrong type"}},
		{"categories not an array", catalog(t, with(ok, "categories", 1)), nil, []string{"template #1 (id 1)", `field "categories"`, "wrong type"}},
		{"categories of strings", catalog(t, with(ok, "categories", []string{"1"})), nil, []string{"template #1 (id 1)", `field "categories"`, "wrong type"}},
		{"categories of floats", catalog(t, with(ok, "categories", []float64{1.5})), nil, []string{"template #1 (id 1)", `field "categories"`, "wrong type"}},
		{"categories of objects", catalog(t, with(ok, "categories", []any{map[string]any{"id": 1}})), nil, []string{"template #1 (id 1)", `field "categories"`, "wrong type"}},
		{"industries not an array", catalog(t, with(ok, "industries", "x")), nil, []string{"template #1 (id 1)", `field "industries"`, "wrong type"}},
		{"number meta_description", catalog(t, with(ok, "meta_description", 1)), nil, []string{"template #1 (id 1)", `field "meta_description"`, "wrong type"}},

		{"id zero", catalog(t, with(ok, "id", 0)), nil, []string{"template #1", `field "id"`, "positive"}},
		{"id negative", catalog(t, with(ok, "id", -4)), nil, []string{"template #1", `field "id"`, "positive"}},
		{"id beyond 2^53", catalog(t, with(ok, "id", int64(1)<<53+1)), nil, []string{"template #1", `field "id"`, "positive"}},

		{"slug with space", catalog(t, with(ok, "url_slug", "a b")), nil, []string{"template #1 (id 1)", `field "url_slug"`, "not a slug"}},
		{"slug with slash", catalog(t, with(ok, "url_slug", "a/b")), nil, []string{"template #1 (id 1)", `field "url_slug"`, "not a slug"}},
		{"slug empty", catalog(t, with(ok, "url_slug", "")), nil, []string{"template #1 (id 1)", `field "url_slug"`, "not a slug"}},
		{"slug 201 characters", catalog(t, with(ok, "url_slug", strings.Repeat("ب", survey.MaxSlugLength+1))), nil, []string{"template #1 (id 1)", `field "url_slug"`, "not a slug"}},
		{"slug with percent", catalog(t, with(ok, "url_slug", "a%20b")), nil, []string{"template #1 (id 1)", `field "url_slug"`}},
		{"number slug", catalog(t, with(ok, "url_slug", 5)), nil, []string{"template #1 (id 1)", `field "url_slug"`, "wrong type"}},

		{"blank title", catalog(t, with(ok, "title", " \t ")), nil, []string{"template #1 (id 1)", `field "title"`, "blank"}},
		{"relative thumbnail", catalog(t, with(ok, "thumbnail_image", "templates/t.png")), nil, []string{"template #1 (id 1)", `field "thumbnail_image"`}},
		{"media without leading slash", catalog(t, with(ok, "thumbnail_image", "media/t.png")), nil, []string{"template #1 (id 1)", `field "thumbnail_image"`}},
		{"ftp thumbnail", catalog(t, with(ok, "thumbnail_image", "ftp://example.com/t.png")), nil, []string{"template #1 (id 1)", `field "thumbnail_image"`}},
		{"javascript thumbnail", catalog(t, with(ok, "thumbnail_image", "javascript:alert(1)")), nil, []string{"template #1 (id 1)", `field "thumbnail_image"`}},

		{"duplicate id", catalog(t, ok, template(2, "b"), template(1, "c")), nil, []string{"template #3 (id 1)", `field "id"`, "duplicate of template #1"}},
		{"duplicate slug", catalog(t, ok, template(2, "b"), template(3, "a")), nil, []string{"template #3 (id 3)", `field "url_slug"`, `"a"`, "template id 1"}},
		{"duplicate unicode slug", catalog(t, template(1, "قالب"), template(2, "قالب")), nil, []string{"template #2 (id 2)", `field "url_slug"`}},

		{"dangling similar id", catalog(t, ok, template(2, "b", 1, 9)), nil, []string{"template #2 (id 2)", `field "similar_templates"`, "no template has id 9"}},
		{"dangling similar object", catalog(t, template(1, "a", map[string]any{"id": 9})), nil, []string{"template #1 (id 1)", `field "similar_templates"`, "no template has id 9"}},
		{"dangling with other known ids", catalog(t, template(1, "a", 9)), map[int64]bool{8: true, 10: true}, []string{"no template has id 9"}},
		{"known false is not known", catalog(t, template(1, "a", 9)), map[int64]bool{9: false}, []string{"no template has id 9"}},
		{"self reference", catalog(t, template(1, "a", 1)), nil, []string{"template #1 (id 1)", `field "similar_templates"`, "itself"}},
		{"self reference by object", catalog(t, template(1, "a", map[string]any{"id": 1})), nil, []string{"template #1 (id 1)", `field "similar_templates"`, "itself"}},
		{"self reference also known", catalog(t, template(1, "a", 1)), map[int64]bool{1: true}, []string{"itself"}},
		{"similar not an array", catalog(t, with(ok, "similar_templates", 2)), nil, []string{"template #1 (id 1)", `field "similar_templates"`, "array"}},
		{"similar string id", catalog(t, template(1, "a", "2"), template(2, "b")), nil, []string{"template #1 (id 1)", `field "similar_templates"`, "item 0"}},
		{"similar float id", catalog(t, template(1, "a", 2, 1.5), template(2, "b")), nil, []string{`field "similar_templates"`, "item 1"}},
		{"similar object without id", catalog(t, template(1, "a", map[string]any{"slug": "b"}), template(2, "b")), nil, []string{`field "similar_templates"`, "item 0"}},
		{"similar object with null id", catalog(t, template(1, "a", map[string]any{"id": nil}), template(2, "b")), nil, []string{`field "similar_templates"`, "item 0"}},
		{"similar object with string id", catalog(t, template(1, "a", map[string]any{"id": "2"}), template(2, "b")), nil, []string{`field "similar_templates"`, "item 0"}},
		// A null item unmarshals as the id 0, which no template has: still
		// refused, though the message names id 0 rather than the item.
		{"similar null item", catalog(t, template(1, "a", nil), template(2, "b")), nil, []string{`field "similar_templates"`, "item 0 is neither an id nor an object with an id"}},

		// Size bounds, so that a detail or a list page fits an answer.
		{"template over 32 KiB of JSON", catalog(t, with(ok, "long_description", strings.Repeat("x", survey.MaxTemplateBytes))), nil,
			[]string{"template #1 (id 1)", "bytes of JSON, at most 32768"}},
		{"texts that escape past 32 KiB", catalog(t, with(ok, "usage_guide", strings.Repeat("\x01", survey.MaxTemplateBytes/6+1))), nil,
			[]string{"template #1 (id 1)", "at most 32768"}},
		{"101 similar templates", catalog(t, template(1, "a", manyIDs(2, 102)...)), map[int64]bool{}, []string{`field "similar_templates"`, "101 templates, at most 100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := survey.ParseCatalog(tt.data, tt.known)
			if got != nil {
				t.Errorf("templates = %v, want nil on error", got)
			}
			assertInvalid(t, err, tt.want...)
		})
	}
}

func TestParseCatalogKnownIDs(t *testing.T) {
	t.Parallel()
	data := catalog(t, template(5, "e", 1, map[string]any{"id": 2}, 6), template(6, "f", 5))
	got, err := survey.ParseCatalog(data, map[int64]bool{1: true, 2: true})
	if err != nil {
		t.Fatalf("ParseCatalog: %v", err)
	}
	if want := []int64{1, 2, 6}; !reflect.DeepEqual(got[0].SimilarIDs, want) {
		t.Errorf("SimilarIDs = %v, want %v", got[0].SimilarIDs, want)
	}
	if _, err := survey.ParseCatalog(data, nil); err == nil {
		t.Error("without the known ids the references must dangle")
	}
}

// manyIDs is the ids from, from+1, ..., to as similar_templates items.
func manyIDs(from, to int64) []any {
	var out []any
	for id := from; id <= to; id++ {
		out = append(out, id)
	}
	return out
}

// TestParseCatalogSizeBounds: a template just at MaxTemplateBytes and one
// with MaxSimilarTemplates similar ones are accepted.
func TestParseCatalogSizeBounds(t *testing.T) {
	t.Parallel()
	base := with(template(1, "a"), "long_description", "")
	got, err := survey.ParseCatalog(catalog(t, base), nil)
	if err != nil {
		t.Fatal(err)
	}
	pad := survey.MaxTemplateBytes - got[0].JSONLen()
	at := with(base, "long_description", strings.Repeat("x", pad))
	got, err = survey.ParseCatalog(catalog(t, at), nil)
	if err != nil || got[0].JSONLen() != survey.MaxTemplateBytes {
		t.Fatalf("a template of exactly %d bytes: %v (%d bytes)", survey.MaxTemplateBytes, err, got[0].JSONLen())
	}
	known := map[int64]bool{}
	for id := int64(2); id <= 101; id++ {
		known[id] = true
	}
	if _, err := survey.ParseCatalog(catalog(t, template(1, "a", manyIDs(2, 101)...)), known); err != nil {
		t.Errorf("100 similar templates: %v", err)
	}
}
