package pages

import (
	"strings"
	"testing"
)

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
