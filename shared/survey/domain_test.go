package survey_test

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestNormalizeDomain: the names DNS would look up, and what is no domain.
func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"forms.acme.com", "forms.acme.com"},
		{" FORMS.Acme.COM. ", "forms.acme.com"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"BÜCHER.example", "xn--bcher-kva.example"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"a-b.c0m", "a-b.c0m"},
		{"localhost", ""},
		{"192.0.2.1", ""},
		{"1.2.3.999", ""},
		{"[2001:db8::1]", ""},
		{"::1", ""},
		{"a.b:80", ""},
		{"a..b", ""},
		{"*.acme.com", ""},
		{"_dmarc.acme.com", ""},
		{"acme.com/x", ""},
		{"-a.com", ""},
		{"a-.com", ""},
		{strings.Repeat("a", 64) + ".com", ""},
		{strings.Repeat("abcdefghi.", 26) + "com", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := survey.NormalizeDomain(tt.raw)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("NormalizeDomain(%q) = %q, %v; want %q", tt.raw, got, ok, tt.want)
		}
	}
	own := []string{"survey.example", "domains.survey.example"}
	for raw, field := range map[string]string{"survey.example": "belongs", "x.SURVEY.example": "belongs", "survey.example.org": "", "notsurvey.example": ""} {
		_, err := survey.CheckDomain(raw, own)
		if (err != nil) != (field != "") || err != nil && !strings.Contains(err.Error(), "domain") {
			t.Errorf("CheckDomain(%q) = %v", raw, err)
		}
	}
}

// FuzzNormalizeDomain: whatever a client sends, a domain that passes is
// lower-case ASCII host labels (punycode), two or more, no IP address, and
// normalizing it again changes nothing.
func FuzzNormalizeDomain(f *testing.F) {
	for _, s := range []string{"forms.acme.com", "FORMS.Acme.COM.", "bücher.example", "192.0.2.1", "[::1]", "a..b", "*.x.com",
		"xn--bcher-kva.example", "a.b:80", "ا.مثال", "x.10", "\x00.com", strings.Repeat("a.", 200) + "com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, ok := survey.NormalizeDomain(raw)
		if !ok {
			return
		}
		if d != strings.ToLower(d) || strings.Count(d, ".") < 1 || len(d) > 253 {
			t.Fatalf("%q -> %q", raw, d)
		}
		for _, c := range []byte(d) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
				t.Fatalf("%q -> %q has %q", raw, d, c)
			}
		}
		if again, ok := survey.NormalizeDomain(d); !ok || again != d {
			t.Fatalf("%q -> %q -> %q %v", raw, d, again, ok)
		}
		if _, err := survey.CheckDomain(raw, []string{d}); err == nil {
			t.Fatalf("%q passed though it is the service's own", raw)
		}
	})
}
