package survey_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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

func TestValidSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"ascii", "customer-satisfaction-survey", true},
		{"upper case", "Course-Evaluation", true},
		{"digits", "2024", true},
		{"underscore", "a_b", true},
		{"hyphen only", "-", true},
		{"underscore only", "_", true},
		{"persian", "نظرسنجی-رضایت-مشتری", true},
		{"arabic", "استبيان-رضا-المرضى", true},
		{"persian digits", "فرم-۱۴۰۲", true},
		{"arabic-indic digits", "٠١٢", true},
		{"arabic with harakat (marks)", "مَدْرَسَة", true},
		{"combining accent", "cafe\u0301", true},
		{"cyrillic", "опрос", true},
		{"cjk", "調査", true},
		{"exactly max length", strings.Repeat("ش", survey.MaxSlugLength), true},
		// U+200C ZERO WIDTH NON-JOINER is a format character (Cf) that
		// Persian words carry; slugs keep it (Django's `^[-\w]+\Z` would not).
		{"persian with ZWNJ", "مهم\u200cترین", true},
		{"ZWJ", "a\u200db", true},
		{"other format character", "a\u200eb", false},
		{"empty", "", false},
		{"too long", strings.Repeat("a", survey.MaxSlugLength+1), false},
		{"too long persian", strings.Repeat("ش", survey.MaxSlugLength+1), false},
		{"space", "a b", false},
		{"leading space", " a", false},
		{"no-break space", "a\u00a0b", false},
		{"tab", "a\tb", false},
		{"newline", "a\n", false},
		{"NUL", "a\x00", false},
		{"DEL", "a\x7f", false},
		{"C1 control", "a\u0085", false},
		{"slash", "a/b", false},
		{"backslash", `a\b`, false},
		{"percent", "a%20b", false},
		{"dot", "a.b", false},
		{"dot dot", "..", false},
		{"question mark", "a?b", false},
		{"hash", "a#b", false},
		{"plus", "a+b", false},
		{"emoji", "a😀", false},
		{"replacement char", "a\uFFFD", false},
		{"invalid UTF-8", "a\xffb", false},
		{"truncated UTF-8", "\xd9", false},
		{"overlong encoding of slash", "\xc0\xaf", false},
		{"surrogate half", "\xed\xa0\x80", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := survey.ValidSlug(tt.in); got != tt.want {
				t.Errorf("ValidSlug(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestWellFormedKey(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("A", 43)
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"issued", survey.NewKey(), true},
		{"all alphabet", "svk_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123-_Z", true},
		{"empty", "", false},
		{"prefix only", "svk_", false},
		{"one short", "svk_" + body[:42], false},
		{"one long", "svk_" + body + "A", false},
		{"wrong prefix", "svx_" + body, false},
		{"upper prefix", "SVK_" + body, false},
		{"no prefix", body + "AAAA", false},
		{"padding", "svk_" + body[:42] + "=", false},
		{"std base64 plus", "svk_" + body[:42] + "+", false},
		{"std base64 slash", "svk_" + body[:42] + "/", false},
		{"space", "svk_" + body[:42] + " ", false},
		{"leading space", " svk_" + body[:42], false},
		{"dot", "svk_" + body[:42] + ".", false},
		{"NUL", "svk_" + body[:42] + "\x00", false},
		{"multibyte with the right byte length", "svk_" + body[:41] + "é", false},
		{"invalid UTF-8", "svk_" + body[:42] + "\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := survey.WellFormedKey(tt.in); got != tt.want {
				t.Errorf("WellFormedKey(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewKey(t *testing.T) {
	t.Parallel()
	const n = 1000
	seen := make(map[string]bool, n)
	for range n {
		k := survey.NewKey()
		if !survey.WellFormedKey(k) {
			t.Fatalf("NewKey() = %q is not well formed", k)
		}
		if !strings.HasPrefix(k, survey.KeyPrefix) {
			t.Fatalf("NewKey() = %q lacks %q", k, survey.KeyPrefix)
		}
		if seen[k] {
			t.Fatalf("NewKey() repeated %q", k)
		}
		seen[k] = true
	}
}

func TestHashKey(t *testing.T) {
	t.Parallel()
	hexRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		if got := survey.HashKey(tt.in); got != tt.want {
			t.Errorf("HashKey(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	k := survey.NewKey()
	got, again := survey.HashKey(k), survey.HashKey(k)
	if got != again {
		t.Errorf("HashKey is not deterministic: %s then %s", got, again)
	}
	if !hexRE.MatchString(got) {
		t.Errorf("HashKey(%q) = %q, want 64 lower-case hex digits", k, got)
	}
	if strings.Contains(got, k[len(survey.KeyPrefix):]) {
		t.Error("the hash contains the key")
	}
	if other := survey.HashKey(survey.NewKey()); other == got {
		t.Error("two keys hash alike")
	}
}

func TestParsePlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    survey.Plan
		wantErr bool
	}{
		{"free", survey.PlanFree, false},
		{"pro", survey.PlanPro, false},
		{"enterprise", survey.PlanEnterprise, false},
		{"", "", true},
		{"Pro", "", true},
		{"PRO", "", true},
		{" pro", "", true},
		{"pro ", "", true},
		{"gold", "", true},
	}
	for _, tt := range tests {
		got, err := survey.ParsePlan(tt.in)
		if got != tt.want {
			t.Errorf("ParsePlan(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.wantErr {
			assertInvalid(t, err, "unknown plan", fmt.Sprintf("%q", tt.in))
		} else if err != nil {
			t.Errorf("ParsePlan(%q): %v", tt.in, err)
		}
	}
}

func TestPlanIncludes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		plan, need survey.Plan
		want       bool
	}{
		{survey.PlanFree, survey.PlanFree, true},
		{survey.PlanFree, survey.PlanPro, false},
		{survey.PlanFree, survey.PlanEnterprise, false},
		{survey.PlanPro, survey.PlanFree, true},
		{survey.PlanPro, survey.PlanPro, true},
		{survey.PlanPro, survey.PlanEnterprise, false},
		{survey.PlanEnterprise, survey.PlanFree, true},
		{survey.PlanEnterprise, survey.PlanPro, true},
		{survey.PlanEnterprise, survey.PlanEnterprise, true},
	}
	for _, tt := range tests {
		if got := tt.plan.Includes(tt.need); got != tt.want {
			t.Errorf("%s.Includes(%s) = %v, want %v", tt.plan, tt.need, got, tt.want)
		}
	}
}

func TestAccountValidate(t *testing.T) {
	t.Parallel()
	good := survey.Account{ID: 1, Email: "owner@example.com", FirstName: "Ada", LastName: "Lovelace", UserType: survey.UserTypeOwner, Plan: survey.PlanPro}
	edit := func(f func(*survey.Account)) survey.Account {
		a := good
		f(&a)
		return a
	}
	tests := []struct {
		name    string
		account survey.Account
		wantErr string // substring of the detail; "" for valid
	}{
		{"good", good, ""},
		{"free", edit(func(a *survey.Account) { a.Plan = survey.PlanFree }), ""},
		{"enterprise", edit(func(a *survey.Account) { a.Plan = survey.PlanEnterprise }), ""},
		{"plus tag", edit(func(a *survey.Account) { a.Email = "a.b+tag@example.co.uk" }), ""},
		{"unicode email", edit(func(a *survey.Account) { a.Email = "پست@مثال.ایران" }), ""},
		{"empty names", edit(func(a *survey.Account) { a.FirstName, a.LastName = "", "" }), ""},
		{"names of 150 code points", edit(func(a *survey.Account) {
			a.FirstName, a.LastName = strings.Repeat("ع", 150), strings.Repeat("x", 150)
		}), ""},
		{"email of 254 characters", edit(func(a *survey.Account) { a.Email = strings.Repeat("a", 249) + "@x.io" }), ""},

		{"empty email", edit(func(a *survey.Account) { a.Email = "" }), "invalid email"},
		{"no at", edit(func(a *survey.Account) { a.Email = "owner.example.com" }), "invalid email"},
		{"no local part", edit(func(a *survey.Account) { a.Email = "@example.com" }), "invalid email"},
		{"no domain", edit(func(a *survey.Account) { a.Email = "owner@" }), "invalid email"},
		{"two ats", edit(func(a *survey.Account) { a.Email = "a@@example.com" }), "invalid email"},
		{"display name", edit(func(a *survey.Account) { a.Email = "Owner <owner@example.com>" }), "invalid email"},
		{"angle brackets", edit(func(a *survey.Account) { a.Email = "<owner@example.com>" }), "invalid email"},
		{"quoted local part", edit(func(a *survey.Account) { a.Email = `"o w"@example.com` }), "invalid email"},
		{"surrounding space", edit(func(a *survey.Account) { a.Email = " owner@example.com" }), "invalid email"},
		{"trailing newline", edit(func(a *survey.Account) { a.Email = "owner@example.com\n" }), "invalid email"},
		{"two addresses", edit(func(a *survey.Account) { a.Email = "a@example.com, b@example.com" }), "invalid email"},
		{"email of 255 characters", edit(func(a *survey.Account) { a.Email = strings.Repeat("a", 250) + "@x.io" }), "longer than 254"},
		{"first name of 151", edit(func(a *survey.Account) { a.FirstName = strings.Repeat("ع", 151) }), "first name is longer than 150"},
		{"last name of 151", edit(func(a *survey.Account) { a.LastName = strings.Repeat("x", 151) }), "last name is longer than 150"},
		{"no plan", edit(func(a *survey.Account) { a.Plan = "" }), "unknown plan"},
		{"bad plan", edit(func(a *survey.Account) { a.Plan = "gold" }), "unknown plan"},
		{"plan case", edit(func(a *survey.Account) { a.Plan = "Pro" }), "unknown plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.account.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			assertInvalid(t, err, tt.wantErr)
		})
	}
}

func TestAccountStringHidesEmail(t *testing.T) {
	t.Parallel()
	a := survey.Account{ID: 42, Email: "secret@example.com", Plan: survey.PlanFree}
	got := fmt.Sprint(a)
	if want := "account 42 (free)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %s", a, a, a), "secret") {
		t.Error("formatting an account shows its email")
	}
	p := a.Profile()
	if p.Email != a.Email {
		t.Errorf("Profile().Email = %q, want %q", p.Email, a.Email)
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	f := survey.Fields{}
	if err := f.Err(); err != nil {
		t.Fatalf("empty Fields.Err() = %v, want nil", err)
	}
	var nilFields survey.Fields
	if err := nilFields.Err(); err != nil {
		t.Fatalf("nil Fields.Err() = %v, want nil", err)
	}
	f.Add("name", "This field is required.")
	f.Add("name", "Second message.")
	f.Add("email", "Enter a valid email address.")
	f["settings"] = survey.Fields{"color": []string{"Bad."}}
	err := f.Err()
	if got := survey.ErrorCode(err); got != survey.EINVALID {
		t.Fatalf("code = %q, want %q", got, survey.EINVALID)
	}
	var e *survey.Error
	if !errors.As(err, &e) {
		t.Fatalf("Err() = %T, want *survey.Error", err)
	}
	want := map[string]any{
		"name":     []string{"This field is required.", "Second message."},
		"email":    []string{"Enter a valid email address."},
		"settings": survey.Fields{"color": []string{"Bad."}},
	}
	if !reflect.DeepEqual(e.Fields, want) {
		t.Errorf("Fields = %#v, want %#v", e.Fields, want)
	}
	if !strings.Contains(err.Error(), "fields=") {
		t.Errorf("Error() = %q, want the fields shown", err.Error())
	}
	b, jerr := json.Marshal(e.Fields)
	if jerr != nil {
		t.Fatal(jerr)
	}
	if got, want := string(b), `{"email":["Enter a valid email address."],"name":["This field is required.","Second message."],"settings":{"color":["Bad."]}}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestFieldError(t *testing.T) {
	t.Parallel()
	err := survey.FieldError("title", "This field may not be blank.")
	if got := survey.ErrorCode(err); got != survey.EINVALID {
		t.Errorf("code = %q", got)
	}
	if got, want := err.Fields, map[string]any{"title": []string{"This field may not be blank."}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Fields = %#v, want %#v", got, want)
	}
}

func TestErrorCode(t *testing.T) {
	t.Parallel()
	notFound := survey.Errorf(survey.ENOTFOUND, "gone %d", 1)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"error", survey.Errorf(survey.ECONFLICT, "Survey is deleted."), survey.ECONFLICT},
		{"ErrNotFound", survey.ErrNotFound, survey.ENOTFOUND},
		{"wrapped", fmt.Errorf("load: %w", notFound), survey.ENOTFOUND},
		{"wrapped twice", fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", survey.FieldError("x", "bad"))), survey.EINVALID},
		{"joined", errors.Join(errors.New("plain"), survey.Errorf(survey.EGONE, "used")), survey.EGONE},
		{"plain", errors.New("dynamodb exploded"), survey.EINTERNAL},
		{"formatted without %w", fmt.Errorf("load: %v", notFound), survey.EINTERNAL},
	}
	for _, tt := range tests {
		if got := survey.ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: ErrorCode(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
	if got := survey.Errorf(survey.ENOTFOUND, "x %s", "y"); got.Detail != "x y" || got.Code != survey.ENOTFOUND {
		t.Errorf("Errorf = %+v", got)
	}
	if got := notFound.Error(); !strings.Contains(got, "code=not_found") || !strings.Contains(got, "detail=gone 1") {
		t.Errorf("Error() = %q", got)
	}
}

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

func FuzzValidSlug(f *testing.F) {
	for _, s := range []string{
		"customer-satisfaction-survey", "نظرسنجی-رضایت-مشتری", "مهم\u200cترین", "a_b", "", "a b", "a/b",
		"a%2Fb", "\x00", "\xff", "cafe\u0301", strings.Repeat("a", survey.MaxSlugLength),
		strings.Repeat("ش", survey.MaxSlugLength+1),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !survey.ValidSlug(s) {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("ValidSlug(%q) with invalid UTF-8", s)
		}
		if n := utf8.RuneCountInString(s); n == 0 || n > survey.MaxSlugLength {
			t.Fatalf("ValidSlug(%q) with %d code points", s, n)
		}
		if strings.ContainsAny(s, "/%\\?#. +") {
			t.Fatalf("ValidSlug(%q) with a reserved character", s)
		}
		if strings.ContainsFunc(s, func(r rune) bool {
			zeroWidthJoiners := r == '\u200c' || r == '\u200d'
			return unicode.IsControl(r) || unicode.IsSpace(r) || (unicode.Is(unicode.Cf, r) && !zeroWidthJoiners) || r == utf8.RuneError
		}) {
			t.Fatalf("ValidSlug(%q) with a control, space or format character", s)
		}
	})
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
