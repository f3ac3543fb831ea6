package mobile

import "testing"

// TestAdmits: the ranges the outside test sent to (issue 38) and the
// non-geographic ones section 18 names are refused; mobiles of real
// countries (and the North American plan's fixed-line-or-mobile) admitted.
func TestAdmits(t *testing.T) {
	for _, c := range []struct {
		number string
		want   bool
	}{
		{"+989121234567", true},  // Iran, mobile
		{"+447911123456", true},  // United Kingdom, mobile
		{"+4915123456789", true}, // Germany, mobile
		{"+12025550173", true},   // United States: fixed line or mobile
		{"+14165550123", true},   // Canada: fixed line or mobile
		{"+8821234567890", false},
		{"+881612345678", false},
		{"+979123456789", false},
		{"+19005550123", false},  // US premium rate
		{"+449091234567", false}, // UK premium rate
		{"+80012345678", false},  // international toll-free
		{"+80812345678", false},  // international shared cost
		{"+870773111632", false}, // Inmarsat
		{"+88234567890123", false},
		{"+883510012345", false},
		{"+18005550123", false},  // US toll-free
		{"+442079460123", false}, // UK fixed line
		{"+982112345678", false}, // Tehran fixed line
		{"+99912345678", false},  // unassigned country code
		{"", false}, {"+", false}, {"989121234567", false},
	} {
		if got := Admits(c.number); got != c.want {
			t.Errorf("Admits(%q) = %v, want %v", c.number, got, c.want)
		}
	}
}

// FuzzAdmits: any text, answered without a panic; what it admits is E.164.
func FuzzAdmits(f *testing.F) {
	for _, s := range []string{"+989121234567", "+882", "+1900", "", "++1", "+00000000000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Admits(s) && (len(s) < 9 || s[0] != '+') {
			t.Errorf("admitted %q", s)
		}
	})
}
