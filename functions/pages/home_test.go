package pages_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"surveyservice/functions/pages"
)

// TestHome is the page at / (what the service is, links to the OpenAPI
// document, the browsable API and the docs) and the docs it links to.
func TestHome(t *testing.T) {
	h := pages.New(pages.Deps{})
	get := func(path string) (int, http.Header, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, rec.Header(), string(b)
	}
	tests := []struct {
		path, contentType string
		status            int
		want              []string
	}{
		{"/", "text/html; charset=utf-8", 200, []string{`<h1>Survey Service</h1>`, `href="/api/schema/"`, `href="/api/templates/?format=api"`, `href="/docs/"`}},
		{"/docs/", "text/html; charset=utf-8", 200, []string{`<li><a href="/docs/local/">`, "The API, by resource", `href="/docs/operating/"`}},
		{"/docs/api/", "text/html; charset=utf-8", 200, []string{`<h1 id="the-api-by-resource">The API, by resource</h1>`, `<table tabindex="0">`, `aria-current="page"`, `rel="next"`}},
		{"/docs/images/page.png/", "image/png", 200, nil},
		{"/docs/images/nothing.png/", "text/html; charset=utf-8", 404, nil},
		{"/docs/nothing/", "text/html; charset=utf-8", 404, []string{"Not found"}},
		{"/docs/..%2fREADME/", "", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, header, body := get(tt.path)
			if status != tt.status || tt.contentType != "" && header.Get("Content-Type") != tt.contentType {
				t.Fatalf("GET %s: %d %s, want %d %s\n%s", tt.path, status, header.Get("Content-Type"), tt.status, tt.contentType, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s lacks %q", tt.path, w)
				}
			}
		})
	}
}

// TestFooterLinksHome: the survey page's footer ("Made with Survey
// Service") leads to the home page, not to a 404.
func TestFooterLinksHome(t *testing.T) {
	f := newFixture(t, 1)
	page := f.get("/s/" + f.sv.URLSlug + "/")
	_, after, ok := strings.Cut(page.body, `<footer class="brand"><a href="`)
	href, _, _ := strings.Cut(after, `"`)
	if !ok || href != "/" {
		t.Fatalf("the footer links to %q, want the home page /", href)
	}
	if home := f.get(href); home.code != http.StatusOK || !strings.Contains(home.body, "<h1>Survey Service</h1>") {
		t.Errorf("the footer's link answers %d:\n%s", home.code, home.body)
	}
}

// TestDocsSite: every topic is a page of the site whose every link leads
// somewhere: another topic (with the heading its anchor names), a picture,
// a page of the service, or an address outside; the contents list is in
// reading order, local first; no Markdown shows through (a table's pipes,
// a heading's #).
func TestDocsSite(t *testing.T) {
	h := pages.New(pages.Deps{})
	get := func(path string) (int, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	_, index := get("/docs/")
	topics := regexp.MustCompile(`<li><a href="/docs/([a-z-]+)/">`).FindAllStringSubmatch(index, -1)
	if len(topics) < 10 || topics[0][1] != "local" || topics[1][1] != "api" {
		t.Fatalf("the contents list: %v; want the topics in reading order, local and api first", topics)
	}
	ids := map[string]bool{}
	bodies := map[string]string{}
	for _, m := range topics {
		code, body := get("/docs/" + m[1] + "/")
		if code != 200 {
			t.Fatalf("/docs/%s/ = %d", m[1], code)
		}
		bodies[m[1]] = body
		for _, id := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			ids[m[1]+"#"+id[1]] = true
		}
		article := regexp.MustCompile(`(?s)<pre[^>]*>.*?</pre>`).ReplaceAllString(body[strings.Index(body, "<article>"):strings.Index(body, "</article>")], "")
		for _, leak := range []string{"\n| ", "\n# ", "\n## ", "](", "<p>|"} {
			if strings.Contains(article, leak) {
				t.Errorf("/docs/%s/ shows Markdown (%q)", m[1], leak)
			}
		}
	}
	for name, body := range bodies {
		for _, m := range regexp.MustCompile(`<(?:a|img) [^>]*(?:href|src)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
			link := html.UnescapeString(m[1])
			switch {
			case strings.HasPrefix(link, "https://"), strings.HasPrefix(link, "http://"), strings.HasPrefix(link, "mailto:"):
			case strings.HasPrefix(link, "/api/"): // another function's route (the OpenAPI document)
			case strings.HasPrefix(link, "#"):
				if !ids[name+link] {
					t.Errorf("/docs/%s/ links to %s, which is no heading of it", name, link)
				}
			case strings.HasPrefix(link, "/docs/") && !strings.HasPrefix(link, "/docs/images/") && link != "/docs/":
				topic, frag, _ := strings.Cut(strings.TrimPrefix(link, "/docs/"), "#")
				topic = strings.TrimSuffix(topic, "/")
				if _, ok := bodies[topic]; !ok {
					t.Errorf("/docs/%s/ links to %s, no topic", name, link)
				} else if frag != "" && !ids[topic+"#"+frag] {
					t.Errorf("/docs/%s/ links to %s, no heading of that topic", name, link)
				}
			case strings.HasPrefix(link, "/"):
				if code, _ := get(link); code != 200 {
					t.Errorf("/docs/%s/ links to %s, which answers %d", name, link, code)
				}
			default:
				t.Errorf("/docs/%s/ has a relative link %q, dead on the site", name, link)
			}
		}
	}
}
