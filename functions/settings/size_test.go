package settings_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// TestCodesAnswersAtTheBound: 5,000 codes of 100 characters, each as
// costly in JSON as a code can be (U+2028 is neither a control character
// nor, inside a code, trimmed, and JSON writes it \u2028: 6 bytes), sent
// in one POST and read back as one page of 5,000: both answers stay under
// api.MaxAnswer.
func TestCodesAnswersAtTheBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Codes at the bound")
	codes := make([]string, 5000)
	for i := range codes {
		tag := fmt.Sprintf("%04d", i)
		codes[i] = tag + strings.Repeat("\u2028", 100-len(tag)-1) + "z"
	}
	body, err := json.Marshal(codes)
	if err != nil {
		t.Fatal(err)
	}
	r := f.do("POST", codesPath(sid), string(body))
	if r.code != 201 {
		t.Fatalf("POST: %v", r)
	}
	t.Logf("POST of 5,000 codes of 100 characters: request %d bytes, answer %d bytes (%s)", len(body), len(r.body), api.SizeName(int64(len(r.body))))
	if len(r.body) > api.MaxAnswer {
		t.Errorf("POST answered %d bytes, over the %d bound", len(r.body), api.MaxAnswer)
	}
	// One code more, so that the page has a next link; a long query makes
	// that link long too.
	if r := f.do("POST", codesPath(sid), `["`+strings.Repeat("\u2028", 1)+`extra"]`); r.code != 201 {
		t.Fatalf("POST: %v", r)
	}
	q := "?page_size=5000&pad=" + strings.Repeat("x", 2000)
	r = f.do("GET", codesPath(sid)+q, "")
	if r.code != 200 {
		t.Fatalf("GET: %.300s", r)
	}
	t.Logf("GET of a page of 5,000 such codes (and a %d-byte query): %d bytes (%s)", len(q), len(r.body), api.SizeName(int64(len(r.body))))
	if len(r.body) > api.MaxAnswer {
		t.Errorf("GET answered %d bytes, over the %d bound", len(r.body), api.MaxAnswer)
	}
}

// TestAuthDomainsBound: service_auth_domains holds at most 100 patterns; a
// longer list is refused whole, so that a 1 MiB list of bad items (one
// error each) never makes an answer of many times its size.
func TestAuthDomainsBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanEnterprise)
	sid := f.newSurvey(t, "Domains")
	domains := make([]string, survey.MaxAuthDomains)
	for i := range domains {
		domains[i] = fmt.Sprintf("*@d%d.example.com", i)
	}
	if r := f.patch(t, sid, map[string]any{"service_auth_domains": domains}); r.code != 200 {
		t.Fatalf("100 domains: %v", r)
	}
	refused := `{"service_auth_domains":["Ensure this field has no more than 100 elements."]}`
	check(t, "101 domains", f.patch(t, sid, map[string]any{"service_auth_domains": append(domains, "*@one-more.example.com")}), 400, refused)
	numbers := `{"service_auth_domains":[` + strings.TrimSuffix(strings.Repeat("1,", (api.MaxBody-40)/2), ",") + `]}`
	r := f.do("PATCH", settingsPath(sid), numbers)
	check(t, "a 1 MiB list of numbers", r, 400, refused)
	if got := f.get(t, sid)["service_auth_domains"]; len(strs(t, got)) != survey.MaxAuthDomains {
		t.Errorf("the refused PATCHes changed the domains: %v", got)
	}
}
