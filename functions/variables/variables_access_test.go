package variables_test

import (
	"fmt"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func variablesDelete(t *testing.T, f *fixture) {
	sv := f.survey(t, "Delete")
	vars := f.create(t, sv.ID, "["+variableJSON("keep")+","+variableJSON("drop")+"]")
	r := f.do(t, "DELETE", varPath(sv.ID, vars[1].ID), "")
	if r.code != 204 || r.body != "" {
		t.Errorf("DELETE: %d %q, want 204 and no body", r.code, r.body)
	}
	f.unchanged(t, "after DELETE", sv.ID, vars[:1])
	expect(t, "DELETE again", f.do(t, "DELETE", varPath(sv.ID, vars[1].ID), ""), 404, notFound)
	for _, vid := range []any{missingID, "abc", "0", "-1", "1.0", "99999999999"} {
		expect(t, fmt.Sprintf("DELETE variable %v", vid), f.do(t, "DELETE", varPath(sv.ID, vid), ""), 404, notFound)
	}
	f.unchanged(t, "after refused DELETEs", sv.ID, vars[:1])
	// The name is free again.
	f.create(t, sv.ID, variableJSON("drop"))
}

func variablesBadSurveyIds(t *testing.T, f *fixture) {
	for _, sid := range []any{"abc", "0", "-3", missingID} {
		expect(t, fmt.Sprintf("GET survey %v", sid), f.do(t, "GET", listPath(sid), ""), 404, notFound)
		expect(t, fmt.Sprintf("POST survey %v", sid), f.do(t, "POST", listPath(sid), variableJSON("a")), 404, notFound)
		expect(t, fmt.Sprintf("DELETE survey %v", sid), f.do(t, "DELETE", varPath(sid, 1), ""), 404, notFound)
		expect(t, fmt.Sprintf("hashes survey %v", sid), f.do(t, "POST", hashesPath(sid), `{"values":[{"city":"x"}]}`), 404, notFound)
	}
}

func variablesAnotherAccountSurvey(t *testing.T, f *fixture) {
	other := newFixture(t)
	sv := other.survey(t, "Theirs")
	theirs := other.create(t, sv.ID, "["+variableJSON("city")+","+variableJSON("age", "type", 2)+"]")
	expect(t, "GET", f.do(t, "GET", listPath(sv.ID), ""), 404, notFound)
	expect(t, "POST", f.do(t, "POST", listPath(sv.ID), variableJSON("mine")), 404, notFound)
	expect(t, "POST array", f.do(t, "POST", listPath(sv.ID), "["+variableJSON("mine")+"]"), 404, notFound)
	expect(t, "DELETE", f.do(t, "DELETE", varPath(sv.ID, theirs[0].ID), ""), 404, notFound)
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x","age":3}]}`)
	expect(t, "hashes", r, 404, notFound)
	noWrites(t, "foreign hashes", r)
	other.unchanged(t, "after the other account's requests", sv.ID, theirs)
	// A trashed foreign survey is 404 too, not 409.
	if err := other.st.TrashSurvey(t.Context(), other.acct.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	expect(t, "POST to a trashed foreign survey", f.do(t, "POST", listPath(sv.ID), variableJSON("mine")), 404, notFound)
	expect(t, "DELETE in a trashed foreign survey", f.do(t, "DELETE", varPath(sv.ID, theirs[0].ID), ""), 404, notFound)
	expect(t, "hashes of a trashed foreign survey", f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x"}]}`), 404, notFound)
}

func variablesTrashedSurvey(t *testing.T, f *fixture) {
	ctx := t.Context()
	sv := f.survey(t, "Trashed")
	vars := f.create(t, sv.ID, "["+variableJSON("city")+","+variableJSON("age", "type", 2)+"]")
	if err := f.st.TrashSurvey(ctx, f.acct.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	expect(t, "POST", f.do(t, "POST", listPath(sv.ID), variableJSON("new")), 409, deleted)
	expect(t, "POST array", f.do(t, "POST", listPath(sv.ID), "["+variableJSON("new")+"]"), 409, deleted)
	expect(t, "DELETE", f.do(t, "DELETE", varPath(sv.ID, vars[0].ID), ""), 409, deleted)
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x","age":3}]}`)
	expect(t, "hashes", r, 409, deleted)
	noWrites(t, "hashes of a trashed survey", r)
	// Reading the trash is allowed, as GET of the survey is.
	f.unchanged(t, "GET in the trash", sv.ID, vars)
	// A bad body is 400 before the survey is read.
	expect(t, "bad body", f.do(t, "POST", listPath(sv.ID), variableJSON("a b")), 400, `{"name":[`+mustJSON(survey.MsgVariableNameRule)+`]}`)
	r = f.do(t, "DELETE", varPath(sv.ID, missingID), "")
	t.Logf("DELETE of a missing variable in a trashed survey answers %d %s", r.code, r.body)
}

func variablesAuthenticationAndMethods(t *testing.T, f *fixture) {
	sv := f.survey(t, "Auth")
	for _, p := range []struct{ method, path string }{
		{"GET", listPath(sv.ID)}, {"POST", listPath(sv.ID)}, {"DELETE", varPath(sv.ID, 1)}, {"POST", hashesPath(sv.ID)},
	} {
		r := send(t, f.h, p.method, p.path, "")
		expect(t, p.method+" "+p.path+" without a key", r, 401, `{"detail":"Authentication credentials were not provided."}`)
		r = send(t, f.h, p.method, p.path, "", "Authorization", "API-Key nope")
		expect(t, p.method+" "+p.path+" with a bad key", r, 401, `{"detail":"Invalid API key."}`)
	}
	r := f.do(t, "PUT", listPath(sv.ID), "{}")
	expect(t, "PUT list", r, 405, `{"detail":"Method \"PUT\" not allowed."}`)
	if a := r.header.Get("Allow"); a != "GET, POST, HEAD, OPTIONS" {
		t.Errorf("Allow of the list %q", a)
	}
	r = f.do(t, "GET", hashesPath(sv.ID), "")
	expect(t, "GET hashes", r, 405, `{"detail":"Method \"GET\" not allowed."}`)
	if a := r.header.Get("Allow"); a != "POST, OPTIONS" {
		t.Errorf("Allow of hashes %q", a)
	}
	// Without the final slash, served the same.
	if r := f.do(t, "GET", strings.TrimSuffix(listPath(sv.ID), "/"), ""); r.code != 200 || r.body != "[]" {
		t.Errorf("GET without the final slash: %d %s", r.code, r.body)
	}
}
