package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// Browser tests of the responder cookie: a no_spam survey
// embedded on another site and answered without the page's
// script.

// TestBrowserEmbeddedNoSpamCrossSite: a page on localhost frames a
// no_spam survey served from 127.0.0.1 (another site, not only another
// port: the embed test's parent is the same site). The frame's navigation
// sets the responder cookie SameSite=None, Secure and Partitioned (kept
// on http://127.0.0.1, which Chromium treats as potentially trustworthy),
// the framed page's own requests carry it, and the response is recorded;
// the same responder, framed again, is refused when the session starts.
// Before the fix the page said "This survey needs cookies to accept your
// response." and nothing was recorded.
func TestBrowserEmbeddedNoSpamCrossSite(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Embedded once", Language: 4, Settings: map[string]any{"no_spam": true},
		Elements: []map[string]any{{"type": 2, "title": "What brought you to our blog?"}}})
	origin := p.srv.URL // http://127.0.0.1:Q
	parent := parentSite(t, origin+"/s/"+sv.URLSlug+"/", origin)
	parentURL := strings.Replace(parent.URL, "127.0.0.1", "localhost", 1) // http://localhost:P: another site
	if !strings.HasPrefix(parentURL, "http://localhost:") || !strings.HasPrefix(origin, "http://127.0.0.1:") {
		t.Fatalf("parent %s, survey %s: want localhost framing 127.0.0.1", parentURL, origin)
	}

	ctx := browser(t, true)
	if got := answerFramed(t, ctx, parentURL, origin+"/s/", "A friend's link"); got != "thanks" {
		t.Fatalf("the framed no_spam survey on another site: %q, want its thanks", got)
	}
	shot(t, ctx, "embedded-nospam-cross-site")
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Fatalf("%d responses, want the one answered in the frame", len(rs))
	}

	// The cookie as Chromium keeps it: partitioned under the parent's
	// site, Secure on http://127.0.0.1, SameSite=None.
	var cookies []*network.Cookie
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		cookies, err = network.GetCookies().WithURLs([]string{origin + "/s/" + sv.URLSlug + "/"}).Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cookies {
		if c.Name == responding.ResponderCookieName && c.PartitionKey != nil {
			found = true
			if !c.Secure || !c.HTTPOnly || c.SameSite != network.CookieSameSiteNone || !strings.Contains(c.PartitionKey.TopLevelSite, "localhost") {
				t.Errorf("the framed responder cookie: %+v (partition %+v)", c, c.PartitionKey)
			}
		}
	}
	if !found {
		t.Errorf("no partitioned responder cookie for %s: %+v", origin, cookies)
	}

	// Framed again: the same responder is refused when the session
	// starts, in the survey's words.
	if got := answerFramed(t, ctx, parentURL, origin+"/s/", "Again"); !strings.Contains(got, "You have already responded to this survey.") {
		t.Errorf("the same responder framed again: %q", got)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Errorf("%d responses after the repeat, want 1", len(rs))
	}
}

// answerFramed opens the parent page, answers the framed survey's one
// text question and submits: "thanks" when its thanks shows, else the
// page's error messages.
func answerFramed(t *testing.T, ctx context.Context, parentURL, surveyURL, text string) string {
	t.Helper()
	fctx := framed(t, ctx, parentURL, surveyURL)
	// Input events go to the top-level page's target, not an
	// out-of-process frame's: the frame's own script types and clicks.
	if err := chromedp.Run(fctx,
		chromedp.WaitVisible("textarea", chromedp.ByQuery),
		chromedp.SetValue("textarea", text, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("submit").click()`, nil),
	); err != nil {
		t.Fatalf("answering in the frame: %v", err)
	}
	for range 1200 {
		var state string
		if err := chromedp.Run(fctx, chromedp.Evaluate(
			`document.getElementById("thanks").hidden ? document.getElementById("errors").textContent : "thanks"`, &state)); err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(state) != "" {
			return state
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "neither thanks nor errors"
}

// TestBrowserPlainFormNoSpam: Chromium without JavaScript answers a
// no_spam survey through the plain form (the page set the cookie); the
// same browser's second form is refused in the page (403), and one
// response is stored.
func TestBrowserPlainFormNoSpam(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Once, no script", Language: 4, Settings: map[string]any{"no_spam": true},
		Elements: []map[string]any{{"type": 2, "title": "Your name?"}}})
	ctx := browser(t, false)
	send := func(text string) string {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
			t.Fatal(err)
		}
		visible(t, ctx, "textarea")
		if err := chromedp.Run(ctx,
			chromedp.SendKeys("textarea", text, chromedp.ByQuery),
			chromedp.Submit("#survey", chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		var out string
		for range 1200 {
			var b string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`(document.getElementById("message")||{}).textContent || (document.getElementById("errors")||{}).textContent || ""`, &b))
			if b != "" {
				out = b
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return out
	}
	if got := send("Ada"); !strings.Contains(got, "Thank you") {
		t.Fatalf("the plain form of a no_spam survey: %q", got)
	}
	shot(t, ctx, "noscript-nospam-thanks")
	if got := send("Ada again"); !strings.Contains(got, "You have already responded to this survey.") {
		t.Errorf("the same browser's second plain form: %q", got)
	}
	shot(t, ctx, "noscript-nospam-refused")
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Errorf("%d responses, want 1", len(rs))
	}
}

// TestBrowserThrottledInPersian: a Persian survey whose responders
// function is over its limit shows the limit in Persian (the script reads
// a 429 by its status; the API's detail is DRF's English), and a page over
// the pages function's limit is a Persian page, not JSON; axe finds
// nothing on either.
func TestBrowserThrottledInPersian(t *testing.T) {
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	shut := ratelimit.Service
	shut.Client.Limit = 0 // every request of the client over the limit
	var pagesShut atomic.Bool
	fns := routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t)})
	h := serveWithin(fns, map[string]func(*api.Router) *api.Router{
		"RespondersFunction": func(rt *api.Router) *api.Router { return responders.Limited(rt, st, shut, time.Now) },
		"PagesFunction": func(rt *api.Router) *api.Router {
			check := ratelimit.NewPolicyAt("pages", shut, st, ratelimit.PagesSurvey, time.Now).Check
			rt.Guard(func(r *http.Request) error {
				if !pagesShut.Load() {
					return nil
				}
				return check(r)
			})
			return rt
		},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	p := pagesServer{srv: srv, api: apiClient{h: h, key: key}}
	sv := p.build(t, surveySpec{Name: "پرسش‌نامه", Language: 1, Elements: []map[string]any{{"type": 2, "title": "نام شما؟"}}})

	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#errors p")
	const persian = "درخواست‌ها بیش از اندازه است؛ کمی صبر کنید و دوباره تلاش کنید."
	if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); got != persian {
		t.Errorf("the throttled session on a Persian page: %q, want %q", got, persian)
	}
	shot(t, ctx, "throttled-fa-script")
	checkAxe(t, ctx, "fa throttled session")

	pagesShut.Store(true)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#message")
	if got := evalJS[string](t, ctx, `document.documentElement.lang + " " + document.getElementById("message").textContent`); got != "fa "+persian {
		t.Errorf("a throttled page: %q", got)
	}
	shot(t, ctx, "throttled-fa-page")
	checkAxe(t, ctx, "fa throttled page")
}

// framed opens the parent page and answers a context on its frame of
// surveyURL. A frame of another site runs in a process of its own (site
// isolation), so the test drives it as its own target. Input events go
// to the top-level page's target, not an out-of-process frame's: drive
// the frame with its own script (clicks, values).
func framed(t *testing.T, ctx context.Context, parentURL, surveyURL string) context.Context {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(parentURL)); err != nil {
		t.Fatal(err)
	}
	var frame *target.Info
	for range 1200 {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			if in.Type == "iframe" && strings.HasPrefix(in.URL, surveyURL) {
				frame = in
			}
		}
		if frame != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if frame == nil {
		t.Fatalf("no frame of %s runs apart from its parent %s", surveyURL, parentURL)
	}
	// Not cancelled: cancelling it would close the frame's target; the
	// tab's own cleanup ends it.
	fctx, _ := chromedp.NewContext(ctx, chromedp.WithTargetID(frame.TargetID))
	return fctx
}
