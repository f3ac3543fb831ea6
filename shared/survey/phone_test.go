package survey_test

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func TestNormalizePhone(t *testing.T) {
	for _, tt := range []struct {
		name, in, lang, want string // want "" means invalid
	}{
		{"E164", "+989121234567", "en", "+989121234567"},
		{"ShortestE164", "+12345678", "en", "+12345678"},
		{"LongestE164", "+123456789012345", "en", "+123456789012345"},
		{"TooShort", "+1234567", "en", ""},
		{"TooLong", "+1234567890123456", "en", ""},
		{"LeadingZeroAfterPlus", "+0123456789", "en", ""},
		{"DoubleZero", "00989121234567", "en", "+989121234567"},
		{"DoubleZeroThenZero", "000989121234567", "en", ""},
		{"DoubleZeroTooShort", "001234567", "en", ""},
		{"SpacesDashesParens", " +1 (415) 555-0100 ", "en", "+14155550100"},
		{"TabAndNoBreakSpace", "+44\t20\u00a07946 0958", "en", "+442079460958"},
		{"PersianDigits", "+۹۸۹۱۲۱۲۳۴۵۶۷", "en", "+989121234567"},
		{"ArabicIndicDigits", "+٩٦٦٥٠١٢٣٤٥٦٧", "ar", "+966501234567"},
		{"MixedDigits", "+98۹۱٢1234567", "en", "+989121234567"},
		{"IranNationalOnFa", "09121234567", "fa", "+989121234567"},
		{"IranNationalPersianDigits", "۰۹۱۲ ۱۲۳ ۴۵۶۷", "fa", "+989121234567"},
		{"IranNationalNotOnEn", "09121234567", "en", ""},
		{"IranNationalNotOnAr", "09121234567", "ar", ""},
		{"IranNationalTooShort", "0912123456", "fa", ""},
		{"IranNationalTooLong", "091212345678", "fa", ""},
		{"IranLandlineForm", "02112345678", "fa", ""},
		{"NoPrefix", "4155550100", "en", ""},
		{"PlusInside", "+1415+5550100", "en", ""},
		{"TwoPluses", "++14155550100", "en", ""},
		{"Letters", "+1415555CALL", "en", ""},
		{"Dot", "+1.415.555.0100", "en", ""},
		{"Empty", "", "en", ""},
		{"OnlyPlus", "+", "en", ""},
		{"OnlySeparators", " - ( ) ", "en", ""},
		{"FullWidthDigits", "+１４１５５５５０１００", "en", ""},
		{"SeparatorsPastTheBound", "+14155550100" + strings.Repeat(" ", 60), "en", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := survey.NormalizePhone(tt.in, tt.lang)
			if tt.want == "" {
				if ok {
					t.Fatalf("NormalizePhone(%q, %q) = %q, want invalid", tt.in, tt.lang, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Fatalf("NormalizePhone(%q, %q) = %q, %v; want %q", tt.in, tt.lang, got, ok, tt.want)
			}
		})
	}
}

// isE164 is the contract's E.164, written independently of the normaliser.
func isE164(s string) bool {
	if len(s) < 9 || len(s) > 16 || s[0] != '+' || s[1] < '1' || s[1] > '9' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FuzzNormalizePhone: whatever the input and language, an accepted number
// is valid E.164 and normalises to itself again, in every language.
func FuzzNormalizePhone(f *testing.F) {
	for _, s := range []string{"+989121234567", "00989121234567", "09121234567", "۰۹۱۲۱۲۳۴۵۶۷",
		"+٩٦٦٥٠١٢٣٤٥٦٧", " +1 (415) 555-0100", "+0123", "0", "+"} {
		f.Add(s, "fa")
		f.Add(s, "en")
	}
	f.Fuzz(func(t *testing.T, in, lang string) {
		got, ok := survey.NormalizePhone(in, lang)
		if !ok {
			if got != "" {
				t.Fatalf("NormalizePhone(%q, %q) refused but answered %q", in, lang, got)
			}
			return
		}
		if !isE164(got) {
			t.Fatalf("NormalizePhone(%q, %q) = %q, not E.164", in, lang, got)
		}
		for _, l := range []string{lang, "fa", "en"} {
			if again, ok := survey.NormalizePhone(got, l); !ok || again != got {
				t.Fatalf("NormalizePhone(%q, %q) = %q, %v; want %q unchanged", got, l, again, ok, got)
			}
		}
	})
}

// TestNormalizePhoneDashesAndDirectionMarks: section 18 drops "spaces,
// dashes and parentheses" before reading a number, but only the ASCII
// hyphen counted as a dash, so "0912–123–4567" (an en dash, as a word
// processor writes it) was "Enter a valid mobile number.", and so was a
// number copied out of Persian or Arabic text, which carries the invisible
// direction marks that keep its digits left to right (U+200E, U+202A ...
// U+202C, U+2066 ... U+2069, U+061C). Found by hostile10 posting such
// numbers to a fa survey's phone list. Every Unicode dash and every bidi
// formatting character is now dropped with the spaces; other characters
// still refuse the number.
func TestNormalizePhoneDashesAndDirectionMarks(t *testing.T) {
	for _, tt := range []struct {
		name, in, lang, want string // want "" means invalid
	}{
		{"EnDash", "0912\u2013123\u20134567", "fa", "+989121234567"},
		{"Hyphen", "+98\u2010912\u20101234567", "en", "+989121234567"},
		{"NonBreakingHyphen", "+98\u2011912\u20111234567", "en", "+989121234567"},
		{"FigureDash", "+1\u2012415\u2012555\u20120100", "en", "+14155550100"},
		{"EmDash", "+1\u2014415\u2014555\u20140100", "en", "+14155550100"},
		{"FullwidthHyphenMinus", "+1\uff0d415\uff0d5550100", "en", "+14155550100"},
		{"LeftToRightMark", "\u200e۰۹۱۲۱۲۳۴۵۶۷", "fa", "+989121234567"},
		{"RightToLeftMark", "\u200f+98 912 123 4567\u200f", "fa", "+989121234567"},
		{"EmbeddingAndPop", "\u202a+989121234567\u202c", "fa", "+989121234567"},
		{"OverrideAndPop", "\u202d+989121234567\u202c", "en", "+989121234567"},
		{"IsolateAndPop", "\u2066+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧\u2069", "ar", "+966501234567"},
		{"FirstStrongIsolate", "\u2068+989121234567\u2069", "en", "+989121234567"},
		{"ArabicLetterMark", "\u061c+966501234567", "ar", "+966501234567"},
		{"MarksInside", "+98\u200e912\u200f123\u200e4567", "en", "+989121234567"},
		{"ZeroWidthNonJoinerStillRefused", "+98\u200c9121234567", "en", ""},
		{"MinusSignStillRefused", "+1\u2212415\u22125550100", "en", ""},
		{"OnlyMarksAndDashes", "\u200e\u2013\u200f", "en", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := survey.NormalizePhone(tt.in, tt.lang)
			if tt.want == "" {
				if ok {
					t.Fatalf("NormalizePhone(%q, %q) = %q, want invalid", tt.in, tt.lang, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Fatalf("NormalizePhone(%q, %q) = %q, %v; want %q", tt.in, tt.lang, got, ok, tt.want)
			}
		})
	}
}
