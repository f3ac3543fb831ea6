package cdn_test

import (
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/cdn"
)

// TestName: a tenant's name is its domain while CloudFront's pattern
// admits it, else a fixed-length hash; either way within the pattern.
func TestName(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9-.]{1,126}[a-zA-Z0-9]$`)
	long := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 10) + ".example"
	tests := []struct{ domain, want string }{
		{"forms.acme.com", "forms.acme.com"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{long, ""},
	}
	for _, tt := range tests {
		got := cdn.Name(tt.domain)
		if tt.want != "" && got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.domain, got, tt.want)
		}
		if !pattern.MatchString(got) {
			t.Errorf("Name(%q) = %q, not a tenant name", tt.domain, got)
		}
	}
	if cdn.Name(long) == cdn.Name(long+"x") {
		t.Error("two long domains share a name")
	}
}
