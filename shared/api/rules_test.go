package api_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"surveyservice/shared/api"
)

// TestPathID: an id in a path is a positive integer written without
// leading zeros; "0141" names nothing (contract section 3, amended).
func TestPathID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1": 1, "141": 141, "2147483647": 2147483647, "0141": 0, "0": 0, "00": 0,
		"-1": 0, "+1": 0, "1e3": 0, "2147483648": 0, "": 0, "１": 0} {
		r := httptest.NewRequest("GET", "/", nil)
		r.SetPathValue("id", in)
		got, ok := api.PathID(r, "id")
		if ok != (want != 0) || ok && got != want {
			t.Errorf("PathID(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// TestStringRefusesNull: a NUL character in a string field answers 400 on
// that field, as DRF's CharField does.
func TestStringRefusesNull(t *testing.T) {
	t.Parallel()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(`{"name":"a\u0000b","ok":"fine"}`), &raw); err != nil {
		t.Fatal(err)
	}
	f := api.NewForm(raw)
	if _, ok := f.String("name", api.Str{Required: true}); ok {
		t.Error("name with a NUL accepted")
	}
	if v, ok := f.String("ok", api.Str{Required: true}); !ok || v != "fine" {
		t.Errorf("ok = %q, %v", v, ok)
	}
	got, _ := json.Marshal(f.Fields())
	if string(got) != `{"name":["Null characters are not allowed."]}` {
		t.Errorf("fields %s", got)
	}
}
