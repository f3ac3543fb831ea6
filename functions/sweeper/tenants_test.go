package sweeper_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/miekg/dns"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/outbox"
	"surveyservice/internal/testenv"
	"surveyservice/shared/cdn"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestCheckDomainsTenants: the daily check keeps CloudFront's side of a
// domain (contract section 23) on make run's stand-in: a suspension
// removes the domain's tenant (disabled, then deleted); records back make
// it again before the domain is active; a check retried makes no second
// one; a release finds it removed (the suspension's runs removed it, one
// read each) and deletes the domain.
func TestCheckDomainsTenants(t *testing.T) {
	st := testenv.Store(t)
	ctx := t.Context()
	srv := dnstest.Start(t)
	checker := dnscheck.New(srv.Addr)
	cf := outbox.NewCloudFront(nil)
	tenants := &cdn.CloudFront{API: cf, Distribution: "E2LOCAL"}
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	name := fmt.Sprintf("tenants-%d.acme.example", rand.Int64N(1e9))
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
	if err := tenants.Create(ctx, name); err != nil { // as verify does, before activating
		t.Fatal(err)
	}
	if err := st.ActivateDomain(ctx, a.ID, c, time.Now()); err != nil {
		t.Fatal(err)
	}
	day0 := time.Now()
	steps := []struct {
		name    string
		change  func()
		at      time.Time
		want    sweeper.DomainsResult
		tenants map[string]bool
		ops     []string // the calls this step made
	}{
		{"records hold", func() {}, day0, sweeper.DomainsResult{Checked: 1}, map[string]bool{name: true}, nil},
		{"CNAME gone: suspended", func() { srv.Remove(name, dns.TypeCNAME) }, day0.Add(time.Hour), sweeper.DomainsResult{Checked: 1, Suspended: 1},
			map[string]bool{}, []string{"GetDistributionTenant", "UpdateDistributionTenant", "DeleteDistributionTenant"}},
		{"the check retried", func() {}, day0.Add(2 * time.Hour), sweeper.DomainsResult{Checked: 1}, map[string]bool{}, []string{"GetDistributionTenant"}},
		{"records back: active", func() { srv.SetCNAME(name, c.Target) }, day0.Add(24 * time.Hour), sweeper.DomainsResult{Checked: 1},
			map[string]bool{name: true}, []string{"CreateDistributionTenant"}},
		{"that check retried", func() {}, day0.Add(25 * time.Hour), sweeper.DomainsResult{Checked: 1}, map[string]bool{name: true}, nil},
		{"gone again", func() { srv.Remove(name, dns.TypeCNAME) }, day0.Add(48 * time.Hour), sweeper.DomainsResult{Checked: 1, Suspended: 1},
			map[string]bool{}, []string{"GetDistributionTenant", "UpdateDistributionTenant", "DeleteDistributionTenant"}},
		{"seven days failing: released", func() {}, day0.Add(48*time.Hour + survey.DomainRelease + time.Minute), sweeper.DomainsResult{Checked: 1, Released: 1},
			map[string]bool{}, []string{"GetDistributionTenant"}},
	}
	for _, step := range steps {
		step.change()
		before := len(cf.Calls())
		got, err := sweeper.CheckDomains(ctx, st, checker, tenants, step.at, nil)
		if err != nil || got != step.want {
			t.Fatalf("%s: %+v, %v; want %+v", step.name, got, err, step.want)
		}
		if fmt.Sprint(cf.Tenants()) != fmt.Sprint(step.tenants) {
			t.Fatalf("%s: tenants %v, want %v", step.name, cf.Tenants(), step.tenants)
		}
		var ops []string
		for _, call := range cf.Calls()[before:] {
			ops = append(ops, call.Op)
		}
		if fmt.Sprint(ops) != fmt.Sprint(step.ops) {
			t.Fatalf("%s: CloudFront calls %v, want %v", step.name, ops, step.ops)
		}
		aid, err := st.ResolveDomain(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if serving := aid == a.ID; serving != step.tenants[name] {
			t.Fatalf("%s: serving %t, tenant %t", step.name, serving, step.tenants[name])
		}
	}
}
