package settings_test

import (
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

// TestNotEnforcedSettings: service_auth, authentication_needed and
// service_auth_domains are stored and change nothing until section 18
// lands, and the settings answer says so plainly: not_enforced names
// each one that is on, with why (before: an owner believed
// a survey restricted to *@company.example).
func TestNotEnforcedSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Sign-in")
	if got := f.get(t, sid)["not_enforced"]; !reflect.DeepEqual(got, map[string]any{}) {
		t.Errorf("a new survey's not_enforced: %#v, want {}", got)
	}
	r := f.patch(t, sid, map[string]any{"service_auth": true, "authentication_needed": true, "service_auth_domains": []string{"*@company.example"}})
	if r.code != 200 {
		t.Fatalf("PATCH: %d %s", r.code, r.body)
	}
	for _, answer := range []map[string]any{decodeMap(t, r.body), f.get(t, sid)} {
		ne, _ := answer["not_enforced"].(map[string]any)
		for _, k := range []string{"service_auth", "authentication_needed", "service_auth_domains"} {
			if s, _ := ne[k].(string); s == "" {
				t.Errorf("not_enforced lacks %s: %#v", k, answer["not_enforced"])
			}
		}
		if len(ne) != 3 {
			t.Errorf("not_enforced names more than the three: %#v", ne)
		}
	}
	// A GET-then-PATCH round trip stays whole (not_enforced is read-only).
	g := f.get(t, sid)
	check(t, "round trip", f.patch(t, sid, g), 200, g)
	off := map[string]any{"service_auth": false, "authentication_needed": false, "service_auth_domains": nil}
	if ne := decodeMap(t, f.patch(t, sid, off).body)["not_enforced"]; !reflect.DeepEqual(ne, map[string]any{}) {
		t.Errorf("all three off: not_enforced %#v, want {}", ne)
	}
}
