package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/hosts"
	"surveyservice/shared/survey"
)

// TestBrowserSubdomain: as make run serves them (PUBLIC_SURVEY_DOMAIN=
// localhost, Chromium resolving *.localhost to 127.0.0.1), a survey is
// answered at <subdomain>.localhost:PORT, its page's canonical URL is the
// subdomain's address (no port), and the response is recorded (contract
// section 23).
func TestBrowserSubdomain(t *testing.T) {
	st := testenv.Store(t)
	a, key := testenv.NewAccount(t, survey.PlanEnterprise)
	const public = "http://127.0.0.1"
	hc := hosts.Config{Own: []string{"127.0.0.1"}, Domain: "localhost", Scheme: "http"}
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: public, hosts: hc, exports: testenv.Exports(t),
		pages: pages.Config{PublicURL: public, Links: hosts.NewLinks(hc, public, st)}}))
	srv := httptest.NewServer(hosts.New(hc, st).Wrap(h, hosts.Serving, pages.NotFound()))
	t.Cleanup(srv.Close)
	p := pagesServer{srv: srv, api: apiClient{h: h, key: key}}
	name := fmt.Sprintf("acme-%d", a.ID)
	if _, err := st.ClaimSubdomain(context.Background(), a.ID, name); err != nil {
		t.Fatal(err)
	}
	sv := p.build(t, oneQuestion("at the subdomain", nil))
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	seen(t, ctx, "http://"+name+".localhost:"+u.Port()+"/s/"+sv.URLSlug+"/", "textarea", "subdomain-page")
	if c := evalJS[string](t, ctx, `document.querySelector('link[rel="canonical"]').href`); c != "http://"+name+".localhost/s/"+sv.URLSlug+"/" {
		t.Errorf("canonical %q, want the subdomain's address", c)
	}
	checkAxe(t, ctx, "survey page at a subdomain")
	keys(t, ctx, "hello")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	shot(t, ctx, "subdomain-thanks")
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Fatalf("responses %+v, want one", rs)
	}
	// Another account's survey is no page of this subdomain.
	other := newPagesServer(t).build(t, oneQuestion("elsewhere", nil))
	if err := chromedp.Run(ctx, chromedp.Navigate("http://"+name+".localhost:"+u.Port()+"/s/"+other.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	if got := evalJS[bool](t, ctx, `document.querySelector("textarea") === null`); !got {
		t.Errorf("another account's survey is served at %s.localhost", name)
	}
}
