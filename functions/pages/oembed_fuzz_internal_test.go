package pages

import (
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
		slug := surveySlugOf(raw, "http://example.com")
		if slug != "" && (strings.Contains(slug, "/") || !strings.Contains(strings.ToLower(raw), "example.com")) {
			t.Fatalf("surveySlugOf(%q) = %q", raw, slug)
		}
	})
}
