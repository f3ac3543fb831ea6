package variables_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"surveyservice/shared/responding"
)

// TestVariablesWrapper: POST takes {"variables": [...]}, the body the
// published reference gives create-variables
// (mindcloud-inc/universal-api-reference, apis/p/porsline/native-api/actions/create-variables.md:
// "variables | body | list<object>"), all or nothing, and answers in the
// same wrapper, as that reference's create-variables response reads
// (universal-api/actions/create-variables.md, "variables | array<object>").
// Before, the wrapper was read as one variable without a name: 400.
func TestVariablesWrapper(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.survey(t, "Wrapped")
	r := f.do(t, "POST", listPath(sv.ID), `{"variables":[{"name":"email","variable_source":0,"type":1},{"name":"crm_id","variable_source":1,"type":2}]}`)
	expect(t, "wrapper", r, 201, fmt.Sprintf(`{"variables":[{"id":%d,"name":"email","variable_source":0,"type":1,"has_response":false},`+
		`{"id":%d,"name":"crm_id","variable_source":1,"type":2,"has_response":false}]}`, idAt(t, r.body, 0), idAt(t, r.body, 1)))
	if l := f.list(t, sv.ID); len(l) != 2 || l[1].Name != "crm_id" || l[1].VariableSource != 1 {
		t.Errorf("GET lists %+v", l)
	}
	before := f.list(t, sv.ID)
	for _, tt := range []struct{ what, body, want string }{
		{"a bad item", `{"variables":[{"name":"ok","variable_source":0},{"name":"x","variable_source":2}]}`,
			`{"variables":[{},{"variable_source":["\"2\" is not a valid choice."]}]}`},
		{"a taken name", `{"variables":[{"name":"email","variable_source":0}]}`,
			`{"variables":[{"name":["A variable with this name already exists in this survey."]}]}`},
		{"not a list", `{"variables":{"name":"a","variable_source":0}}`,
			`{"variables":{"non_field_errors":["Expected a list of items but got type \"dict\"."]}}`},
		{"101 items", `{"variables":[` + repeat(`{}`, 101) + `]}`,
			`{"variables":{"non_field_errors":["Ensure this field has no more than 100 elements."]}}`},
	} {
		r := f.do(t, "POST", listPath(sv.ID), tt.body)
		expect(t, tt.what, r, 400, tt.want)
	}
	f.unchanged(t, "after refused wrappers", sv.ID, before)
}

// TestVariableSourceLinks: variable_source 1 is a variable whose values
// come from personalised links only (contract section 21): the page and
// the public survey do not offer it to the query string, a submission
// that sets it is refused, and a link's value reaches the response.
// Before, variable_source 1 was refused with 400.
func TestVariableSourceLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.survey(t, "Links only")
	f.create(t, sv.ID, `[{"name":"team","variable_source":0},{"name":"crm","variable_source":1}]`)
	pub := send(t, f.h, "GET", "/api/public/surveys/"+url.PathEscape(sv.URLSlug)+"/", "")
	var view struct{ Variables []string }
	if err := json.Unmarshal([]byte(pub.body), &view); pub.code != 200 || err != nil || len(view.Variables) != 1 || view.Variables[0] != "team" {
		t.Fatalf("public survey: %d variables %v, want [team]", pub.code, view.Variables)
	}
	// A submission that sets it is refused.
	r := f.submit(t, sv.URLSlug, "", map[string]any{"team": "red", "crm": "C-1"})
	expect(t, "query string sets crm", r, 400, `{"variables":{"crm":["`+responding.MsgLinksOnly+`"]}}`)
	// A link sets it; the query string still sets team.
	tokens := f.urls(t, sv, []string{`{"crm":"C-2"}`})
	r = f.submit(t, sv.URLSlug, tokens[0], map[string]any{"team": "blue"})
	var made struct{ ID int64 }
	if err := json.Unmarshal([]byte(r.body), &made); r.code != 201 || err != nil || made.ID == 0 {
		t.Fatalf("submission from the link: %d %s", r.code, r.body)
	}
	resp, err := f.st.Response(t.Context(), f.acct.ID, sv.ID, made.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Variables["crm"] != "C-2" || resp.Variables["team"] != "blue" {
		t.Fatalf("response variables %v, want crm C-2 and team blue", resp.Variables)
	}
}

// TestHashesNullValues: a null value in hashes leaves the variable without
// a value in that link (contract section 21), as clients that fill a row of
// a sheet send it; before, null was refused with 400.
func TestHashesNullValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.linkSurvey(t, "Nulls")
	tokens := f.urls(t, sv, []string{`{"city":null,"age":30,"vip":null}`, `{"city":"Yazd","age":null,"is_unique":true}`})
	f.resolves(t, "city and vip null", sv.URLSlug, tokens[0], `{"age":30}`)
	f.resolves(t, "age null", sv.URLSlug, tokens[1], `{"city":"Yazd"}`)
	// null is still no value of a variable the survey lacks.
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"town":null}]}`)
	expect(t, "unknown with null", r, 400, `{"values":{"0":{"town":["Unknown variable."]}}}`)
}

func idAt(t *testing.T, body string, i int) int64 {
	t.Helper()
	var out struct{ Variables []struct{ ID int64 } }
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Variables) <= i {
		t.Fatalf("body %s: no variable %d (%v)", body, i, err)
	}
	return out.Variables[i].ID
}

func repeat(s string, n int) string {
	out := s
	for range n - 1 {
		out += "," + s
	}
	return out
}
