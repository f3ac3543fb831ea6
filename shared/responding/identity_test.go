package responding_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"surveyservice/shared/responding"
)

func TestEmailIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		address string
		domains []string
		want    string
		err     error
	}{
		{"lower-cased", "Ana.Smith@Example.COM", nil, "ana.smith@example.com", nil},
		{"spaces trimmed", "  a@example.com\t", nil, "a@example.com", nil},
		{"unicode domain by punycode", "a@bücher.example", nil, "a@xn--bcher-kva.example", nil},
		{"punycode kept", "a@xn--bcher-kva.example", nil, "a@xn--bcher-kva.example", nil},
		{"plus and atext", "a+b!#$%&'*/=?^_`{|}~-c@example.com", nil, "a+b!#$%&'*/=?^_`{|}~-c@example.com", nil},
		{"no at", "example.com", nil, "", responding.ErrInvalidEmail},
		{"empty local", "@example.com", nil, "", responding.ErrInvalidEmail},
		{"empty", "", nil, "", responding.ErrInvalidEmail},
		{"one label", "a@localhost", nil, "", responding.ErrInvalidEmail},
		{"two ats", "a@b@example.com", nil, "", responding.ErrInvalidEmail},
		{"leading dot", ".a@example.com", nil, "", responding.ErrInvalidEmail},
		{"double dot", "a..b@example.com", nil, "", responding.ErrInvalidEmail},
		{"space inside", "a b@example.com", nil, "", responding.ErrInvalidEmail},
		{"quoted local", `"a"@example.com`, nil, "", responding.ErrInvalidEmail},
		{"unicode local", "ali‌@example.com", nil, "", responding.ErrInvalidEmail},
		{"local too long", strings.Repeat("a", 65) + "@example.com", nil, "", responding.ErrInvalidEmail},
		{"bad label", "a@-x.example.com", nil, "", responding.ErrInvalidEmail},
		{"numeric tld", "a@1.2.3.4", nil, "", responding.ErrInvalidEmail},
		{"domain listed", "A@Company.Example", []string{"*@company.example"}, "a@company.example", nil},
		{"pattern case-insensitive", "a@company.example", []string{"*@COMPANY.example"}, "a@company.example", nil},
		{"second pattern", "a@b.example", []string{"*@a.example", "*@b.example"}, "a@b.example", nil},
		{"subdomain refused", "a@sub.example.com", []string{"*@example.com"}, "", responding.ErrAddressRefused},
		{"parent refused", "a@example.com", []string{"*@sub.example.com"}, "", responding.ErrAddressRefused},
		{"suffix is not a domain", "a@badexample.com", []string{"*@example.com"}, "", responding.ErrAddressRefused},
		{"unicode pattern, punycode address", "a@xn--bcher-kva.example", []string{"*@bücher.example"}, "a@xn--bcher-kva.example", nil},
		{"punycode pattern, unicode address", "a@BÜCHER.example", []string{"*@xn--bcher-kva.example"}, "a@xn--bcher-kva.example", nil},
		{"malformed before domains", "nope", []string{"*@example.com"}, "", responding.ErrInvalidEmail},
		// Copied out of Persian or Arabic text, an address carries the
		// invisible direction marks around it (or inside): read without
		// them, as a mobile number is (hostile10).
		{"LRM around", "\u200ea@example.com\u200e", nil, "a@example.com", nil},
		{"embedding marks", "\u202aali@example.com\u202c", nil, "ali@example.com", nil},
		{"isolates and RLM inside", "\u2066ali\u200f@example\u200e.com\u2069", nil, "ali@example.com", nil},
		{"marks and spaces", " \u200f a@example.com \u200f ", nil, "a@example.com", nil},
		{"only marks", "\u200e\u200f", nil, "", responding.ErrInvalidEmail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := responding.EmailIdentity(tt.address, tt.domains)
			if !errors.Is(err, tt.err) && err != tt.err {
				t.Fatalf("EmailIdentity(%q, %q) error %v, want %v", tt.address, tt.domains, err, tt.err)
			}
			if got != tt.want {
				t.Fatalf("EmailIdentity(%q, %q) = %q, want %q", tt.address, tt.domains, got, tt.want)
			}
		})
	}
}

// FuzzEmailIdentity: an identity is ASCII, lower-case, bounded, and its
// own identity (normalising twice changes nothing); with a domains list
// it is admitted by the pattern of its own domain.
func FuzzEmailIdentity(f *testing.F) {
	for _, s := range []string{"a@example.com", "A@BÜCHER.example", "a..b@x.y", "@", "a@b@c.d", "x@xn--bcher-kva.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, address string) {
		got, err := responding.EmailIdentity(address, nil)
		if err != nil {
			if got != "" {
				t.Fatalf("EmailIdentity(%q) = %q with error %v", address, got, err)
			}
			return
		}
		if !utf8.ValidString(got) || len(got) > responding.MaxEmail || strings.ToLower(got) != got {
			t.Fatalf("EmailIdentity(%q) = %q", address, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] >= 0x80 {
				t.Fatalf("EmailIdentity(%q) = %q: not ASCII", address, got)
			}
		}
		again, err := responding.EmailIdentity(got, nil)
		if err != nil || again != got {
			t.Fatalf("EmailIdentity(%q) = %q, %v; want itself", got, again, err)
		}
		_, domain, _ := strings.Cut(got, "@")
		if in, err := responding.EmailIdentity(address, []string{"*@" + domain}); err != nil || in != got {
			t.Fatalf("EmailIdentity(%q, *@%s) = %q, %v", address, domain, in, err)
		}
	})
}
