package pages

import (
	"slices"
	"strings"
	"testing"
)

// FuzzAcceptLanguage: any header parses without panic into lower-case
// primary subtags, each once, none of a range with q=0, never "*".
func FuzzAcceptLanguage(f *testing.F) {
	for _, s := range []string{"", "fa", "en-US,en;q=0.9,fa;q=0.8", "fa;q=0, en", "*;q=0.5", "AR;Q=1.0", ";;;,,,", "en;q=abc", "tr-TR;q=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tags := acceptLanguages(h)
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
		if got := strings.Join(acceptLanguages(tc.h), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.h, got, tc.want)
		}
	}
}

// FuzzFallbackMarks: text never writes a mark, whatever the string.
func FuzzFallbackMarks(f *testing.F) {
	f.Add("\ue000fa\ue001x")
	f.Add("a\ue000\ue000en\ue001b\ue001")
	f.Fuzz(func(t *testing.T, s string) {
		if out := string(text(s)); strings.Contains(out, fallbackOpen+"fa"+fallbackClose) || strings.Contains(out, fallbackOpen+"en"+fallbackClose) {
			t.Fatalf("%q wrote %q", s, out)
		}
	})
}

// TestFallbackMarkup: an untranslated text is a span of its own lang and
// dir in text, the attributes of an <option>; a translated one is plain.
func TestFallbackMarkup(t *testing.T) {
	m := markFallback("fa", "سلام <b>")
	if got := string(ltext(m)); got != `<span lang="fa" dir="rtl">سلام &lt;b&gt;</span>` {
		t.Errorf("ltext: %s", got)
	}
	if got := string(langAttrs(m)) + ">" + string(text(m)); got != ` lang="fa" dir="rtl">سلام &lt;b&gt;` {
		t.Errorf("option: %s", got)
	}
	if got := string(ltext("Hi")) + string(langAttrs("Hi")); got != "Hi" {
		t.Errorf("a plain text: %s", got)
	}
	if got := string(ltext("\ue000xx\ue001Hi")); got != "Hi" {
		t.Errorf("a mark of no language is dropped, never written: %q", got)
	}
}
