package survey

import (
	"encoding/json"
	"strings"
	"testing"
)

// holdsNUL walks a decoded JSON value for a NUL in a string or a key.
func holdsNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, 0)
	case []any:
		for _, it := range x {
			if holdsNUL(it) {
				return true
			}
		}
	case map[string]any:
		for k, it := range x {
			if strings.ContainsRune(k, 0) || holdsNUL(it) {
				return true
			}
		}
	}
	return false
}

// FuzzContainsNUL: on every valid JSON value, ContainsNUL's scan of the
// escapes agrees with decoding the value and looking at its strings (an
// escaped backslash before "u0000" is text, not a NUL).
func FuzzContainsNUL(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u0000"`, `"\\u0000"`, `"\\\u0000"`, `["x",{"id":1,"text":"a\u0000"}]`, `{"\u0000":1}`, `"\u00000"`, `"\\"`, `12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		if got, want := ContainsNUL(raw), holdsNUL(v); got != want {
			t.Fatalf("ContainsNUL(%q) = %v, want %v", raw, got, want)
		}
	})
}
