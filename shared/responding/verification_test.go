package responding_test

import (
	"bytes"
	"strings"
	"testing"

	"surveyservice/shared/responding"
)

var verificationCases = []responding.Verification{
	{ID: [16]byte{1}, Channel: responding.ChannelEmail, Identity: "a@example.com", Session: [32]byte{2}, ExpiresAt: 1_800_000_000},
	{ID: [16]byte{0xff}, Channel: responding.ChannelSMS, Identity: "+989121234567", Session: [32]byte{3}, ExpiresAt: 1},
	{Channel: responding.ChannelEmail, Identity: strings.Repeat("e", responding.MaxEmail), ExpiresAt: 1 << 40},
}

func TestVerificationRoundTrip(t *testing.T) {
	t.Parallel()
	for i, v := range verificationCases {
		enc := v.Encode()
		got, err := responding.DecodeVerification(enc)
		if err != nil || got != v {
			t.Fatalf("case %d: %+v, %v; want %+v", i, got, err, v)
		}
		for n := range len(enc) {
			if _, err := responding.DecodeVerification(enc[:n]); err == nil && n < len(enc)-len(v.Identity)+1 {
				t.Fatalf("case %d: a prefix of %d bytes decoded", i, n)
			}
		}
	}
}

// FuzzDecodeVerification: DecodeVerification never panics, and what it
// accepts is canonical: it re-encodes to exactly its input.
func FuzzDecodeVerification(f *testing.F) {
	for _, v := range verificationCases {
		f.Add(v.Encode())
	}
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := responding.DecodeVerification(b)
		if err != nil {
			return
		}
		if v.Identity == "" || len(v.Identity) > responding.MaxEmail || v.ExpiresAt <= 0 {
			t.Fatalf("DecodeVerification(% x) = %+v", b, v)
		}
		if enc := v.Encode(); !bytes.Equal(enc, b) {
			t.Fatalf("DecodeVerification(% x) = %+v, which encodes as % x", b, v, enc)
		}
	})
}

func TestCodeDigits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"123456", "123456", true},
		{" 123 456 ", "123456", true},
		{"۱۲۳۴۵۶", "123456", true},
		{"١٢٣٤٥٦", "123456", true},
		{"12345", "", false},
		{"1234567", "", false},
		{"12345a", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := responding.CodeDigits(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CodeDigits(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzCodeDigits: an accepted code is 6 ASCII digits.
func FuzzCodeDigits(f *testing.F) {
	f.Add("۱۲۳۴۵۶")
	f.Add("12 34 56")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := responding.CodeDigits(s)
		if !ok {
			return
		}
		if len(got) != 6 || strings.Trim(got, "0123456789") != "" {
			t.Fatalf("CodeDigits(%q) = %q", s, got)
		}
	})
}
