package pages_test

import (
	"io"
	"net/http"
	"net/http/httptest"
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
		{"/docs/", "text/html; charset=utf-8", 200, []string{`href="/docs/api/"`, "The API, by resource", `href="/docs/operating/"`}},
		{"/docs/api/", "text/plain; charset=utf-8", 200, []string{"# The API, by resource"}},
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
