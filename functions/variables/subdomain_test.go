package variables_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/responders"
	"surveyservice/functions/variables"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
)

// TestLinksUseTheSubdomain: personalised links point at the account's
// subdomain while it has one, at PUBLIC_SURVEY_URL before and after, and a
// change shows at once (contract section 23); the request's Host never
// chooses the link.
func TestLinksUseTheSubdomain(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Subdomain links")
	cfg := hosts.Config{Domain: "survey.example", Scheme: "https"}
	v := variables.New(variables.Deps{Auth: api.NewAuthenticator(f.st), Store: f.st, Sealer: f.sealer, SurveyURL: surveyURL, Hosts: cfg})
	f.h = testenv.Conform(api.Mount(v, responders.New(responders.Deps{Store: f.st, Sealer: f.sealer, Now: time.Now})))
	name := fmt.Sprintf("links%d", f.acct.ID)
	ctx := context.Background()
	steps := []struct {
		what   string
		change func() error
		base   string
	}{
		{"no subdomain", func() error { return nil }, surveyURL},
		{"claimed", func() error { _, err := f.st.ClaimSubdomain(ctx, f.acct.ID, name); return err }, "https://" + name + ".survey.example"},
		{"renamed", func() error { _, err := f.st.ClaimSubdomain(ctx, f.acct.ID, name+"-2"); return err }, "https://" + name + "-2.survey.example"},
		{"released", func() error { return f.st.ReleaseSubdomain(ctx, f.acct.ID) }, surveyURL},
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		req := httptest.NewRequest("POST", hashesPath(sv.ID), strings.NewReader(`{"values":[{"city":"Tehran"}]}`))
		req.Host = "other.survey.example" // never the link's host
		req.Header.Set("Authorization", "API-Key "+f.key)
		req.Header.Set("Content-Type", "application/json")
		r := serveReq(f.h, req)
		var out struct{ URLs []string }
		if r.code != 200 || json.Unmarshal([]byte(r.body), &out) != nil || len(out.URLs) != 1 {
			t.Fatalf("%s: %d %.300s", s.what, r.code, r.body)
		}
		if want := s.base + "/s/" + sv.URLSlug + "/?qs="; len(out.URLs[0]) <= len(want) || out.URLs[0][:len(want)] != want {
			t.Errorf("%s: link %q, want %s...", s.what, out.URLs[0], want)
		}
	}
}
