package settings_test

import (
	"testing"

	"surveyservice/shared/survey"
)

// TestListItemNULRefusedAsNUL (contract section 3 amended): a NUL in an
// authentication code, a phone number (either body form) or a sign-in
// domain is a NUL in a string field: 400 on that item, "Null characters
// are not allowed.", as every other string field answers it (codes said
// "control characters", numbers "Enter a valid mobile number.", domains
// "Enter a pattern"); nothing is stored.
func TestListItemNULRefusedAsNUL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "NUL items")
	const nul = `["Null characters are not allowed."]`
	for _, c := range []struct{ name, method, path, body, want string }{
		{"code", "POST", codesPath(sid), `["ok", "a\u0000b"]`, `{"non_field_errors": {"1": ` + nul + `}}`},
		{"code in an object", "POST", codesPath(sid), `{"codes": ["\u0000"]}`, `{"codes": {"0": ` + nul + `}}`},
		{"code deleted", "DELETE", codesPath(sid), `["\u0000"]`, `{"non_field_errors": {"0": ` + nul + `}}`},
		{"number", "POST", phonesPath(sid), `["+14155550100", "+1415\u00005550101"]`, `{"phone_numbers": {"1": ` + nul + `}}`},
		{"number deleted", "DELETE", phonesPath(sid), `{"phone_numbers": ["\u0000"]}`, `{"phone_numbers": {"0": ` + nul + `}}`},
		{"sign-in domain", "PATCH", settingsPath(sid), `{"service_auth_domains": ["*@example.com", "*@exa\u0000mple.com"]}`,
			`{"service_auth_domains": {"1": ` + nul + `}}`},
	} {
		check(t, c.name, f.do(c.method, c.path, c.body), 400, c.want)
	}
	if n := f.count(t, sid); n != 0 {
		t.Errorf("codes stored: %d", n)
	}
	if got := f.phones(t, sid); len(got) != 0 {
		t.Errorf("numbers stored: %q", got)
	}
}
