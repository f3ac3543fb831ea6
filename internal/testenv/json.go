package testenv

import (
	"encoding/json"
	"reflect"
	"testing"
)

// SameJSON checks that a response body is the JSON want, as values (key
// order and spacing aside).
func SameJSON(tb testing.TB, what string, got []byte, want string) {
	tb.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		tb.Errorf("%s: body %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatalf("%s: want %q is not JSON: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		tb.Errorf("%s: body\n got %s\nwant %s", what, got, want)
	}
}
