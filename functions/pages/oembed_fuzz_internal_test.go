package pages

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzOEmbedURL: the url parameter of oEmbed is anyone's; surveySlugOf
// never panics and answers only a slug of a page of this host.
func FuzzOEmbedURL(f *testing.F) {
	for _, s := range []string{"http://example.com/s/abc/", "https://example.com/s/abc", "http://example.com/r/abc/",
		"http://other/s/abc/", "http://example.com/s//", "http://example.com/s/a/b/", "javascript:alert(1)", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/api/oembed/", nil)
		slug := surveySlugOf(r, raw)
		if slug != "" && (strings.Contains(slug, "/") || !strings.Contains(strings.ToLower(raw), "example.com")) {
			t.Fatalf("surveySlugOf(%q) = %q", raw, slug)
		}
	})
}
