package sweeper_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/miekg/dns"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestCheckDomains runs the daily re-check (contract section 23) on the
// emulator with a DNS server of the test's own: an active domain whose
// records hold stays active (checked_at set); one whose TXT record or
// CNAME is gone, or whose CNAME points elsewhere, is suspended (it serves
// no more) and notified once; a suspended one whose records are back is
// active again; one that keeps failing is released after 7 days (its
// claim gone: a new claim needs a new TXT value); a resolver that cannot
// answer changes nothing.
func TestCheckDomains(t *testing.T) {
	st := testenv.Store(t)
	ctx := t.Context()
	srv := dnstest.Start(t)
	checker := dnscheck.New(srv.Addr)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	type domain struct {
		name string
		c    store.DomainClaim
	}
	mk := func(label string) domain {
		t.Helper()
		name := fmt.Sprintf("%s-%d.acme.example", label, time.Now().UnixNano()%1e9)
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
		return domain{name, c}
	}
	kept, noTXT, noCNAME, moved, back := mk("kept"), mk("notxt"), mk("nocname"), mk("moved"), mk("back")
	notified := map[string]int{}
	status := func(d domain) string {
		t.Helper()
		got, err := st.AccountDomain(ctx, a.ID, d.c.Domain.ID, dc)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return "released"
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.CheckedAt == nil {
			t.Fatalf("%s: checked_at null after a check", d.name)
		}
		if aid, _ := st.ResolveDomain(ctx, d.name); (aid == a.ID) != (got.Status == survey.DomainActive) {
			t.Fatalf("%s: %s but serves account %d", d.name, got.Status, aid)
		}
		return got.Status
	}
	day0 := time.Now()
	steps := []struct {
		name   string
		change func()
		at     time.Time
		want   sweeper.DomainsResult
		status map[*domain]string
	}{
		{"records removed or moved", func() {
			srv.Remove("_survey-verification."+noTXT.name, dns.TypeTXT)
			srv.Remove(noCNAME.name, dns.TypeCNAME)
			srv.SetCNAME(moved.name, "someone-else.domains.survey.example")
			srv.Remove(back.name, dns.TypeCNAME)
		}, day0, sweeper.DomainsResult{Checked: 5, Suspended: 4},
			map[*domain]string{&kept: "active", &noTXT: "suspended", &noCNAME: "suspended", &moved: "suspended", &back: "suspended"}},
		{"a resolver that cannot answer", func() { srv.SetFail(true) }, day0.Add(24 * time.Hour), sweeper.DomainsResult{},
			map[*domain]string{&kept: "active", &noTXT: "suspended", &back: "suspended"}},
		{"one put back", func() { srv.SetFail(false); srv.SetCNAME(back.name, back.c.Target) }, day0.Add(2 * 24 * time.Hour),
			sweeper.DomainsResult{Checked: 5}, map[*domain]string{&kept: "active", &back: "active", &moved: "suspended"}},
		{"six days failing", func() {}, day0.Add(6 * 24 * time.Hour), sweeper.DomainsResult{Checked: 5},
			map[*domain]string{&noTXT: "suspended", &noCNAME: "suspended", &moved: "suspended"}},
		{"seven days failing", func() {}, day0.Add(7*24*time.Hour + time.Minute), sweeper.DomainsResult{Checked: 5, Released: 3},
			map[*domain]string{&kept: "active", &back: "active", &noTXT: "released", &noCNAME: "released", &moved: "released"}},
		{"a day later", func() {}, day0.Add(8 * 24 * time.Hour), sweeper.DomainsResult{Checked: 2},
			map[*domain]string{&kept: "active", &back: "active"}},
	}
	for _, step := range steps {
		step.change()
		got, err := sweeper.CheckDomains(ctx, st, checker, nil, step.at, func(_ context.Context, o store.DomainOwner) error {
			notified[o.Domain]++
			return nil
		})
		if err != nil || got != step.want {
			t.Fatalf("%s: %+v, %v; want %+v", step.name, got, err, step.want)
		}
		for d, want := range step.status {
			if s := status(*d); s != want {
				t.Fatalf("%s: %s is %s, want %s", step.name, d.name, s, want)
			}
		}
	}
	for _, d := range []domain{noTXT, noCNAME, moved, back} {
		if notified[d.name] != 1 {
			t.Errorf("%s notified %d times, want once", d.name, notified[d.name])
		}
	}
	if notified[kept.name] != 0 {
		t.Errorf("%s notified, though its records held", kept.name)
	}
	// The released domain is free: its old records prove nothing to a new
	// claim, which has a value of its own.
	d, err := st.ClaimDomain(ctx, a.ID, noTXT.name, dc)
	if err != nil || d.Verification.Value == noTXT.c.TXT || d.Status != survey.DomainPending {
		t.Fatalf("claim after release: %+v, %v", d, err)
	}
}
