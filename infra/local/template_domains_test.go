package main

import (
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
