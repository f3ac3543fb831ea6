package settings_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func TestAuthDomains(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Domains")
	long60 := "*@" + strings.Repeat("a", 54) + ".com"
	long61 := "*@" + strings.Repeat("a", 55) + ".com"
	if len(long60) != 60 || len(long61) != 61 {
		t.Fatal("test lengths")
	}
	good := []string{"*@example.com", "*@sub.example.co.uk", "*@مثال.ایران", long60}
	for _, d := range good {
		r := f.patch(t, sid, map[string]any{"service_auth_domains": []string{d}})
		check(t, "domain "+d, r, 200, nil)
		if g := f.get(t, sid); !reflect.DeepEqual(g["service_auth_domains"], []any{d}) {
			t.Errorf("GET after %q: %v", d, g["service_auth_domains"])
		}
	}
	check(t, "every good domain", f.patch(t, sid, map[string]any{"service_auth_domains": good}), 200, nil)
	cur := f.get(t, sid)
	if !reflect.DeepEqual(cur["service_auth_domains"], generic(good)) {
		t.Errorf("GET after every good domain: %v", cur["service_auth_domains"])
	}
	bad := []any{"example.com", "*@", "*@-bad-.com", "*@localhost", long61, 5, "", "@example.com", "*example.com",
		"*@exa mple.com", "*@example..com", nil}
	for _, b := range bad {
		r := f.patch(t, sid, map[string]any{"service_auth_domains": []any{b}})
		if r.code != 400 {
			t.Errorf("domain %#v: %v, want 400", b, r)
			continue
		}
		m := decodeMap(t, r.body)
		nested, ok := m["service_auth_domains"].(map[string]any)
		if len(m) != 1 || !ok || len(nested) != 1 || nested["0"] == nil {
			t.Errorf("domain %#v: body %s, want errors keyed by index 0 under service_auth_domains", b, r.body)
		}
	}
	// Errors are keyed by the index of each bad item; good items have none.
	mixed := append([]any{"*@example.com"}, bad...)
	r := f.patch(t, sid, map[string]any{"service_auth_domains": mixed})
	if r.code != 400 {
		t.Errorf("mixed list: %v", r)
	} else {
		nested, _ := decodeMap(t, r.body)["service_auth_domains"].(map[string]any)
		var want []string
		for i := range bad {
			want = append(want, fmt.Sprint(i+1))
		}
		if got := slices.Sorted(maps.Keys(nested)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("mixed list: error indexes %q, want %q (%s)", got, want, r.body)
		}
	}
	// Items are strings, trimmed first as DRF's CharField child does
	// (contract section 3).
	check(t, "padded domain", f.patch(t, sid, map[string]any{"service_auth_domains": []any{" *@example.com\t"}}), 200, nil)
	if g := f.get(t, sid); !reflect.DeepEqual(g["service_auth_domains"], []any{"*@example.com"}) {
		t.Errorf("GET after a padded domain: %v", g["service_auth_domains"])
	}
	check(t, "blank domain", f.patch(t, sid, map[string]any{"service_auth_domains": []any{"   "}}), 400,
		`{"service_auth_domains": {"0": ["This field may not be blank."]}}`)
	check(t, "every good domain again", f.patch(t, sid, map[string]any{"service_auth_domains": good}), 200, nil)
	r = f.patch(t, sid, map[string]any{"service_auth_domains": []any{long61}})
	if !strings.Contains(string(r.body), "Ensure this field has no more than 60 characters.") {
		t.Errorf("61 characters: %s", r.body)
	}
	r = f.patch(t, sid, map[string]any{"service_auth_domains": []any{5}})
	check(t, "non-string item", r, 400, `{"service_auth_domains": {"0": ["Not a valid string."]}}`)
	for _, body := range []string{`"*@example.com"`, `{"0": "*@example.com"}`, `5`, `true`} {
		fieldError(t, "domains "+body, f.patch(t, sid, `{"service_auth_domains": `+body+`}`), "service_auth_domains", "")
	}
	sameSettings(t, "GET after the refusals", f.get(t, sid), cur)
}

func TestStringLengths(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Lengths")
	for _, field := range slices.Sorted(maps.Keys(specStrings)) {
		max := specStrings[field]
		for _, v := range []string{strings.Repeat("ش", max), strings.Repeat("a", max), "x"} {
			r := f.patch(t, sid, map[string]any{field: v})
			if r.code != 200 || decodeMap(t, r.body)[field] != v {
				t.Errorf("%s of %d characters: status %d", field, len([]rune(v)), r.code)
			}
		}
		check(t, field+" trimmed", f.patch(t, sid, map[string]any{field: "  padded\t"}), 200, nil)
		if g := f.get(t, sid); g[field] != "padded" {
			t.Errorf("%s padded: %v", field, g[field])
		}
		tooLong := fmt.Sprintf("Ensure this field has no more than %d characters.", max)
		fieldError(t, field+" too long", f.patch(t, sid, map[string]any{field: strings.Repeat("ش", max+1)}), field, tooLong)
		fieldError(t, field+" too long ascii", f.patch(t, sid, map[string]any{field: strings.Repeat("a", max+1)}), field, tooLong)
		fieldError(t, field+" blank", f.patch(t, sid, map[string]any{field: ""}), field, msgBlank)
		fieldError(t, field+" spaces", f.patch(t, sid, map[string]any{field: "   "}), field, msgBlank)
		if g := f.get(t, sid); g[field] != "padded" {
			t.Errorf("%s after the refusals: %v", field, g[field])
		}
	}
	// A body over 1 MiB is refused as a whole.
	check(t, "body over 1 MiB", f.patch(t, sid, map[string]any{"auth_description": strings.Repeat("a", 1<<20)}), 413, nil)
}

// TestWrongTypes: a value of the wrong JSON type is a 400 on that field,
// for every field; all of them in one body are all reported.
func TestWrongTypes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Types")
	type wrong struct{ value, msg string }
	cases := map[string][]wrong{}
	for _, b := range specBools {
		cases[b] = []wrong{{`"true"`, msgNotBool}, {`"yes"`, msgNotBool}, {`[]`, msgNotBool}, {`{}`, msgNotBool}, {`null`, msgNull}}
	}
	for s := range specStrings {
		cases[s] = []wrong{{`5`, msgNotStr}, {`true`, msgNotStr}, {`["a"]`, msgNotStr}, {`{}`, msgNotStr}}
	}
	for _, d := range specDurations {
		cases[d] = []wrong{{`5`, msgNotStr}, {`false`, msgNotStr}, {`["01:00:00"]`, msgNotStr}}
	}
	cases["expiration_date"] = []wrong{{`5`, ""}, {`true`, ""}, {`["2026-07-01"]`, ""}, {`{}`, ""}}
	cases["service_auth_domains"] = []wrong{
		{`"*@example.com"`, `Expected a list of items but got type "str".`},
		{`5`, ""}, {`true`, ""}, {`{}`, ""},
	}
	cases["embed_origins"] = []wrong{
		{`"https://example.com"`, `Expected a list of items but got type "str".`},
		{`5`, `Expected a list of items but got type "int".`}, {`true`, ""}, {`{}`, ""},
	}
	cases["response_limit"] = []wrong{{`"5"`, msgNotInt}, {`true`, msgNotInt}, {`1.5`, msgNotInt}, {`[5]`, msgNotInt}}
	cases["responding_duration_type"] = []wrong{{`"1"`, msgNotInt}, {`true`, msgNotInt}, {`1.5`, msgNotInt}, {`[1]`, msgNotInt}, {`null`, msgNull}}
	for _, field := range settingsFields() {
		if len(cases[field]) == 0 {
			t.Errorf("no wrong-type case for %s", field)
		}
		for _, c := range cases[field] {
			fieldError(t, field+" "+c.value, f.patch(t, sid, fmt.Sprintf(`{%q: %s}`, field, c.value)), field, c.msg)
		}
	}
	// The survey object and its fields.
	for _, c := range []struct{ body, want string }{
		{`{"survey": "x"}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}}`},
		{`{"survey": 5}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got int."]}}`},
		{`{"survey": ["x"]}`, `{"survey": {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}}`},
		{`{"survey": {"name": 5}}`, `{"survey": {"name": ["Not a valid string."]}}`},
		{`{"survey": {"language": "1"}}`, `{"survey": {"language": ["A valid integer is required."]}}`},
		{`{"survey": {"language": 1.5}}`, `{"survey": {"language": ["A valid integer is required."]}}`},
		{`{"survey": {"is_stopped": "true"}}`, `{"survey": {"is_stopped": ["Must be a valid boolean."]}}`},
		{`{"survey": {"is_stopped": null}}`, `{"survey": {"is_stopped": ["This field may not be null."]}}`},
	} {
		check(t, c.body, f.patch(t, sid, c.body), 400, c.want)
	}
	check(t, "survey null", f.patch(t, sid, `{"survey": null}`), 400, nil)
	// Every field wrong at once: every one is reported.
	all := map[string]json.RawMessage{"survey": json.RawMessage(`{"name": 5}`)}
	for _, field := range settingsFields() {
		all[field] = json.RawMessage(cases[field][0].value)
	}
	r := f.patch(t, sid, all)
	if r.code != 400 {
		t.Errorf("every field wrong: %v", r)
	} else if got := slices.Sorted(maps.Keys(decodeMap(t, r.body))); !slices.Equal(got, writableKeys()) {
		t.Errorf("every field wrong: errors for %q, want %q", got, writableKeys())
	}
	sameSettings(t, "GET after", f.get(t, sid), defaults("Types"))
}

func TestSurveyObjectErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Survey object")
	for _, c := range []struct{ body, want string }{
		{`{"survey": {"name": ""}}`, `{"survey": {"name": ["This field may not be blank."]}}`},
		{`{"survey": {"name": "   "}}`, `{"survey": {"name": ["This field may not be blank."]}}`},
		{`{"survey": {"name": null}}`, `{"survey": {"name": ["This field may not be null."]}}`},
		{fmt.Sprintf(`{"survey": {"name": %q}}`, strings.Repeat("ن", 256)), `{"survey": {"name": ["Ensure this field has no more than 255 characters."]}}`},
		{`{"survey": {"language": null}}`, `{"survey": {"language": ["This field may not be null."]}}`},
		{`{"survey": {"name": "", "language": "x"}, "hide_next_button": "x"}`,
			`{"survey": {"name": ["This field may not be blank."], "language": ["A valid integer is required."]}, "hide_next_button": ["Must be a valid boolean."]}`},
	} {
		check(t, c.body, f.patch(t, sid, c.body), 400, c.want)
	}
	for _, lang := range []string{"0", "5", "99", "-1"} {
		r := f.patch(t, sid, `{"survey": {"language": `+lang+`}}`)
		if r.code != 400 {
			t.Errorf("language %s: %v", lang, r)
			continue
		}
		inner, _ := decodeMap(t, r.body)["survey"].(map[string]any)
		if msgs, _ := inner["language"].([]any); len(msgs) != 1 || len(inner) != 1 {
			t.Errorf("language %s: %s", lang, r.body)
		}
	}
	check(t, "255 characters", f.patch(t, sid, fmt.Sprintf(`{"survey": {"name": %q}}`, strings.Repeat("ن", 255))), 200, nil)
	if sv := f.coll(t, sid).Survey; sv.Name != strings.Repeat("ن", 255) || sv.Language != 1 {
		t.Errorf("survey item: %q %d", sv.Name, sv.Language)
	}
}

func TestBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Bodies")
	check(t, "[]", f.patch(t, sid, `[]`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`)
	check(t, `[{"hide_next_button": true}]`, f.patch(t, sid, `[{"hide_next_button": true}]`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`)
	check(t, `"x"`, f.patch(t, sid, `"x"`), 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}`)
	r := f.patch(t, sid, `null`)
	if m := decodeMap(t, r.body); r.code != 400 || m["non_field_errors"] == nil || len(m) != 1 {
		t.Errorf("null: %v", r)
	}
	for _, body := range []string{`{`, `{"hide_next_button": tru}`, `not json`, `{"a": 1} {"b": 2}`, `{"hide_next_button": true,}`} {
		r := f.patch(t, sid, body)
		m := decodeMap(t, r.body)
		if detail, _ := m["detail"].(string); r.code != 400 || len(m) != 1 || !strings.HasPrefix(detail, "JSON parse error - ") {
			t.Errorf("%s: %v", body, r)
		}
	}
	body := `{"hide_next_button": true}`
	check(t, "text/plain", serve(f.h, "PATCH", settingsPath(sid), f.key, "text/plain", &body), 415, textPlain)
	check(t, "charset", serve(f.h, "PATCH", settingsPath(sid), f.key, "application/json; charset=utf-8", &body), 200, nil)
	check(t, "no content type", serve(f.h, "PATCH", settingsPath(sid), f.key, "", &body), 415, `{"detail":"Unsupported media type \"\" in request."}`)
	check(t, "unknown fields ignored", f.patch(t, sid, `{"color": "red", "id": 5}`), 200, with(defaults("Bodies"), map[string]any{"hide_next_button": true}))
	sameSettings(t, "GET", f.get(t, sid), with(defaults("Bodies"), map[string]any{"hide_next_button": true}))
}

// TestTrashedSurvey: every write under a survey in the trash is 409; the
// reads still answer.
func TestTrashedSurvey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Trashed")
	if r := f.do("POST", codesPath(sid), `["one", "two"]`); r.code != 201 {
		t.Fatalf("seed codes: %v", r)
	}
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, sid); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"hide_next_button": true}`, `{"survey": {"name": "x"}}`, `{"survey": {"is_stopped": true}}`,
		`{"expiration_date": "2026-07-01"}`, `{"code_auth": true}`, `{}`} {
		check(t, "PATCH "+body, f.patch(t, sid, body), 409, deleted)
	}
	check(t, "POST codes", f.do("POST", codesPath(sid), `["three"]`), 409, deleted)
	check(t, "DELETE codes", f.do("DELETE", codesPath(sid), `["one"]`), 409, deleted)
	check(t, "DELETE every code", f.do("DELETE", codesPath(sid), ""), 409, deleted)
	sameSettings(t, "GET settings of a trashed survey", f.get(t, sid), defaults("Trashed"))
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("codes of the trashed survey: %q", got)
	}
	if sv := f.coll(t, sid).Survey; sv.Name != "Trashed" || sv.IsStopped || !sv.Deleted {
		t.Errorf("survey item: %+v", sv)
	}
}

// TestForeignAndBadIDs: another account's survey answers exactly as a
// missing one, on every route; non-ids are 404.
func TestForeignAndBadIDs(t *testing.T) {
	t.Parallel()
	owner := newFixture(t, survey.PlanEnterprise)
	other := newFixture(t, survey.PlanEnterprise)
	sid := owner.newSurvey(t, "Private")
	if r := owner.do("POST", codesPath(sid), `["secret"]`); r.code != 201 {
		t.Fatalf("seed codes: %v", r)
	}
	ids := []any{sid, missingID, "abc", "0", "-1", "1.5", "99999999999", "1e3"}
	for _, id := range ids {
		check(t, fmt.Sprintf("GET settings %v", id), other.do("GET", settingsPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("PATCH settings %v", id), other.do("PATCH", settingsPath(id), `{"hide_next_button": true}`), 404, notFound)
		check(t, fmt.Sprintf("PATCH settings {} %v", id), other.do("PATCH", settingsPath(id), `{}`), 404, notFound)
		check(t, fmt.Sprintf("PATCH survey name %v", id), other.do("PATCH", settingsPath(id), `{"survey": {"name": "Mine"}}`), 404, notFound)
		check(t, fmt.Sprintf("GET codes %v", id), other.do("GET", codesPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("POST codes %v", id), other.do("POST", codesPath(id), `["x"]`), 404, notFound)
		check(t, fmt.Sprintf("DELETE codes %v", id), other.do("DELETE", codesPath(id), `["secret"]`), 404, notFound)
		check(t, fmt.Sprintf("DELETE every code %v", id), other.do("DELETE", codesPath(id), ""), 404, notFound)
	}
	for _, id := range ids[1:] {
		check(t, fmt.Sprintf("owner GET settings %v", id), owner.do("GET", settingsPath(id), ""), 404, notFound)
		check(t, fmt.Sprintf("owner GET codes %v", id), owner.do("GET", codesPath(id), ""), 404, notFound)
	}
	sameSettings(t, "owner's settings", owner.get(t, sid), defaults("Private"))
	if got := owner.allCodes(t, sid); !slices.Equal(got, []string{"secret"}) {
		t.Errorf("owner's codes: %q", got)
	}
	if sv := owner.coll(t, sid).Survey; sv.Name != "Private" {
		t.Errorf("owner's survey renamed to %q", sv.Name)
	}
}

func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Methods")
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		r := f.do(m, settingsPath(sid), `{}`)
		check(t, m+" settings", r, 405, fmt.Sprintf(`{"detail": "Method \"%s\" not allowed."}`, m))
		if a := r.header.Get("Allow"); a != "GET, PATCH, HEAD, OPTIONS" {
			t.Errorf("%s settings: Allow %q", m, a)
		}
	}
	for _, m := range []string{"PUT", "PATCH"} {
		r := f.do(m, codesPath(sid), `[]`)
		check(t, m+" codes", r, 405, fmt.Sprintf(`{"detail": "Method \"%s\" not allowed."}`, m))
		if a := r.header.Get("Allow"); a != "GET, POST, DELETE, HEAD, OPTIONS" {
			t.Errorf("%s codes: Allow %q", m, a)
		}
	}
	for _, p := range []string{settingsPath(sid), codesPath(sid)} {
		r := serve(f.h, "GET", p, "", "", nil)
		check(t, "no key "+p, r, 401, `{"detail": "Authentication credentials were not provided."}`)
		r = serve(f.h, "GET", p, "not-a-key", "", nil)
		check(t, "bad key "+p, r, 401, `{"detail": "Invalid API key."}`)
	}
}
