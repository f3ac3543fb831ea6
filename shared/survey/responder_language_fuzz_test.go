package survey_test

import (
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// FuzzAcceptLanguage: any header parses without panic into lower-case
// primary subtags, each once, none of a range with q=0, never "*".
func FuzzAcceptLanguage(f *testing.F) {
	for _, s := range []string{"", "fa", "en-US,en;q=0.9,fa;q=0.8", "fa;q=0, en", "*;q=0.5", "AR;Q=1.0", ";;;,,,", "en;q=abc", "tr-TR;q=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tags := survey.AcceptLanguages(h)
		for i, tag := range tags {
			if tag == "" || tag == "*" || tag != strings.ToLower(tag) || strings.Contains(tag, "-") || slices.Contains(tags[:i], tag) {
				t.Fatalf("%q: tags %q", h, tags)
			}
		}
	})
}

// TestAcceptLanguage: the order by q-value, ties in the header's order.
func TestAcceptLanguage(t *testing.T) {
	for _, tc := range []struct{ h, want string }{
		{"", ""},
		{"fa-IR,fa;q=0.9,en-US;q=0.8,en;q=0.7", "fa en"},
		{"en;q=0.1, ar;q=0.5, tr", "tr ar en"},
		{"fa;q=0, en", "en"},
		{"en, fa-IR;q=0, fa;q=0.5", "en"},
		{"*, de;q=0.3", "de"},
		{"EN-gb", "en"},
	} {
		if got := strings.Join(survey.AcceptLanguages(tc.h), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.h, got, tc.want)
		}
	}
}
