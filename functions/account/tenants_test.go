package account_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/cloudfront"

	"surveyservice/functions/account"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/outbox"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/cdn"
	"surveyservice/shared/survey"
)

// flaky is CloudFront failing its next calls while down is set.
type flaky struct {
	cdn.API
	down bool
}

var errDown = errors.New("cloudfront: service unavailable")

func (f *flaky) tenants() cdn.Tenants { return &cdn.CloudFront{API: f, Distribution: "E2LOCAL"} }

func (f *flaky) CreateDistributionTenant(ctx context.Context, in *cloudfrontCreate, opts ...cloudfrontOpt) (*cloudfrontCreateOut, error) {
	if f.down {
		return nil, errDown
	}
	return f.API.CreateDistributionTenant(ctx, in, opts...)
}

func (f *flaky) GetDistributionTenant(ctx context.Context, in *cloudfrontGet, opts ...cloudfrontOpt) (*cloudfrontGetOut, error) {
	if f.down {
		return nil, errDown
	}
	return f.API.GetDistributionTenant(ctx, in, opts...)
}

// TestDomainTenants: a verify that finds both records creates the
// domain's CloudFront tenant (contract section 23) before the domain is
// active; a verify asked again makes no second one; a CloudFront that
// fails answers 503 and leaves the domain pending (no domain active
// without its tenant), and the verify asked again converges; a DELETE
// removes the tenant (disabled, then deleted) before the claim, and one
// whose CloudFront call fails leaves both, so a DELETE again finishes.
// The calls are those make run records (internal/outbox's stand-in).
func TestDomainTenants(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	srv := dnstest.Start(t)
	cf := outbox.NewCloudFront(nil)
	f := &flaky{API: cf}
	env := domainsEnv(srv)
	d := account.DomainsFromEnv(func(k string) string { return env[k] })
	d.Tenants = f.tenants()
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st), Store: st, Domains: d}))
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	name := freshDomain("tenant")
	claim := decodeDomain(t, postDomain(h, key, `{"domain": "`+name+`"}`))
	srv.SetTXT("_survey-verification."+name, claim.Verification.Value)
	srv.SetCNAME(name, claim.CNAMETarget)
	del := func() testenv.Reply {
		return testenv.Serve(h, testenv.NewRequest("DELETE", fmt.Sprintf("%s%d/", domainsPath, claim.ID), key, "", nil))
	}
	status := func() string {
		t.Helper()
		r := testenv.Serve(h, testenv.NewRequest("GET", fmt.Sprintf("%s%d/", domainsPath, claim.ID), key, "", nil))
		if r.Code == http.StatusNotFound {
			return "deleted"
		}
		return decodeDomain(t, r).Status
	}
	steps := []struct {
		name    string
		down    bool
		do      func() testenv.Reply
		code    int
		status  string
		tenants map[string]bool
		creates int // CreateDistributionTenant calls so far
	}{
		{"verify, CloudFront down", true, func() testenv.Reply { return verifyDomain(h, key, claim.ID) }, 503, "pending", map[string]bool{}, 0},
		{"verify again", false, func() testenv.Reply { return verifyDomain(h, key, claim.ID) }, 200, "active", map[string]bool{name: true}, 1},
		{"verify once more", false, func() testenv.Reply { return verifyDomain(h, key, claim.ID) }, 200, "active", map[string]bool{name: true}, 2},
		{"delete, CloudFront down", true, del, 503, "active", map[string]bool{name: true}, 2},
		{"delete again", false, del, 204, "deleted", map[string]bool{}, 2},
		{"delete once more", false, del, 404, "deleted", map[string]bool{}, 2},
	}
	for _, step := range steps {
		f.down = step.down
		r := step.do()
		if r.Code != step.code {
			t.Fatalf("%s: %d %s, want %d", step.name, r.Code, r.Body, step.code)
		}
		f.down = false
		if s := status(); s != step.status {
			t.Fatalf("%s: the domain is %s, want %s", step.name, s, step.status)
		}
		got := cf.Tenants()
		if fmt.Sprint(got) != fmt.Sprint(step.tenants) {
			t.Fatalf("%s: tenants %v, want %v", step.name, got, step.tenants)
		}
		creates := 0
		for _, c := range cf.Calls() {
			if c.Op == "CreateDistributionTenant" {
				creates++
				if c.Tenant != name {
					t.Fatalf("%s: a tenant named %q", step.name, c.Tenant)
				}
			}
		}
		if creates != step.creates {
			t.Fatalf("%s: %d CreateDistributionTenant calls, want %d (%v)", step.name, creates, step.creates, cf.Calls())
		}
	}
}

// Short names of the CloudFront client's types, for flaky's methods.
type (
	cloudfrontOpt       = func(*cloudfront.Options)
	cloudfrontCreate    = cloudfront.CreateDistributionTenantInput
	cloudfrontCreateOut = cloudfront.CreateDistributionTenantOutput
	cloudfrontGet       = cloudfront.GetDistributionTenantInput
	cloudfrontGetOut    = cloudfront.GetDistributionTenantOutput
)
