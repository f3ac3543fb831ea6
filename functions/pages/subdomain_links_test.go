package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
)

// TestPageLinksUseTheSubdomain: the page's canonical URL, its oEmbed
// discovery link and oEmbed's iframe point at the survey's account
// subdomain while it has one, else at PUBLIC_SURVEY_URL, whatever the
// request's Host; a change is seen once the container's cache (30 s) has
// passed, within the minute of contract section 23; oEmbed takes the page
// at its subdomain, and another account's subdomain is no page of it.
func TestPageLinksUseTheSubdomain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	const public, apiBase = "https://survey.example.org", "https://api.example.net"
	clock := time.Now()
	lk := hosts.NewLinks(hosts.Config{Domain: "survey.example.org", Scheme: "https"}, public, f.st)
	lk.Now = func() time.Time { return clock }
	h := testenv.Conform(api.ServeAt(apiBase, pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now,
		Config: pages.Config{PublicURL: public, Links: lk}})))
	get := func(target string) (int, string) {
		req := httptest.NewRequest("GET", target, nil)
		req.Host = "attacker.example"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	canonical := regexp.MustCompile(`<link rel="canonical" href="([^"]+)"`)
	discovery := regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)"`)
	check := func(what, base string) {
		t.Helper()
		page := base + "/s/" + f.sv.URLSlug + "/"
		code, body := get("/s/" + f.sv.URLSlug + "/")
		c, d := canonical.FindStringSubmatch(body), discovery.FindStringSubmatch(body)
		if code != 200 || c == nil || d == nil {
			t.Fatalf("%s: page %d, canonical %v, discovery %v", what, code, c, d)
		}
		if got := html.UnescapeString(c[1]); got != page {
			t.Errorf("%s: canonical %q, want %q", what, got, page)
		}
		want := apiBase + "/api/oembed/?" + url.Values{"url": {page}, "format": {"json"}}.Encode()
		if got := html.UnescapeString(d[1]); got != want {
			t.Errorf("%s: discovery %q, want %q", what, got, want)
		}
		code, body = get("/api/oembed/?" + url.Values{"url": {page}}.Encode())
		var o struct{ HTML string }
		if code != 200 || json.Unmarshal([]byte(body), &o) != nil || !regexp.MustCompile(`src="`+regexp.QuoteMeta(html.EscapeString(page))).MatchString(o.HTML) {
			t.Errorf("%s: oEmbed of %s: %d %.300s", what, page, code, body)
		}
	}
	name := fmt.Sprintf("pages%d", f.aid)
	sub := "https://" + name + ".survey.example.org"
	check("no subdomain", public)
	if _, err := f.st.ClaimSubdomain(context.Background(), f.aid, name); err != nil {
		t.Fatal(err)
	}
	check("claimed, within the cache", public)
	clock = clock.Add(hosts.CacheTTL)
	check("claimed, after the cache", sub)
	other := "https://someone-else.survey.example.org/s/" + f.sv.URLSlug + "/"
	if code, body := get("/api/oembed/?" + url.Values{"url": {other}}.Encode()); code != 404 {
		t.Errorf("oEmbed of another subdomain's address: %d %.200s, want 404", code, body)
	}
	if err := f.st.ReleaseSubdomain(context.Background(), f.aid); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(hosts.CacheTTL)
	check("released", public)
}
