package folders_test

import (
	"fmt"
	"testing"
)

func TestPathIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mine := f.create(t, `{"name": "mine", "order": 4}`)
	other := newFixture(t)
	foreign := other.create(t, `{"name": "foreign", "order": 2}`)
	f.warm(t)

	notFound := `{"detail":"Not found."}`
	tests := []struct {
		id        string
		malformed bool
	}{
		{"abc", true}, {"0", true}, {"-1", true}, {"99999999999", true}, {"1.5", true},
		{"2147483648", true}, {"1e3", true}, {"%20", true},
		// Valid-looking ids: one that names nothing (ids are allocated
		// upward from small numbers) and another account's folder.
		{"2147483647", false},
		{fmt.Sprint(foreign.ID), false},
	}
	for _, tt := range tests {
		for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
			body := ""
			if method == "PUT" || method == "PATCH" {
				body = `{"name": "hijack", "order": 1}`
			}
			res := f.do(method, "/api/folders/"+tt.id+"/", body)
			what := method + " /api/folders/" + tt.id + "/"
			expect(t, what, res, 404, notFound)
			if tt.malformed && res.calls != 0 {
				t.Errorf("%s: %d DynamoDB calls, want 0", what, res.calls)
			}
		}
	}
	// Nothing was touched: the foreign folder and ours are as they were.
	if ol := other.list(t); len(ol) != 1 || ol[0].ID != foreign.ID || ol[0].Name != "foreign" || ol[0].Order != 2 {
		t.Errorf("other account's list: %+v", ol)
	}
	if ls := f.list(t); len(ls) != 1 || ls[0].ID != mine.ID || ls[0].Name != "mine" || ls[0].Order != 4 {
		t.Errorf("own list: %+v", ls)
	}
}

func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fj := f.create(t, `{"name": "x"}`)
	detailAllow := "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
	listAllow := "GET, POST, HEAD, OPTIONS"
	tests := []struct {
		name, method, path string
		key                bool
		code               int
		want, allow        string
	}{
		{"POST on a folder", "POST", folderPath(fj.ID), true, 405, `{"detail":"Method \"POST\" not allowed."}`, detailAllow},
		{"POST on a malformed id", "POST", "/api/folders/abc/", true, 405, `{"detail":"Method \"POST\" not allowed."}`, detailAllow},
		{"PUT on the list", "PUT", "/api/folders/", true, 405, `{"detail":"Method \"PUT\" not allowed."}`, listAllow},
		{"PATCH on the list", "PATCH", "/api/folders/", true, 405, `{"detail":"Method \"PATCH\" not allowed."}`, listAllow},
		{"DELETE on the list", "DELETE", "/api/folders/", true, 405, `{"detail":"Method \"DELETE\" not allowed."}`, listAllow},
		{"GET list without key", "GET", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
		{"POST without key", "POST", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
		{"GET folder without key", "GET", folderPath(fj.ID), false, 401, `{"detail":"Authentication credentials were not provided."}`, detailAllow},
		{"DELETE folder without key", "DELETE", folderPath(fj.ID), false, 401, `{"detail":"Authentication credentials were not provided."}`, detailAllow},
		{"PUT on the list without key", "PUT", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
	}
	for _, tt := range tests {
		key := ""
		if tt.key {
			key = f.key
		}
		body, ct := "", ""
		if tt.method != "GET" && tt.method != "DELETE" {
			body, ct = `{"name": "y"}`, "application/json"
		}
		res := serve(f.h, newRequest(tt.method, tt.path, key, ct, body))
		expect(t, tt.name, res, tt.code, tt.want)
		if got := res.hdr.Get("Allow"); got != tt.allow {
			t.Errorf("%s: Allow %q, want %q", tt.name, got, tt.allow)
		}
		if tt.code == 401 && res.hdr.Get("WWW-Authenticate") != "API-Key" {
			t.Errorf("%s: WWW-Authenticate %q", tt.name, res.hdr.Get("WWW-Authenticate"))
		}
	}
	if got := f.get(t, fj.ID); got.Name != "x" {
		t.Errorf("folder changed: %+v", got)
	}
}
