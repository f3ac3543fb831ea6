package survey_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"surveyservice/shared/survey"
)

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
