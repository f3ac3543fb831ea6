package survey_test

import (
	"fmt"
	"testing"

	"surveyservice/shared/survey"
)

func TestValidDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"00:00:00", true},
		{"99:59:59", true},
		{"24:59:59", true},
		{"01:02:03", true},
		{"00:59:00", true},
		{"24:60:00", false},
		{"00:60:00", false},
		{"00:00:60", false},
		{"00:99:00", false},
		{"1:2:3", false},
		{"-01:00:00", false},
		{"0:00:00", false},
		{"000:00:00", false},
		{"100:00:00", false},
		{"aa:bb:cc", false},
		{"", false},
		{"00:00", false},
		{"00-00-00", false},
		{"00:00:00 ", false},
		{" 00:00:00", false},
		{"00:00:0a", false},
		{"+1:00:00", false},
		{"١٢:٣٤:٥٦", false},
		{"00:00:00\n", false},
		{"00:00:00.5", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			t.Parallel()
			if got := survey.ValidDuration(tt.in); got != tt.want {
				t.Errorf("ValidDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidHTTPURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"http://example.com", true},
		{"https://example.com", true},
		{"https://example.com/", true},
		{"https://media.example.com/a/b.png?x=1&y=2#top", true},
		{"http://example.com:8080/path", true},
		{"https://127.0.0.1/x", true},
		{"https://[::1]:443/x", true},
		{"https://www.youtube.com/watch?v=abc", true},
		{"https://example.com/%D8%B3%D9%84%D8%A7%D9%85", true},
		{"ftp://x", false},
		{"ftp://example.com/file", false},
		{"/relative", false},
		{"relative/path", false},
		{"example.com", false},
		{"//example.com/x", false},
		{"javascript:alert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"mailto:a@example.com", false},
		{"http://", false},
		{"https://", false},
		{"http:// x", false},
		{"http://exa mple.com", false},
		{"http://example.com/a b", false},
		{"http://example.com/\x00", false},
		{"http://example.com/\t", false},
		{"http://example.com/\x7f", false},
		{"https://user:pw@host", false},
		{"https://user@host", false},
		{"https:example.com", false},
		{"http:/example.com", false},
		{"http://[::1", false},
		{"", false},
		{" https://example.com", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			t.Parallel()
			if got := survey.ValidHTTPURL(tt.in); got != tt.want {
				t.Errorf("ValidHTTPURL(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
