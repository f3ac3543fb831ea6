package main

import (
	"testing"
	"time"

	"github.com/miekg/dns"

	"surveyservice/internal/dnstest"
	"surveyservice/internal/localaws"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestDomainsCheck: `admin domains check [--now]` runs the daily re-check
// once through DNS_RESOLVER and prints {"checked", "suspended",
// "released"} (contract section 23): a domain whose TXT record is gone is
// suspended, and released once it has failed for 7 days.
func TestDomainsCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	srv := dnstest.Start(t)
	base := e.getenv
	e.getenv = func(k string) string {
		if k == "DNS_RESOLVER" {
			return srv.Addr
		}
		return base(k)
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: "domains@example.com", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	name := "forms.acme.example"
	d, err := st.ClaimDomain(ctx, a.ID, name, dc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.ClaimForVerify(ctx, a.ID, d.ID, dc)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTXT("_survey-verification."+name, c.TXT)
	srv.SetCNAME(name, c.Target)
	if err := st.ActivateDomain(ctx, a.ID, c, time.Now()); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, now string
		change    func()
		want      string
	}{
		{"records in place", "2026-06-01T03:00:00Z", func() {}, `{"checked":1,"suspended":0,"released":0}`},
		{"TXT removed", "2026-06-02T03:00:00Z", func() { srv.Remove("_survey-verification."+name, dns.TypeTXT) }, `{"checked":1,"suspended":1,"released":0}`},
		{"still failing", "2026-06-03T03:00:00Z", func() {}, `{"checked":1,"suspended":0,"released":0}`},
		{"7 days failing", "2026-06-09T03:00:00Z", func() {}, `{"checked":1,"suspended":0,"released":1}`},
		{"nothing left", "2026-06-10T03:00:00Z", func() {}, `{"checked":0,"suspended":0,"released":0}`},
	}
	for _, s := range steps {
		s.change()
		r := e.run(t, "domains", "check", "--now", s.now)
		var out struct{ Checked, Suspended, Released int }
		r.ok(t, &out, "checked", "suspended", "released")
		if r.stdout != s.want+"\n" {
			t.Fatalf("%s: printed %q, want %s", s.name, r.stdout, s.want)
		}
	}
	if r := e.run(t, "domains", "check", "--now", "yesterday"); r.code != 2 {
		t.Errorf("a bad --now: exit %d, want 2 (usage)", r.code)
	}
	if _, err := st.AccountDomain(ctx, a.ID, d.ID, dc); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the released claim: %v, want not found", err)
	}
}
