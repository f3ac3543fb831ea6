package templates_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"surveyservice/functions/templates"
	"surveyservice/infra/seed"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var (
	seedOnce sync.Once
	handler  http.Handler
	catalog  []survey.Template // the seed, as parsed
)

// setup loads the sample catalog once into this binary's emulator.
func setup(t testing.TB) http.Handler {
	t.Helper()
	st := testenv.Store(t)
	seedOnce.Do(func() {
		if _, err := st.ImportTemplates(context.Background(), seed.Templates); err != nil {
			t.Fatalf("import seed: %v", err)
		}
		var err error
		catalog, err = survey.ParseCatalog(seed.Templates, nil)
		if err != nil {
			t.Fatal(err)
		}
		handler = testenv.Conform(api.ServeAt(testenv.APIBase, templates.New(templates.Deps{Catalog: st, MediaURL: "https://media.example.com",
			TemplatesURL: "https://templates.example.com"})))
	})
	if handler == nil {
		t.Fatal("setup failed earlier")
	}
	return handler
}

type result struct {
	*httptest.ResponseRecorder
	dynamo int
}

func get(t *testing.T, method, target string, header ...string) result {
	t.Helper()
	h := setup(t)
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return result{rec, calls.DynamoDB()}
}

func bySlugWithSimilar(t testing.TB, wantSimilar bool) survey.Template {
	t.Helper()
	setup(t)
	for _, tpl := range catalog {
		if (len(tpl.SimilarIDs) > 0) == wantSimilar && strings.ContainsFunc(tpl.URLSlug, func(r rune) bool { return r > 127 }) == wantSimilar {
			return tpl
		}
	}
	for _, tpl := range catalog {
		if (len(tpl.SimilarIDs) > 0) == wantSimilar {
			return tpl
		}
	}
	t.Fatalf("the seed has no template with similar=%v", wantSimilar)
	return survey.Template{}
}

func detailPath(slug string) string { return "/api/templates/" + url.PathEscape(slug) + "/" }

func TestDetail(t *testing.T) {
	t.Parallel()
	want := bySlugWithSimilar(t, true)
	res := get(t, "GET", detailPath(want.URLSlug))
	if res.Code != 200 {
		t.Fatalf("GET %s = %d: %s", detailPath(want.URLSlug), res.Code, res.Body)
	}
	if res.dynamo != 2 {
		t.Errorf("DynamoDB calls = %d, want 2 (slug Query + one BatchGetItem)", res.dynamo)
	}
	for k, v := range map[string]string{
		"Allow": "GET, HEAD, OPTIONS", "Content-Type": "application/json", "Vary": "Accept",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := res.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if res.Header().Get("ETag") == "" || !strings.HasPrefix(res.Header().Get("Cache-Control"), "public") {
		t.Errorf("ETag %q, Cache-Control %q", res.Header().Get("ETag"), res.Header().Get("Cache-Control"))
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(res.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	fields := []string{"id", "score", "is_general", "long_description", "short_description", "title", "title_color",
		"embedding_link", "thumbnail_image", "url_slug", "categories", "industries", "usage_guide", "language", "type",
		"similar_templates", "meta_description", "survey_url_slug"}
	for _, f := range fields {
		if _, ok := got[f]; !ok {
			t.Errorf("field %s missing", f)
		}
	}
	if len(got) != len(fields) {
		t.Errorf("got %d fields, want %d", len(got), len(fields))
	}
	var tpl struct {
		ID               int64             `json:"id"`
		URLSlug          string            `json:"url_slug"`
		LongDescription  string            `json:"long_description"`
		SimilarTemplates []json.RawMessage `json:"similar_templates"`
	}
	_ = json.Unmarshal(res.Body.Bytes(), &tpl)
	if tpl.ID != want.ID || tpl.URLSlug != want.URLSlug || tpl.LongDescription != want.LongDescription {
		t.Errorf("got template %d %q, want %d %q", tpl.ID, tpl.URLSlug, want.ID, want.URLSlug)
	}
	if len(tpl.SimilarTemplates) != len(want.SimilarIDs) {
		t.Fatalf("similar_templates has %d items, want %d", len(tpl.SimilarTemplates), len(want.SimilarIDs))
	}
	for i, raw := range tpl.SimilarTemplates {
		var item map[string]json.RawMessage
		_ = json.Unmarshal(raw, &item)
		var id int64
		_ = json.Unmarshal(item["id"], &id)
		if id != want.SimilarIDs[i] {
			t.Errorf("similar[%d].id = %d, want %d (stored order)", i, id, want.SimilarIDs[i])
		}
		if string(item["similar_templates"]) != "null" {
			t.Errorf("similar[%d].similar_templates = %s, want null", i, item["similar_templates"])
		}
		if len(item) != len(fields) {
			t.Errorf("similar[%d] has %d fields, want %d", i, len(item), len(fields))
		}
	}
}

func TestDetailWithoutSimilar(t *testing.T) {
	t.Parallel()
	want := bySlugWithSimilar(t, false)
	res := get(t, "GET", "/api/templates/"+url.PathEscape(want.URLSlug)) // no final slash
	if res.Code != 200 {
		t.Fatalf("%d: %s", res.Code, res.Body)
	}
	if !strings.Contains(res.Body.String(), `"similar_templates":[]`) {
		t.Errorf("want an empty similar_templates list: %s", res.Body)
	}
	if res.dynamo != 1 {
		t.Errorf("DynamoDB calls = %d, want 1", res.dynamo)
	}
}

func TestDetailNotFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path string
		maxCalls   int
	}{
		{"unknown slug", "/api/templates/no-such-template/", 1},
		{"overlong slug", "/api/templates/" + strings.Repeat("a", survey.MaxSlugLength+1) + "/", 0},
		{"control character", "/api/templates/a%00b/", 0},
		{"newline", "/api/templates/a%0Ab/", 0},
		{"encoded slash", "/api/templates/a%2Fb/", 0},
		{"space", "/api/templates/a%20b/", 0},
		{"invalid UTF-8", "/api/templates/%FF%FE/", 0},
		{"quote and angle brackets", "/api/templates/%3Cscript%3E/", 0},
		{"deeper path", "/api/templates/a/b/", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := get(t, "GET", tt.path)
			if res.Code != 404 || strings.TrimSpace(res.Body.String()) != `{"detail":"Not found."}` {
				t.Fatalf("%s = %d %s", tt.path, res.Code, res.Body)
			}
			if res.dynamo > tt.maxCalls {
				t.Errorf("DynamoDB calls = %d, want at most %d", res.dynamo, tt.maxCalls)
			}
		})
	}
}

func TestDetailMethods(t *testing.T) {
	t.Parallel()
	slug := detailPath(bySlugWithSimilar(t, true).URLSlug)
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		res := get(t, m, slug)
		if res.Code != 405 || res.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s = %d Allow %q", m, res.Code, res.Header().Get("Allow"))
		}
		if want := `{"detail":"Method \"` + m + `\" not allowed."}`; strings.TrimSpace(res.Body.String()) != want {
			t.Errorf("%s body = %s, want %s", m, res.Body, want)
		}
	}
	getRes := get(t, "GET", slug)
	head := get(t, "HEAD", slug)
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("ETag") != getRes.Header().Get("ETag") ||
		head.Header().Get("Content-Length") != getRes.Header().Get("Content-Length") {
		t.Errorf("HEAD = %d, %d body bytes, headers %v", head.Code, head.Body.Len(), head.Header())
	}
	opt := get(t, "OPTIONS", slug)
	want := `{"name":"Template Detail","description":"","renders":["application/json","text/html"],"parses":["application/json"]}`
	if opt.Code != 200 || strings.TrimSpace(opt.Body.String()) != want {
		t.Errorf("OPTIONS = %d %s", opt.Code, opt.Body)
	}
	if opt.dynamo != 0 {
		t.Errorf("OPTIONS made %d DynamoDB calls", opt.dynamo)
	}
	pre := get(t, "OPTIONS", slug, "Origin", "https://elsewhere.example", "Access-Control-Request-Method", "GET")
	if pre.Header().Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
		t.Errorf("preflight headers: %v", pre.Header())
	}
}

func TestDetailConditionalGet(t *testing.T) {
	t.Parallel()
	slug := detailPath(bySlugWithSimilar(t, true).URLSlug)
	first := get(t, "GET", slug)
	res := get(t, "GET", slug, "If-None-Match", first.Header().Get("ETag"))
	if res.Code != 304 || res.Body.Len() != 0 {
		t.Errorf("If-None-Match = %d with %d bytes", res.Code, res.Body.Len())
	}
}

func TestPublicRoutesIgnoreAuthorization(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"API-Key junk", "Bearer x", strings.Repeat("x", 20000)} {
		if res := get(t, "GET", "/api/templates/", "Authorization", h); res.Code != 200 {
			t.Errorf("Authorization %.20q: %d", h, res.Code)
		}
	}
}

func TestBrowsablePage(t *testing.T) {
	t.Parallel()
	setup(t)
	var scripted survey.Template
	for _, tpl := range catalog {
		if strings.Contains(tpl.LongDescription, "<script") {
			scripted = tpl
		}
	}
	if scripted.ID == 0 {
		t.Fatal("the seed must hold a template with <script> in its HTML, to prove the page escapes it")
	}
	for _, c := range []struct{ query, accept string }{{"?format=api", ""}, {"", "text/html"}} {
		res := get(t, "GET", detailPath(scripted.URLSlug)+c.query, "Accept", c.accept)
		body := res.Body.String()
		if res.Code != 200 || res.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("%q %q: %d %s", c.query, c.accept, res.Code, res.Header().Get("Content-Type"))
		}
		if strings.Contains(strings.ToLower(body), "<script") {
			t.Errorf("the page carries live script")
		}
		for _, want := range []string{"&lt;script&gt;", "Template Detail", "GET", "Allow", "https://media.example.com"} {
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
	}
	if res := get(t, "GET", detailPath(scripted.URLSlug)+"?format=json", "Accept", "text/html"); res.Header().Get("Content-Type") != "application/json" {
		t.Errorf("format=json gave %q", res.Header().Get("Content-Type"))
	}
	if res := get(t, "GET", detailPath(scripted.URLSlug)+"?format=yaml"); res.Code != 404 {
		t.Errorf("format=yaml gave %d", res.Code)
	}
}

// expected is the seed filtered by keep, in the list's order.
func expected(keep func(survey.Template) bool) []int64 {
	var ts []survey.Template
	for _, tpl := range catalog {
		if keep(tpl) {
			ts = append(ts, tpl)
		}
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Score != ts[j].Score {
			return ts[i].Score > ts[j].Score
		}
		return ts[i].ID < ts[j].ID
	})
	ids := make([]int64, len(ts))
	for i, tpl := range ts {
		ids[i] = tpl.ID
	}
	return ids
}

type page struct {
	Count    int               `json:"count"`
	Next     *string           `json:"next"`
	Previous *string           `json:"previous"`
	Results  []json.RawMessage `json:"results"`
}

func listIDs(t *testing.T, res result) (page, []int64) {
	t.Helper()
	var p page
	if err := json.Unmarshal(res.Body.Bytes(), &p); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	ids := []int64{}
	for _, raw := range p.Results {
		var item map[string]json.RawMessage
		_ = json.Unmarshal(raw, &item)
		if string(item["similar_templates"]) != "null" {
			t.Errorf("list item similar_templates = %s, want null", item["similar_templates"])
		}
		var id int64
		_ = json.Unmarshal(item["id"], &id)
		ids = append(ids, id)
	}
	return p, ids
}

func TestList(t *testing.T) {
	t.Parallel()
	setup(t)
	all := expected(func(survey.Template) bool { return true })
	if len(all) < 8 {
		t.Fatalf("the seed has %d templates, want at least 8", len(all))
	}
	firstCategory := catalog[0].Categories[0]
	tests := []struct {
		name, query string
		keep        func(survey.Template) bool
		page, size  int
	}{
		{"default", "", func(survey.Template) bool { return true }, 1, 20},
		{"page 2 of 5", "?page=2&page_size=5", func(survey.Template) bool { return true }, 2, 5},
		{"clamped page size", "?page_size=100000", func(survey.Template) bool { return true }, 1, 100},
		{"huge page size", "?page_size=99999999999999999999999", func(survey.Template) bool { return true }, 1, 100},
		{"english", "?language=4", func(t survey.Template) bool { return t.Language == 4 }, 1, 20},
		{"persian type 1", "?language=1&type=1", func(t survey.Template) bool { return t.Language == 1 && t.Type == 1 }, 1, 20},
		{"category", "?category=" + itoa(firstCategory), func(t survey.Template) bool { return slices.Contains(t.Categories, firstCategory) }, 1, 20},
		{"search", "?search=SURVEY", func(t survey.Template) bool { return strings.Contains(strings.ToLower(t.Title), "survey") }, 1, 20},
		{"search two words", "?search=" + url.QueryEscape(firstWords(catalog[0].Title, 2)), func(t survey.Template) bool { return containsAll(t.Title, firstWords(catalog[0].Title, 2)) }, 1, 20},
		{"nothing matches", "?search=zzzzqqq", func(survey.Template) bool { return false }, 1, 20},
		{"unknown language", "?language=99", func(survey.Template) bool { return false }, 1, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := get(t, "GET", "/api/templates/"+tt.query)
			if res.Code != 200 {
				t.Fatalf("%d: %s", res.Code, res.Body)
			}
			if res.dynamo != 1 {
				t.Errorf("DynamoDB calls = %d, want 1 (one catalog Query)", res.dynamo)
			}
			want := expected(tt.keep)
			p, got := listIDs(t, res)
			if p.Count != len(want) {
				t.Errorf("count = %d, want %d", p.Count, len(want))
			}
			start := min((tt.page-1)*tt.size, len(want))
			end := min(start+tt.size, len(want))
			if !slices.Equal(got, want[start:end]) {
				t.Errorf("ids = %v, want %v", got, want[start:end])
			}
			if (p.Next != nil) != (end < len(want)) {
				t.Errorf("next = %v with %d of %d shown", p.Next, end, len(want))
			}
			if p.Next != nil && !strings.HasPrefix(*p.Next, "http://example.com/api/templates/?") {
				t.Errorf("next is not absolute: %s", *p.Next)
			}
			if (p.Previous != nil) != (tt.page > 1) {
				t.Errorf("previous = %v on page %d", p.Previous, tt.page)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

func containsAll(title, words string) bool {
	for _, w := range strings.Fields(strings.ToLower(words)) {
		if !strings.Contains(strings.ToLower(title), w) {
			return false
		}
	}
	return true
}

func TestListBadInput(t *testing.T) {
	t.Parallel()
	invalidPage := `{"detail":"Invalid page."}`
	tests := []struct {
		query string
		want  int
		body  string
	}{
		{"?page=abc", 400, `{"page":["A valid integer is required."]}`},
		{"?page=1.5", 400, `{"page":["A valid integer is required."]}`},
		{"?page=", 400, `{"page":["A valid integer is required."]}`},
		{"?page_size=abc", 400, `{"page_size":["A valid integer is required."]}`},
		{"?page_size=0", 400, `{"page_size":["Ensure this value is greater than or equal to 1."]}`},
		{"?page_size=-5", 400, `{"page_size":["Ensure this value is greater than or equal to 1."]}`},
		{"?category=x&language=y", 400, `{"category":["A valid integer is required."],"language":["A valid integer is required."]}`},
		{"?type=1e3", 400, `{"type":["A valid integer is required."]}`},
		{"?page=0", 404, invalidPage},
		{"?page=-1", 404, invalidPage},
		{"?page=999", 404, invalidPage},
		{"?page=99999999999999999999999", 404, invalidPage},
		{"?page=2&search=zzzzqqq", 404, invalidPage},
		{"?format=xml", 404, `{"detail":"Not found."}`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			res := get(t, "GET", "/api/templates/"+tt.query)
			if res.Code != tt.want || strings.TrimSpace(res.Body.String()) != tt.body {
				t.Errorf("%s = %d %s, want %d %s", tt.query, res.Code, res.Body, tt.want, tt.body)
			}
		})
	}
	if res := get(t, "POST", "/api/templates/"); res.Code != 405 || res.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST list = %d Allow %q", res.Code, res.Header().Get("Allow"))
	}
}
