package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCrossSiteFormPost: another site's page posts a form to a
// no_spam survey's plain-form address at the top level (an auto-submitted
// form, as any page can make one). The browser does not send the
// responder's SameSite=Lax cookie with a cross-site POST, so the service
// saw a browser without one: it recorded the other site's answers and set
// a new responder cookie, which replaced the responder's own. The
// responder, back on the survey's own page, was then refused ("You have
// already responded to this survey.") for a response they never gave.
// The cross-site post must record nothing and leave the cookie alone.
func TestBrowserCrossSiteFormPost(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Once", Language: 4, Settings: map[string]any{"no_spam": true},
		Elements: []map[string]any{{"type": 2, "title": "Your name?"}}})
	origin := p.srv.URL // http://127.0.0.1:Q
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Win a prize</title></head><body>
<form id="f" method="post" action="%s/s/%s/"><input type="hidden" name="idempotency_key" value="csrf-1"></form>
<script>document.getElementById("f").submit()</script></body></html>`, origin, sv.URLSlug)
	}))
	t.Cleanup(attacker.Close)
	attackerURL := strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1) // another site

	ctx := browser(t, true)
	// The responder opens the survey (the page sets the cookie), then
	// visits the other site, whose form posts itself.
	if err := chromedp.Run(ctx, chromedp.Navigate(origin+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
	if err := chromedp.Run(ctx, chromedp.Navigate(attackerURL)); err != nil {
		t.Fatal(err)
	}
	for range 200 {
		var href string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`location.href`, &href))
		if strings.HasPrefix(href, origin) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if rs := p.responses(t, sv.ID); len(rs) != 0 {
		t.Errorf("the other site's form post recorded %d responses, want none", len(rs))
	}

	// Back on the survey: the responder answers, once, with the script.
	if err := chromedp.Run(ctx, chromedp.Navigate(origin+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("textarea", "Ada", chromedp.ByQuery),
		chromedp.Click("#submit", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	got := ""
	for range 1200 {
		_ = chromedp.Run(ctx, chromedp.Evaluate(
			`document.getElementById("thanks") && !document.getElementById("thanks").hidden ? "thanks" : (document.getElementById("errors")||{}).textContent || ""`, &got))
		if strings.TrimSpace(got) != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != "thanks" {
		t.Errorf("the responder on the survey's own page after the other site's post: %q, want the thanks", got)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 || rs[0].Answers == nil || len(rs[0].Answers) == 0 {
		t.Errorf("responses %+v, want the responder's one", rs)
	}
}
