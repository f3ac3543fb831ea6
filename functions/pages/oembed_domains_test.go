package pages_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestOEmbedOnCustomDomain: contract section 23. oEmbed takes a survey's
// page at an active custom domain of the survey's account (the iframe
// still points where the service's links do), and answers 404 for its
// address on another account's domain, on a pending or a suspended
// domain of its own account, on an unknown one, and for another account's
// survey on its own domain; a deleted domain stops answering once the
// container's cache (30 s) has passed, within contract section 23's minute.
func TestOEmbedOnCustomDomain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	ctx := t.Context()
	b := testenv.NewOwner(t, survey.PlanEnterprise, "B")
	theirs := testenv.NewSurvey(t, f.st, b.Account.ID, b.Folder, "theirs")
	suffix := fmt.Sprint(time.Now().UnixNano() % 1e9)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example.org"}
	claim := func(aid int64, domain string, activate bool) store.DomainClaim {
		t.Helper()
		d, err := f.st.ClaimDomain(ctx, aid, domain, dc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.st.ClaimForVerify(ctx, aid, d.ID, dc)
		if err != nil {
			t.Fatal(err)
		}
		if activate {
			if err := f.st.ActivateDomain(ctx, aid, c, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	mine, pending, suspended, other := "forms-"+suffix+".acme.example", "pending-"+suffix+".acme.example",
		"suspended-"+suffix+".acme.example", "other-"+suffix+".acme.example"
	active := claim(f.aid, mine, true)
	claim(f.aid, pending, false)
	s := claim(f.aid, suspended, true)
	claim(b.Account.ID, other, true)
	sub := "forms-" + suffix // the other account's subdomain
	if _, err := f.st.ClaimSubdomain(ctx, b.Account.ID, sub); err != nil {
		t.Fatal(err)
	}
	o := store.DomainOwner{PK: store.DomainPK(suspended), AccountID: f.aid, DomainID: s.Domain.ID, Status: survey.DomainActive}
	if ok, err := f.st.SetDomainStatus(ctx, o, survey.DomainSuspended, time.Now()); !ok || err != nil {
		t.Fatalf("suspend: %v %v", ok, err)
	}

	const public, apiBase = "https://survey.example.org", "https://api.example.net"
	clock := time.Now()
	// The Links of the pages' host resolver, as the pages' main makes them:
	// what a domain serves is remembered in the resolver's one cache.
	byHost := hosts.New(hosts.Config{Domain: "survey.example.org", Scheme: "https", Own: []string{"survey.example.org", "api.example.net"}}, f.st)
	byHost.Now = func() time.Time { return clock }
	lk := byHost.Links(public, f.st)
	h := testenv.Conform(api.ServeAt(apiBase, pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now,
		Config: pages.Config{PublicURL: public, Links: lk}})))
	var calls map[string]int // the DynamoDB calls of the last request, by operation
	oembed := func(page string) (int, string) {
		req := httptest.NewRequest("GET", "/api/oembed/?"+url.Values{"url": {page}}.Encode(), nil)
		req.Host = "attacker.example"
		r := testenv.Serve(h, req)
		calls = r.Calls.Ops()
		return r.Code, string(r.Body)
	}
	at := func(domain, slug string) string { return "https://" + domain + "/s/" + slug + "/" }
	share := public + "/s/" + f.sv.URLSlug + "/"
	for _, tc := range []struct {
		name, page string
		code       int
		src        string // the iframe's src, on a 200
	}{
		{"its account's active domain", at(mine, f.sv.URLSlug), 200, share},
		{"in capitals, over http, without the final slash", "http://" + strings.ToUpper(mine) + "/s/" + f.sv.URLSlug, 200, share},
		{"a personalised link keeps its qs", at(mine, f.sv.URLSlug) + "?qs=abc", 200, share + "?qs=abc"},
		{"another account's survey on it", at(mine, theirs.URLSlug), 404, ""},
		{"on another account's active domain", at(other, f.sv.URLSlug), 404, ""},
		{"that account's survey on its own domain", at(other, theirs.URLSlug), 200, at(sub+".survey.example.org", theirs.URLSlug)},
		// A final dot names the same host (as DNS reads it), on a domain and
		// a subdomain alike; a port the service does not serve on names
		// none of its pages, on either.
		{"its account's domain with a final dot", at(mine+".", f.sv.URLSlug), 200, share},
		{"its account's domain with a port", at(mine+":8443", f.sv.URLSlug), 404, ""},
		{"that account's subdomain", at(sub+".survey.example.org", theirs.URLSlug), 200, at(sub+".survey.example.org", theirs.URLSlug)},
		{"that account's subdomain with a final dot", at(sub+".survey.example.org.", theirs.URLSlug), 200, at(sub+".survey.example.org", theirs.URLSlug)},
		{"that account's subdomain with a port", at(sub+".survey.example.org:8443", theirs.URLSlug), 404, ""},
		{"its survey at that account's subdomain", at(sub+".survey.example.org", f.sv.URLSlug), 404, ""},
		{"a pending domain of its account", at(pending, f.sv.URLSlug), 404, ""},
		{"a suspended domain of its account", at(suspended, f.sv.URLSlug), 404, ""},
		{"an unknown domain", at("unknown-"+suffix+".acme.example", f.sv.URLSlug), 404, ""},
		{"not a page's path on the domain", "https://" + mine + "/r/" + f.sv.URLSlug + "/", 404, ""},
		{"an IP address", at("192.0.2.7", f.sv.URLSlug), 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := oembed(tc.page)
			if code != tc.code {
				t.Fatalf("oEmbed of %s: %d %.300s, want %d", tc.page, code, body, tc.code)
			}
			var a struct{ HTML string }
			if code == 200 && (json.Unmarshal([]byte(body), &a) != nil || !strings.Contains(a.HTML, `src="`+html.EscapeString(tc.src)+`"`)) {
				t.Errorf("oEmbed of %s: %.300s, want the iframe at %s", tc.page, body, tc.src)
			}
		})
	}

	// What a host serves is remembered: an unknown domain costs one
	// GetItem of its item, then nothing while the cache holds it.
	unknown := at("never-"+suffix+".acme.example", f.sv.URLSlug)
	for i, want := range []int{1, 0} {
		if code, _ := oembed(unknown); code != 404 || calls["DynamoDB.GetItem"] != want || len(calls) > want {
			t.Errorf("an unknown domain, request %d: %d, DynamoDB calls %v; want 404 and %d GetItem", i+1, code, calls, want)
		}
	}

	// One cache of what a domain serves: the page's host resolver learned
	// it for a request on the domain, and oEmbed reads nothing more.
	seen := "seen-" + suffix + ".acme.example"
	req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil)
	req.Host = seen
	if r := testenv.Serve(byHost.Wrap(h, hosts.Serving, pages.NotFound()), req); r.Code != 404 || r.Calls.Ops()["DynamoDB.GetItem"] != 1 {
		t.Errorf("a page on an unknown domain: %d, DynamoDB calls %v; want 404 and 1 GetItem", r.Code, r.Calls.Ops())
	}
	if code, _ := oembed(at(seen, f.sv.URLSlug)); code != 404 || len(calls) != 0 {
		t.Errorf("oEmbed of a page on the domain the page's host resolver just read: %d, DynamoDB calls %v; want 404 and none", code, calls)
	}

	// A deleted domain answers until the container's cache passes.
	if err := f.st.DeleteDomain(ctx, f.aid, active.Domain.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := oembed(at(mine, f.sv.URLSlug)); code != 200 {
		t.Errorf("a deleted domain within the cache: %d %.200s, want 200", code, body)
	}
	clock = clock.Add(hosts.CacheTTL)
	if code, body := oembed(at(mine, f.sv.URLSlug)); code != 404 {
		t.Errorf("a deleted domain after the cache: %d %.200s, want 404", code, body)
	}
}
