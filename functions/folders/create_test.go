package folders_test

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	// The whole Folder: exactly its six keys, name trimmed, first order 1.
	res := f.do("POST", "/api/folders/", `{"name": "  Reports \t"}`)
	if res.code != 201 {
		t.Fatalf("create: %v", res)
	}
	if ct := res.hdr.Get("Content-Type"); ct != "application/json" {
		t.Errorf("create: Content-Type %q", ct)
	}
	got, ok := decodeJSON(t, res.body).(map[string]any)
	if !ok {
		t.Fatalf("create: not an object: %s", res.body)
	}
	id, ok := got["id"].(float64)
	if !ok || id < 1 || id != float64(int64(id)) {
		t.Fatalf("create: id %#v", got["id"])
	}
	if want := wantFolder(f.acct, int64(id), 1, "Reports"); !reflect.DeepEqual(got, want) {
		t.Errorf("create: body\n  %s\nwant\n  %v", res.body, want)
	}

	steps := []struct {
		name      string
		body      string
		wantOrder int64
		wantName  string
	}{
		{"explicit order", `{"name": "B", "order": 10}`, 10, "B"},
		{"omitted order goes after the highest", `{"name": "C"}`, 11, "C"},
		{"explicit order 0", `{"name": "Z", "order": 0}`, 0, "Z"},
		{"omitted order after a 0", `{"name": "D"}`, 12, "D"},
		{"order 5.0 is an integer", `{"name": "E", "order": 5.0}`, 5, "E"},
		{"unknown fields are ignored", `{"name": "F", "order": 2, "colour": "red", "id": 1}`, 2, "F"},
		{"omitted again", `{"name": "G"}`, 13, "G"},
	}
	ids := map[int64]bool{int64(id): true}
	for _, st := range steps {
		res := f.do("POST", "/api/folders/", st.body)
		if res.code != 201 {
			t.Fatalf("%s: %v", st.name, res)
		}
		var fj map[string]any
		_ = json.Unmarshal([]byte(res.body), &fj)
		nid := int64(fj["id"].(float64))
		if ids[nid] {
			t.Errorf("%s: id %d reused", st.name, nid)
		}
		ids[nid] = true
		if want := wantFolder(f.acct, nid, st.wantOrder, st.wantName); !reflect.DeepEqual(fj, want) {
			t.Errorf("%s: body\n  %s\nwant\n  %v", st.name, res.body, want)
		}
	}
	if n := len(f.list(t)); n != len(steps)+1 {
		t.Errorf("list has %d folders, want %d", n, len(steps)+1)
	}
}

// A body that is not UTF-8 is refused whole, before anything is written,
// rather than stored with U+FFFD in place of the bad byte. The
// check is shared/api's, so every JSON route has it.
func TestCreateRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res := f.do("POST", "/api/folders/", "{\"name\": \"a\xffb\"}")
	if res.code != 400 || res.body != `{"detail":"JSON parse error - invalid UTF-8 byte 0xff at offset 11"}` {
		t.Fatalf("create: %v", res)
	}
	list := f.do("GET", "/api/folders/", "")
	if list.code != 200 || list.body != "[]" {
		t.Fatalf("list after the refused create: %v", list)
	}
}
