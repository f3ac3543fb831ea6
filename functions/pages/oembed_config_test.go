package pages_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/links"
)

// TestOEmbedFromConfiguration: oEmbed answers for the service's own share
// link and personalised links under PUBLIC_SURVEY_URL, and for the page at
// the API's own address (API_BASE_URL); the discovery link, the iframe's
// src and provider_url come from that configuration, whatever Host or
// X-Forwarded-* headers the client sends, and a page "on" the client's
// Host is no page of this service (contract sections 3 and 17).
func TestOEmbedFromConfiguration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	const public, apiBase = "https://survey.example.org", "https://api.example.net/v1"
	h := testenv.Conform(api.ServeAt(apiBase, pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now,
		Config: pages.Config{PublicURL: public}})))
	get := func(target, accept string) (int, string) {
		req := httptest.NewRequest("GET", target, nil)
		req.Host = "attacker.example"
		req.Header.Set("X-Forwarded-Host", "attacker.example")
		req.Header.Set("X-Forwarded-Proto", "http")
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	share := public + "/s/" + f.sv.URLSlug + "/"

	code, page := get("/s/"+f.sv.URLSlug+"/", "text/html")
	m := regexp.MustCompile(`<link rel="alternate" type="application/json\+oembed" href="([^"]+)"`).FindStringSubmatch(page)
	if code != 200 || m == nil {
		t.Fatalf("page: %d, discovery link %v", code, m)
	}
	discovery := html.UnescapeString(m[1])
	want := apiBase + "/api/oembed/?" + url.Values{"url": {share}, "format": {"json"}}.Encode()
	if discovery != want {
		t.Errorf("discovery link %q, want %q", discovery, want)
	}

	toks, err := testenv.Sealer(t).Seal(context.Background(), f.sv.ID, []links.Payload{{}})
	if err != nil {
		t.Fatal(err)
	}
	personalised := share + "?qs=" + url.QueryEscape(toks[0])
	for _, c := range []struct {
		name, url, src string
	}{
		{"share link", share, share},
		{"share link without its final slash", strings.TrimSuffix(share, "/"), share},
		{"personalised link", personalised, share + "?" + url.Values{"qs": {toks[0]}}.Encode()},
		{"the page at the API's own address", apiBase + "/s/" + f.sv.URLSlug + "/", share},
	} {
		code, body := get("/api/oembed/?"+url.Values{"url": {c.url}, "format": {"json"}}.Encode(), "application/json")
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
			t.Errorf("%s: %d %s", c.name, code, body)
			continue
		}
		if s, _ := got["html"].(string); !strings.Contains(s, `<iframe src="`+html.EscapeString(c.src)+`"`) {
			t.Errorf("%s: html %q, want the iframe at %s", c.name, s, c.src)
		}
		if got["provider_url"] != public+"/" {
			t.Errorf("%s: provider_url %v, want %s/", c.name, got["provider_url"], public)
		}
	}
	for _, other := range []string{
		"http://attacker.example/s/" + f.sv.URLSlug + "/",
		"https://api.example.net/s/" + f.sv.URLSlug + "/", // outside the API's path
		"https://survey.example.org.attacker.example/s/" + f.sv.URLSlug + "/",
	} {
		if code, body := get("/api/oembed/?"+url.Values{"url": {other}}.Encode(), "application/json"); code != 404 {
			t.Errorf("oEmbed of %s: %d %s, want 404", other, code, body)
		}
	}
}
