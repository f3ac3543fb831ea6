package settings_test

import (
	"testing"

	"surveyservice/shared/survey"
)

// TestAuthenticationNeededDerived: authentication_needed reads true exactly
// when service_auth, phone_number_auth or code_auth is on; a PATCH of it is
// checked against the plan as any gated field and otherwise ignored
// (section 18). Before, it was stored as sent and read true with every
// method off.
func TestAuthenticationNeededDerived(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Derived")
	needed := func(what string, r reply, want bool) {
		t.Helper()
		if r.code != 200 {
			t.Fatalf("%s: %v", what, r)
		}
		if got := decodeMap(t, r.body)["authentication_needed"]; got != want {
			t.Errorf("%s: authentication_needed %v, want %v", what, got, want)
		}
		if got := f.get(t, sid)["authentication_needed"]; got != want {
			t.Errorf("GET after %s: authentication_needed %v, want %v", what, got, want)
		}
	}
	needed("sent true, no method on", f.patch(t, sid, `{"authentication_needed": true}`), false)
	// The sign-in settings are enforced: the answer no longer flags them
	// as not enforced (before section 18 it had not_enforced).
	if _, ok := decodeMap(t, f.patch(t, sid, `{"service_auth": true}`).body)["not_enforced"]; ok {
		t.Errorf("the settings answer still has not_enforced")
	}
	f.patch(t, sid, `{"service_auth": false}`)
	for _, m := range []string{"service_auth", "phone_number_auth", "code_auth"} {
		needed(m+" on", f.patch(t, sid, map[string]any{m: true}), true)
		needed("sent false with "+m+" on", f.patch(t, sid, `{"authentication_needed": false}`), true)
		needed(m+" off", f.patch(t, sid, map[string]any{m: false}), false)
	}
	needed("two on", f.patch(t, sid, `{"phone_number_auth": true, "code_auth": true, "authentication_needed": false}`), true)
	c := f.coll(t, sid)
	if sum := c.Settings.Summary(c.Layout); !sum.AuthenticationNeeded || !sum.PhoneNumberAuth || sum.ServiceAuth {
		t.Errorf("the detail's summary: %+v", sum)
	}

	// On a plan without sign-in, sending it with another value than it
	// reads is refused as any gated change; the same value passes.
	pro := newFixture(t, survey.PlanPro)
	psid := pro.newSurvey(t, "Pro")
	if r := pro.patch(t, psid, `{"authentication_needed": true}`); r.code != 403 {
		t.Errorf("pro turning authentication_needed on: %v, want 403", r)
	}
	if r := pro.patch(t, psid, `{"authentication_needed": false}`); r.code != 200 {
		t.Errorf("pro sending authentication_needed as it reads: %v, want 200", r)
	}
	for _, m := range []string{"phone_number_auth", "phone_number_auth_is_unique", "phone_numbers_limited"} {
		if r := pro.patch(t, psid, map[string]any{m: true}); r.code != 403 {
			t.Errorf("pro turning %s on: %v, want 403", m, r)
		}
	}
}
