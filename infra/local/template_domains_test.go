package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"surveyservice/functions/responders"
	"surveyservice/shared/hosts"
)

// TestCustomDomainsForwardTheRequestHeaders: the custom domains'
// CloudFront distribution (contract section 23) reaches the API with the
// request headers the pages and the public API read, and never the
// viewer's Host (API Gateway answers its own). Its origin request policy
// was a whitelist of eight headers: CloudFront forwards nothing else, so on
// a custom domain every submission of the page's script (POST
// .../responses/, which requires Idempotency-Key) would have answered 400
// "This header is required.", a framed page (Sec-Fetch-Dest) set its
// responder cookie SameSite=Lax, which another site's frame never sends
// back, the plain form could not tell another site's post (Sec-Fetch-Site),
// and the service worker's copies counted as views (Survey-Keep). Found by
// reading template.yaml against the headers the code reads (hostile10).
func TestCustomDomainsForwardTheRequestHeaders(t *testing.T) {
	tpl := loadTemplate(t)
	res, ok := tpl.Resources["DomainsOriginRequestPolicy"]
	if !ok {
		t.Fatal("template.yaml has no DomainsOriginRequestPolicy")
	}
	cfg, _ := res.Properties["OriginRequestPolicyConfig"].(map[string]any)
	headers, _ := cfg["HeadersConfig"].(map[string]any)
	behavior, _ := headers["HeaderBehavior"].(string)
	var listed []string
	if l, ok := headers["Headers"].([]any); ok {
		for _, h := range l {
			s, _ := h.(string)
			listed = append(listed, strings.ToLower(s))
		}
	}
	forwards := func(name string) bool {
		in := slices.Contains(listed, strings.ToLower(name))
		switch behavior {
		case "whitelist":
			return in
		case "allExcept":
			return !in
		case "allViewer", "allViewerAndWhitelistCloudFront":
			return true
		}
		return false
	}
	for _, h := range []string{
		responders.IdempotencyHeader, // the script's submission
		"Sec-Fetch-Dest",             // a frame's responder cookie (api.FrameCookie)
		"Sec-Fetch-Site",             // another site's plain form (pages)
		"Survey-Keep",                // the service worker's copies count no view
		hosts.ViewerHostHeader,       // set by DomainsViewerHost
		"Accept", "Accept-Language", "Content-Type", "If-None-Match", "Origin", "Referer", "User-Agent",
	} {
		if !forwards(h) {
			t.Errorf("the custom domains' origin request policy (%s %v) does not forward %s", behavior, listed, h)
		}
	}
	if forwards("Host") {
		t.Errorf("the custom domains' origin request policy (%s %v) forwards the viewer's Host, which API Gateway refuses", behavior, listed)
	}
	for key, want := range map[string]string{"CookiesConfig": "CookieBehavior", "QueryStringsConfig": "QueryStringBehavior"} {
		c, _ := cfg[key].(map[string]any)
		if c[want] != "all" {
			t.Errorf("%s.%s = %v, want all", key, want, c[want])
		}
	}
}

// TestCustomDomainsProveTheViewersAddress: through the custom domains'
// distribution API Gateway's source address is a CloudFront edge's, which
// every viewer behind it shares, so each per-client limit (10 code sends
// an hour, the failed code checks, the pages' and responders' rates) was
// shared by them all (hostile10). The viewer-request function writes the
// viewer's address (event.viewer.ip) in hosts.ViewerAddressHeader, the
// origin sends the secret of DomainsOriginSecret in
// hosts.OriginSecretHeader, and the two functions that serve custom
// domains hold the same secret (DOMAINS_ORIGIN_SECRET), by which
// shared/hosts trusts the address (TestViewerAddressThroughTheDistribution).
func TestCustomDomainsProveTheViewersAddress(t *testing.T) {
	tpl := loadTemplate(t)
	fn, _ := tpl.Resources["DomainsViewerHost"].Properties["FunctionCode"].(string)
	if !strings.Contains(fn, fmt.Sprintf("r.headers['%s'] = {value: event.viewer.ip}", strings.ToLower(hosts.ViewerAddressHeader))) {
		t.Errorf("DomainsViewerHost does not write the viewer's address in %s:\n%s", hosts.ViewerAddressHeader, fn)
	}
	secretRef := "{{resolve:secretsmanager:${DomainsOriginSecret}:SecretString}}"
	if tpl.Resources["DomainsOriginSecret"].Type != "AWS::SecretsManager::Secret" {
		t.Error("template.yaml has no DomainsOriginSecret secret")
	}
	cfg, _ := tpl.Resources["DomainsDistribution"].Properties["DistributionConfig"].(map[string]any)
	origins, _ := cfg["Origins"].([]any)
	for _, o := range origins {
		o, _ := o.(map[string]any)
		var sent bool
		headers, _ := o["OriginCustomHeaders"].([]any)
		for _, h := range headers {
			h, _ := h.(map[string]any)
			sent = sent || strings.EqualFold(fmt.Sprint(h["HeaderName"]), hosts.OriginSecretHeader) && h["HeaderValue"] == secretRef
		}
		if !sent {
			t.Errorf("the distribution's origin %v does not send %s: %s", o["Id"], hosts.OriginSecretHeader, secretRef)
		}
	}
	for _, name := range []string{"PagesFunction", "RespondersFunction"} {
		env, _ := tpl.Resources[name].Properties["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		v, _ := vars["DOMAINS_ORIGIN_SECRET"].([]any)
		if len(v) != 3 || v[0] != "HasCustomDomains" || v[1] != secretRef {
			t.Errorf("%s: DOMAINS_ORIGIN_SECRET %v, want the distribution's secret when it has custom domains", name, vars["DOMAINS_ORIGIN_SECRET"])
		}
	}
}
