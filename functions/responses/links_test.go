package responses_test

import (
	"encoding/json"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
)

// TestLinksIgnoreTheHostHeader: the next link of a page of responses, the
// export link (a bearer capability) and an export job's Location start
// with the API's configured address (API_BASE_URL), whatever Host,
// X-Forwarded-Host and X-Forwarded-Proto the client sends (contract
// section 3).
func TestLinksIgnoreTheHostHeader(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seed(t, f.sid, f.text, 2)
	hostile := func(method, target string) reply {
		req := testenv.NewRequest(method, target, f.key, "", nil)
		req.Host = "attacker.example"
		req.Header.Set("X-Forwarded-Host", "attacker.example")
		req.Header.Set("X-Forwarded-Proto", "https")
		r := testenv.Serve(f.h, req)
		return reply{code: r.Code, body: r.Body, header: r.Header, calls: r.Calls}
	}
	want := func(what, link string) {
		t.Helper()
		if !strings.HasPrefix(link, testenv.APIBase+"/api/") {
			t.Errorf("%s %q, want it under %s", what, link, testenv.APIBase)
		}
	}

	r := hostile("GET", listPath(f.sid)+"?page_size=1")
	var p page
	if err := json.Unmarshal(r.body, &p); r.code != 200 || err != nil || p.Next == nil {
		t.Fatalf("list: %v", r)
	}
	want("next", *p.Next)

	r = hostile("GET", exportPath(f.sid))
	var export map[string]string
	if err := json.Unmarshal(r.body, &export); r.code != 200 || err != nil {
		t.Fatalf("export: %v", r)
	}
	want("export link", export["export"])

	r = hostile("POST", exportJobsPath(f.sid))
	if r.code != 202 {
		t.Fatalf("export job: %v", r)
	}
	want("export job Location", r.header.Get("Location"))
}
