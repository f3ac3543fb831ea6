package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
)

// getJSON is a GET as an oEmbed consumer sends it.
func (f fixture) getJSON(path string) result {
	ctx, calls := awsenv.WithCalls(context.Background())
	req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return result{rec.Code, rec.Header(), rec.Body.String(), calls}
}

// TestEmbedding: the responder's page may be framed by the sites of its
// survey's embed_origins (any, by default), and then carries no
// X-Frame-Options; the report and the not-found page are never framed.
func TestEmbedding(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	page := f.get("/s/" + f.sv.URLSlug + "/")
	if !strings.HasSuffix(page.header.Get("Content-Security-Policy"), "; frame-ancestors *") || page.header.Get("X-Frame-Options") != "" {
		t.Errorf("default page: policy %q, X-Frame-Options %q", page.header.Get("Content-Security-Policy"), page.header.Get("X-Frame-Options"))
	}
	err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{Set: map[string]any{
		"embed_origins": []string{"https://blog.example.com", "http://127.0.0.1:8080"}}})
	if err != nil {
		t.Fatal(err)
	}
	page = f.get("/s/" + f.sv.URLSlug + "/")
	if csp := page.header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "; frame-ancestors https://blog.example.com http://127.0.0.1:8080") {
		t.Errorf("page with embed_origins: policy %q", csp)
	}
	for _, p := range []string{"/r/" + f.sv.ReportCode + "/", "/s/nosuchslug/"} {
		r := f.get(p)
		if csp := r.header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "; frame-ancestors 'none'") || r.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: policy %q, X-Frame-Options %q; want never framed", p, csp, r.header.Get("X-Frame-Options"))
		}
	}
}

// TestOEmbed: oEmbed 1.0 of a live survey's page, found by the page's own
// discovery link; other addresses 404, format xml 501.
func TestOEmbed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	page := f.get("/s/" + f.sv.URLSlug + "/")
	m := regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)" title="Pages">`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("the page has no oEmbed discovery link: %.600s", page.body)
	}
	link := html.UnescapeString(m[1])
	u, err := url.Parse(link)
	if err != nil || u.Path != "/api/oembed/" || u.Query().Get("format") != "json" {
		t.Fatalf("discovery link %q", link)
	}
	r := f.getJSON(u.RequestURI())
	if r.code != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("oEmbed: %d %s", r.code, r.body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	pageURL := "http://example.com/s/" + f.sv.URLSlug + "/"
	if got["version"] != "1.0" || got["type"] != "rich" || got["title"] != "Pages" || got["width"] != 640.0 || got["height"] != 600.0 ||
		got["provider_name"] == "" || !strings.Contains(got["html"].(string), `<iframe src="`+pageURL+`"`) {
		t.Errorf("oEmbed answer %v", got)
	}
	q := url.Values{"url": {pageURL + "?qs=abc"}, "maxwidth": {"400"}, "maxheight": {"300"}}
	r = f.getJSON("/api/oembed/?" + q.Encode())
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || got["width"] != 400.0 || got["height"] != 300.0 ||
		!strings.Contains(got["html"].(string), `?qs=abc"`) {
		t.Errorf("bounded oEmbed: %d %s", r.code, r.body)
	}
	if r.calls.DynamoDB() > 1 {
		t.Errorf("oEmbed made %d DynamoDB calls, want 1 (the slug is cached)", r.calls.DynamoDB())
	}
	for _, c := range []struct {
		query string
		code  int
	}{
		{"url=" + url.QueryEscape(pageURL) + "&format=xml", 501},
		{"url=" + url.QueryEscape("http://example.com/s/nosuchslug/"), 404},
		{"url=" + url.QueryEscape("http://elsewhere.example/s/"+f.sv.URLSlug+"/"), 404},
		{"url=" + url.QueryEscape("http://example.com/r/"+f.sv.ReportCode+"/"), 404},
		{"url=" + url.QueryEscape(pageURL) + "&maxwidth=0", 400},
		{"", 400},
	} {
		if r := f.getJSON("/api/oembed/?" + c.query); r.code != c.code {
			t.Errorf("oEmbed ?%s: %d %s, want %d", c.query, r.code, r.body, c.code)
		}
	}
	stopped := true
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{IsStopped: &stopped}); err != nil {
		t.Fatal(err)
	}
	if r := f.getJSON("/api/oembed/?url=" + url.QueryEscape(pageURL)); r.code != 404 {
		t.Errorf("oEmbed of a stopped survey: %d, want 404", r.code)
	}
}

// TestPreviewPage: a template survey's page says it is a preview, counts
// no view, and its plain form stores nothing.
func TestPreviewPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	ctx := context.Background()
	if err := f.st.SetCatalogAccount(ctx, f.aid); err != nil {
		t.Fatal(err)
	}
	tpl := fmt.Sprintf(`[{"id":1,"score":1,"is_general":true,"long_description":"","short_description":"","title":"T","title_color":1,
		"embedding_link":"https://example.com/t","thumbnail_image":"","url_slug":"t","categories":[],"usage_guide":"","language":4,"type":1,"survey_id":%d}]`, f.sv.ID)
	if _, err := f.st.ImportTemplates(ctx, []byte(tpl)); err != nil {
		t.Fatal(err)
	}
	page := f.get("/s/" + f.sv.URLSlug + "/")
	if page.code != 200 || !strings.Contains(page.body, "This is a preview: answers are not saved.") {
		t.Fatalf("template page: %d %.400s", page.code, page.body)
	}
	body := fmt.Sprintf("idempotency_key=p1&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)
	req := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "This is a preview: answers are not saved.") {
		t.Errorf("plain form to a template: %d %.300s", rec.Code, rec.Body)
	}
	if a, err := f.st.Aggregates(ctx, f.sv.ID); err != nil || a.Responses != 0 {
		t.Errorf("after a preview: %+v, %v", a, err)
	}
	if sv, err := f.st.Survey(ctx, f.aid, f.sv.ID); err != nil || sv.Views != 0 || sv.SubmittedResponses != 0 {
		t.Errorf("template survey: views %d, responses %d, %v", sv.Views, sv.SubmittedResponses, err)
	}
}

// TestOEmbedInLanguage: contract sections 17 and 24. The oEmbed title (and
// the iframe's title) of an address with ?lang= one of the survey's
// languages is the survey's name in that language, the default's name
// where that language has none; any other ?lang= is ignored, as on the
// page, and the first of repeated ones counts. The frame keeps the query,
// so it shows the page in that language. No DynamoDB call more: the
// translations come with the collection oEmbed reads anyway.
func TestOEmbedInLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1) // an en survey named "Pages"
	f.nameIn(t, "fa", "نظرسنجی <صفحه‌ها>", "fa", "ar")
	pageURL := "http://example.com/s/" + f.sv.URLSlug + "/"
	f.getJSON("/api/oembed/?" + url.Values{"url": {pageURL}}.Encode()) // warms the slug's cache
	for _, tc := range []struct {
		name, query, title string
	}{
		{"no lang: the default's name", "", "Pages"},
		{"a translated name", "?lang=fa", "نظرسنجی <صفحه‌ها>"},
		{"a language without a name: the default's", "?lang=ar", "Pages"},
		{"the default named", "?lang=en", "Pages"},
		{"another case: ignored", "?lang=FA", "Pages"},
		{"a language the survey does not speak: ignored", "?lang=tr", "Pages"},
		{"the first of repeated ones", "?lang=fa&lang=ar", "نظرسنجی <صفحه‌ها>"},
		{"beside a personalised link", "?qs=abc&lang=fa", "نظرسنجی <صفحه‌ها>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.getJSON("/api/oembed/?" + url.Values{"url": {pageURL + tc.query}}.Encode())
			var got struct{ Title, HTML string }
			if r.code != 200 || json.Unmarshal([]byte(r.body), &got) != nil {
				t.Fatalf("oEmbed: %d %s", r.code, r.body)
			}
			if got.Title != tc.title || !strings.Contains(got.HTML, ` title="`+html.EscapeString(tc.title)+`"`) {
				t.Errorf("title %q, html %s; want %q", got.Title, got.HTML, tc.title)
			}
			if r.calls.DynamoDB() > 1 {
				t.Errorf("oEmbed made %d DynamoDB calls, want 1 (the slug is cached)", r.calls.DynamoDB())
			}
		})
	}
	// The page in a language names it to oEmbed's discovery: its embed
	// is titled in that language too.
	for query, want := range map[string]string{"?lang=fa": pageURL + "?lang=fa", "": pageURL} {
		r := f.get("/s/" + f.sv.URLSlug + "/" + query)
		disc := regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)"`).FindStringSubmatch(r.body)
		if r.code != 200 || disc == nil {
			t.Fatalf("the page%s: %d, discovery link %v", query, r.code, disc)
		}
		u, err := url.Parse(html.UnescapeString(disc[1]))
		if err != nil || u.Query().Get("url") != want {
			t.Errorf("the page%s names %s to oEmbed, want %s", query, u.Query().Get("url"), want)
		}
	}
}
