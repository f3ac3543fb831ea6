package folders_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/api"
)

func TestGetPutPatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	only := f.create(t, `{"name": "Only", "order": 7}`)
	live := f.survey(t, only.ID, "live")
	gone := f.survey(t, only.ID, "gone")
	f.trash(t, gone.ID)
	p := folderPath(only.ID)

	res := f.do("GET", p, "")
	if res.code != 200 {
		t.Fatalf("GET: %v", res)
	}
	if res.calls != 3 {
		t.Errorf("GET one folder (warm): %d DynamoDB calls, want 3 (folder, Query, the account's subdomain)", res.calls)
	}
	var g map[string]any
	_ = json.Unmarshal([]byte(res.body), &g)
	var gotSurveys []map[string]any
	for _, s := range g["surveys"].([]any) {
		gotSurveys = append(gotSurveys, s.(map[string]any))
	}
	checkSurveys(t, "GET", gotSurveys, live)
	g["surveys"] = []any{}
	if want := wantFolder(f.acct, only.ID, 7, "Only"); !reflect.DeepEqual(g, want) {
		t.Errorf("GET: %s, want %v", res.body, want)
	}
	// The path without its final slash is served the same.
	if res := f.do("GET", strings.TrimSuffix(p, "/"), ""); res.code != 200 {
		t.Errorf("GET without final slash: %v", res)
	}

	required := `{"name":["This field is required."]}`
	steps := []struct {
		name, method, body string
		code               int
		want               string
	}{
		{"PUT without name", "PUT", `{}`, 400, required},
		{"PUT with only order", "PUT", `{"order": 3}`, 400, required},
		{"PUT without body", "PUT", ``, 400, required},
		{"PUT of the only folder without order goes to 1", "PUT", `{"name": " Renamed "}`, 200, ref(only.ID, 1, "Renamed")},
		{"PUT with order", "PUT", `{"name": "Renamed", "order": 20}`, 200, ref(only.ID, 20, "Renamed")},
		{"PATCH order keeps the name", "PATCH", `{"order": 5}`, 200, ref(only.ID, 5, "Renamed")},
		{"PATCH name keeps the order", "PATCH", `{"name": "  Patched  "}`, 200, ref(only.ID, 5, "Patched")},
		{"PATCH {} changes nothing", "PATCH", `{}`, 200, ref(only.ID, 5, "Patched")},
		{"PATCH without body changes nothing", "PATCH", ``, 200, ref(only.ID, 5, "Patched")},
		{"PATCH order 0", "PATCH", `{"order": 0}`, 200, ref(only.ID, 0, "Patched")},
		{"PATCH both", "PATCH", `{"name": "Both", "order": 20}`, 200, ref(only.ID, 20, "Both")},
	}
	for _, st := range steps {
		expect(t, st.name, f.do(st.method, p, st.body), st.code, st.want)
	}
	if got := f.get(t, only.ID); got.Order != 20 || got.Name != "Both" || len(got.Surveys) != 1 {
		t.Errorf("after the writes: %+v", got)
	}

	// PUT without order: one more than the highest among the OTHER folders
	// (the folder's own order 20 does not count).
	a := f.create(t, `{"name": "a", "order": 3}`)
	b := f.create(t, `{"name": "b", "order": 8}`)
	expect(t, "PUT among others", f.do("PUT", p, `{"name": "R2"}`), 200, ref(only.ID, 9, "R2"))
	expect(t, "PUT again keeps it last", f.do("PUT", p, `{"name": "R3"}`), 200, ref(only.ID, 9, "R3"))
	ls := f.list(t)
	if len(ls) != 3 || ls[0].ID != a.ID || ls[1].ID != b.ID || ls[2].ID != only.ID {
		t.Errorf("list after PUT: %+v", ls)
	}
	// PATCH without order never moves the folder.
	expect(t, "PATCH name only", f.do("PATCH", p, `{"name": "R4"}`), 200, ref(only.ID, 9, "R4"))
	if got := f.get(t, only.ID); got.Order != 9 || got.Name != "R4" || len(got.Surveys) != 1 || got.Surveys[0]["id"] != float64(live.ID) {
		t.Errorf("final GET: %+v", got)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orig := f.create(t, `{"name": "orig", "order": 3}`)
	f.warm(t)

	tooLong := strings.Repeat("ن", 101)
	tooLongEmoji := strings.Repeat("😀", 101)
	big := `{"name": "x", "pad": "` + strings.Repeat("a", api.MaxBody) + `"}`
	tests := []struct {
		name, contentType, body string
		unknownLength           bool // a chunked body: no Content-Length
		code                    int
		want                    string // exact body, or
		wantDetailPrefix        string // the prefix of "detail"
	}{
		{name: "empty name", body: `{"name": ""}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "whitespace name", body: `{"name": "   "}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "tabs and newlines name", body: `{"name": "\t\n "}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "101 Persian characters", body: `{"name": "` + tooLong + `"}`, code: 400, want: `{"name":["Ensure this field has no more than 100 characters."]}`},
		{name: "101 emoji", body: `{"name": "` + tooLongEmoji + `"}`, code: 400, want: `{"name":["Ensure this field has no more than 100 characters."]}`},
		{name: "null name", body: `{"name": null}`, code: 400, want: `{"name":["This field may not be null."]}`},
		{name: "integer name", body: `{"name": 5}`, code: 400, want: `{"name":["Not a valid string."]}`},
		{name: "object name", body: `{"name": {"a": 1}}`, code: 400, want: `{"name":["Not a valid string."]}`},
		{name: "string order", body: `{"name": "ok", "order": "1"}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "fractional order", body: `{"name": "ok", "order": 1.5}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "boolean order", body: `{"name": "ok", "order": true}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "null order", body: `{"name": "ok", "order": null}`, code: 400, want: `{"order":["This field may not be null."]}`},
		{name: "negative order", body: `{"name": "ok", "order": -1}`, code: 400, want: `{"order":["Ensure this value is greater than or equal to 0."]}`},
		{name: "order above int32", body: `{"name": "ok", "order": 2147483648}`, code: 400, want: `{"order":["Ensure this value is less than or equal to 2147483647."]}`},
		{name: "both fields wrong", body: `{"name": "", "order": -1}`, code: 400, want: `{"name":["This field may not be blank."],"order":["Ensure this value is greater than or equal to 0."]}`},
		{name: "list body", body: `[]`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "list of an object", body: `[{"name": "x"}]`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "null body", body: `null`, code: 400, want: `{"non_field_errors":["No data provided"]}`},
		{name: "string body", body: `"x"`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{name: "number body", body: `5`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{name: "not JSON", body: `{name: x}`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "truncated JSON", body: `{"name": "x"`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "two JSON values", body: `{"name": "x"} {"name": "y"}`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "text/plain", contentType: "text/plain", body: `{"name": "x"}`, code: 415, want: `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{name: "over 1 MiB", body: big, code: 413, wantDetailPrefix: ""},
		{name: "over 1 MiB chunked", body: big, unknownLength: true, code: 413, wantDetailPrefix: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct{ method, path string }{
				{"POST", "/api/folders/"}, {"PUT", folderPath(orig.ID)}, {"PATCH", folderPath(orig.ID)},
			} {
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
				}
				req := newRequest(m.method, m.path, f.key, ct, tt.body)
				if tt.unknownLength {
					req.ContentLength = -1
				}
				res := serve(f.h, req)
				what := m.method + " " + tt.name
				if tt.want != "" {
					expect(t, what, res, tt.code, tt.want)
				} else {
					if res.code != tt.code {
						t.Errorf("%s: %v, want %d", what, res, tt.code)
						continue
					}
					g, ok := decodeJSON(t, res.body).(map[string]any)
					d, isStr := g["detail"].(string)
					if !ok || len(g) != 1 || !isStr || !strings.HasPrefix(d, tt.wantDetailPrefix) || d == tt.wantDetailPrefix {
						t.Errorf("%s: body %s, want {\"detail\": %q...}", what, res.body, tt.wantDetailPrefix)
					}
				}
				if res.calls != 0 {
					t.Errorf("%s: %d DynamoDB calls, want 0 (refused before the store)", what, res.calls)
				}
			}
			// Nothing changed: still exactly the one folder, as it was.
			ls := f.list(t)
			if len(ls) != 1 || ls[0].ID != orig.ID || ls[0].Name != "orig" || ls[0].Order != 3 {
				t.Fatalf("after %s: list %+v", tt.name, ls)
			}
		})
	}
}

// TestNameLength: 100 code points is the limit, counted in code points
// (not bytes, not UTF-16 units), after trimming.
func TestNameLength(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	persian := strings.Repeat("ش", 100)
	emoji := strings.Repeat("😀", 100)
	mixed := strings.Repeat("ab", 25) + strings.Repeat("گ", 25) + strings.Repeat("🎉", 25)

	fj := f.create(t, `{"name": "`+persian+`"}`)
	if fj.Name != persian {
		t.Errorf("POST 100 Persian characters: name %q", fj.Name)
	}
	p := folderPath(fj.ID)
	expect(t, "PUT 100 emoji", f.do("PUT", p, `{"name": "`+emoji+`", "order": 1}`), 200, ref(fj.ID, 1, emoji))
	expect(t, "PATCH 100 mixed, padded", f.do("PATCH", p, `{"name": "   `+mixed+"\\t\\n"+`  "}`), 200, ref(fj.ID, 1, mixed))
	if got := f.get(t, fj.ID); got.Name != mixed {
		t.Errorf("GET: name %q, want %q", got.Name, mixed)
	}
}
