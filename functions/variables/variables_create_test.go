package variables_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func TestVariables(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *fixture)
	}{
		{"create one", variablesCreateOne},
		{"create array in order, list, detail", variablesCreateArrayInOrderListDetail},
		{"names accepted", variablesNamesAccepted},
		{"names refused", variablesNamesRefused},
		{"duplicates", variablesDuplicates},
		{"array all or nothing", variablesArrayAllOrNothing},
		{"fields", variablesFields},
		{"bodies", variablesBodies},
		{"delete", variablesDelete},
		{"bad survey ids", variablesBadSurveyIds},
		{"another account's survey", variablesAnotherAccountSurvey},
		{"trashed survey", variablesTrashedSurvey},
		{"authentication and methods", variablesAuthenticationAndMethods},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, f) })
	}
}

func variablesCreateOne(t *testing.T, f *fixture) {
	sv := f.survey(t, "One")
	r := f.do(t, "POST", listPath(sv.ID), `{"name":"city","variable_source":0}`)
	if r.code != 201 {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(r.body), &items); err != nil || len(items) != 1 {
		t.Fatalf("body %s: want a list of one (%v)", r.body, err)
	}
	got := items[0]
	id, ok := got["id"].(float64)
	if !ok || id < 1 || id != math.Trunc(id) {
		t.Errorf("id = %v", got["id"])
	}
	want := map[string]any{"id": got["id"], "name": "city", "variable_source": 0.0, "type": 1.0, "has_response": false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("created %v, want %v", got, want)
	}
	if l := f.list(t, sv.ID); len(l) != 1 || l[0].Name != "city" || l[0].ID != int64(id) {
		t.Errorf("GET lists %+v", l)
	}
}

func variablesCreateArrayInOrderListDetail(t *testing.T, f *fixture) {
	ctx := t.Context()
	sv := f.survey(t, "Three")
	first := f.create(t, sv.ID, `{"name":"first","variable_source":0,"type":2}`)
	got := f.create(t, sv.ID, `[{"name":"city","variable_source":0},{"name":"age","variable_source":0,"type":2},`+
		`{"name":"vip","variable_source":0,"type":1,"has_response":true,"id":99,"unknown":"ignored"}]`)
	want := []survey.Variable{
		{Name: "city", Type: 1}, {Name: "age", Type: 2}, {Name: "vip", Type: 1},
	}
	if len(got) != 3 {
		t.Fatalf("created %+v, want 3", got)
	}
	seen := map[int64]bool{first[0].ID: true}
	for i := range got {
		if got[i].ID < 1 || seen[got[i].ID] {
			t.Errorf("item %d has id %d (ids must be positive and distinct)", i, got[i].ID)
		}
		seen[got[i].ID] = true
		want[i].ID = got[i].ID
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("created %+v, want %+v (has_response and id are read-only)", got, want)
	}
	all := append(first, want...)
	if l := f.list(t, sv.ID); !reflect.DeepEqual(l, all) {
		t.Errorf("GET lists %+v, want %+v", l, all)
	}
	c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Variables, all) {
		t.Errorf("survey detail has variables %+v, want %+v", c.Variables, all)
	}
}

func variablesNamesAccepted(t *testing.T, f *fixture) {
	sv := f.survey(t, "Names")
	names := []string{
		"شهر", "نام_خانوادگی", "المدينة", "مُدُن", "٣٤", "۱۲۳", "城市", "город", "हिन्दी",
		"utm_source", "a-b", "_", "-", "123", "X9",
		strings.Repeat("ش", 100), strings.Repeat("a", 100),
	}
	var items []string
	for _, n := range names {
		items = append(items, variableJSON(n))
	}
	got := f.create(t, sv.ID, "["+strings.Join(items, ",")+"]")
	if len(got) != len(names) {
		t.Fatalf("created %d, want %d", len(got), len(names))
	}
	for i, v := range got {
		if v.Name != names[i] {
			t.Errorf("item %d named %q, want %q", i, v.Name, names[i])
		}
	}
	// Strings are trimmed first, as DRF does.
	if got := f.create(t, sv.ID, variableJSON("  padded\t")); got[0].Name != "padded" {
		t.Errorf("name %q, want it trimmed to \"padded\"", got[0].Name)
	}
}

func variablesNamesRefused(t *testing.T, f *fixture) {
	sv := f.survey(t, "Bad names")
	before := f.create(t, sv.ID, variableJSON("city"))
	tooLong := "Ensure this field has no more than 100 characters."
	tests := []struct {
		what string
		name any
		msg  string // "" when the contract fixes no message
	}{
		{"101 characters", strings.Repeat("ش", 101), tooLong},
		{"101 ascii", strings.Repeat("a", 101), tooLong},
		{"space", "first name", ""},
		{"dot", "a.b", ""},
		{"emoji", "😀", ""},
		{"emoji inside", "city😀", ""},
		{"slash", "a/b", ""},
		{"quote", `a"b`, ""},
		{"zero-width joiner", "a\u200db", ""},
		{"reserved", survey.ReservedUniqueKey, ""},
		{"duplicate of an existing one", "city", ""},
		{"blank", "", "This field may not be blank."},
		{"only spaces", "   ", "This field may not be blank."},
		{"null", nil, "This field may not be null."},
		{"number", 5, "Not a valid string."},
		{"list", []string{"a"}, "Not a valid string."},
	}
	for _, tt := range tests {
		body := fmt.Sprintf(`{"name":%s,"variable_source":0}`, mustJSON(tt.name))
		r := f.do(t, "POST", listPath(sv.ID), body)
		if r.code != 400 {
			t.Errorf("%s: %s answered %d %s, want 400", tt.what, body, r.code, r.body)
			continue
		}
		var errs map[string][]string
		if err := json.Unmarshal([]byte(r.body), &errs); err != nil || len(errs) != 1 || len(errs["name"]) != 1 {
			t.Errorf("%s: body %s, want one message on name", tt.what, r.body)
			continue
		}
		if tt.msg != "" && errs["name"][0] != tt.msg {
			t.Errorf("%s: message %q, want %q", tt.what, errs["name"][0], tt.msg)
		}
		noWrites(t, tt.what, r)
	}
	f.unchanged(t, "after refused names", sv.ID, before)
}

func variablesDuplicates(t *testing.T, f *fixture) {
	sv := f.survey(t, "Dups")
	before := f.create(t, sv.ID, variableJSON("city"))
	dup := f.do(t, "POST", listPath(sv.ID), variableJSON("city", "type", 2))
	if dup.code != 400 || !strings.HasPrefix(dup.body, `{"name":[`) {
		t.Errorf("existing name: %d %s, want 400 on name", dup.code, dup.body)
	}
	msg := nameMessage(t, dup.body)
	r := f.do(t, "POST", listPath(sv.ID), "["+variableJSON("d1")+","+variableJSON("d1", "type", 2)+"]")
	expect(t, "duplicate within the array", r, 400, `[{},{"name":[`+mustJSON(msg)+`]}]`)
	r = f.do(t, "POST", listPath(sv.ID), "["+variableJSON("new")+","+variableJSON("city")+"]")
	expect(t, "array item duplicating an existing name", r, 400, `[{},{"name":[`+mustJSON(msg)+`]}]`)
	f.unchanged(t, "after refused duplicates", sv.ID, before)
}

func variablesArrayAllOrNothing(t *testing.T, f *fixture) {
	sv := f.survey(t, "Atomic")
	before := f.create(t, sv.ID, variableJSON("existing"))
	body := "[" + strings.Join([]string{
		variableJSON("ok1"),
		variableJSON("bad name"),
		variableJSON("ok2", "type", 2),
		variableJSON("ok3", "variable_source", 2),
		variableJSON("ok4", "type", 3),
		`"text"`,
		variableJSON("ok5"),
	}, ",") + "]"
	r := f.do(t, "POST", listPath(sv.ID), body)
	want := `[{},{"name":[` + mustJSON(survey.MsgVariableNameRule) + `]},{},{"variable_source":["\"2\" is not a valid choice."]},{"type":["\"3\" is not a valid choice."]},` +
		`{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]},{}]`
	expect(t, "array with bad items", r, 400, want)
	noWrites(t, "array with bad items", r)
	f.unchanged(t, "after a refused array", sv.ID, before)
}

func variablesFields(t *testing.T, f *fixture) {
	sv := f.survey(t, "Fields")
	tests := []struct {
		what, body, want string
	}{
		{"variable_source missing", `{"name":"a"}`, `{"variable_source":["This field is required."]}`},
		{"variable_source 2", `{"name":"a","variable_source":2}`, `{"variable_source":["\"2\" is not a valid choice."]}`},
		{"variable_source -1", `{"name":"a","variable_source":-1}`, `{"variable_source":["\"-1\" is not a valid choice."]}`},
		{"variable_source \"0\"", `{"name":"a","variable_source":"0"}`, `{"variable_source":["A valid integer is required."]}`},
		{"variable_source 0.5", `{"name":"a","variable_source":0.5}`, `{"variable_source":["A valid integer is required."]}`},
		{"variable_source null", `{"name":"a","variable_source":null}`, `{"variable_source":["This field may not be null."]}`},
		{"type 3", `{"name":"a","variable_source":0,"type":3}`, `{"type":["\"3\" is not a valid choice."]}`},
		{"type 0", `{"name":"a","variable_source":0,"type":0}`, `{"type":["\"0\" is not a valid choice."]}`},
		{"type \"2\"", `{"name":"a","variable_source":0,"type":"2"}`, `{"type":["A valid integer is required."]}`},
		{"type true", `{"name":"a","variable_source":0,"type":true}`, `{"type":["A valid integer is required."]}`},
		{"name missing", `{"variable_source":0}`, `{"name":["This field is required."]}`},
		{"every field", `{"variable_source":"x","type":9}`, `{"name":["This field is required."],"variable_source":["A valid integer is required."],"type":["\"9\" is not a valid choice."]}`},
	}
	for _, tt := range tests {
		r := f.do(t, "POST", listPath(sv.ID), tt.body)
		expect(t, tt.what, r, 400, tt.want)
		noWrites(t, tt.what, r)
	}
	f.unchanged(t, "after refused fields", sv.ID, []survey.Variable{})
}

func variablesBodies(t *testing.T, f *fixture) {
	sv := f.survey(t, "Bodies")
	tests := []struct {
		what, ct, body string
		code           int
		want           string // "" checks only the detail's prefix below
	}{
		{"null", "application/json", `null`, 400, `{"non_field_errors":["No data provided"]}`},
		{"a string", "application/json", `"x"`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{"a number", "application/json", `5`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{"list of a number", "application/json", `[1]`, 400, `[{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}]`},
		{"list with null", "application/json", `[{"name":"a","variable_source":0},null]`, 400, `[{},{"non_field_errors":["Invalid data. Expected a dictionary, but got NoneType."]}]`},
		{"nested list", "application/json", `[[{"name":"a","variable_source":0}]]`, 400, `[{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}]`},
		{"empty body", "", ``, 400, `{"name":["This field is required."],"variable_source":["This field is required."]}`},
		{"empty object", "application/json", `{}`, 400, `{"name":["This field is required."],"variable_source":["This field is required."]}`},
		{"not JSON", "application/json", `{"name":`, 400, ""},
		{"two values", "application/json", `{} {}`, 400, ""},
		{"text/plain", "text/plain", `{"name":"a","variable_source":0}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tt := range tests {
		headers := []string{"Authorization", "API-Key " + f.key}
		if tt.ct != "" {
			headers = append(headers, "Content-Type", tt.ct)
		}
		r := send(t, f.h, "POST", listPath(sv.ID), tt.body, headers...)
		if tt.want == "" {
			if r.code != tt.code || !strings.HasPrefix(r.body, `{"detail":"JSON parse error - `) {
				t.Errorf("%s: got %d %s, want %d JSON parse error", tt.what, r.code, r.body, tt.code)
			}
		} else {
			expect(t, tt.what, r, tt.code, tt.want)
		}
		noWrites(t, tt.what, r)
	}
	r := f.do(t, "POST", listPath(sv.ID), `[]`)
	t.Logf("POST [] answers %d %s (DRF's ListSerializer allows an empty list)", r.code, r.body)
	if r.code >= 500 {
		t.Errorf("POST []: %d %s", r.code, r.body)
	}
	delete(r.ops, "DynamoDB.BatchWriteItem") // the activity log's entry of a write that succeeded (contract section 19)
	noWrites(t, "POST []", r)
	f.unchanged(t, "after refused bodies", sv.ID, []survey.Variable{})
}
