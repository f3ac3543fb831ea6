package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The responder settings of contract section 16, as a person meets them
// in the hosted page.

// withWelcome is a one-question survey with a welcome page (its start
// button's label set) and an appreciation page.
func withWelcome(name string, settings map[string]any) surveySpec {
	return surveySpec{Name: name, Language: 4, Settings: settings, Elements: []map[string]any{
		{"type": 1, "title": "Welcome", "enter_text": "Let's go"},
		{"type": 2, "title": "Say something"},
		{"type": 9, "title": "Thanks!"},
	}}
}

// open loads the survey's page in the tab.
func open(t *testing.T, ctx context.Context, p pagesServer, slug string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+slug+"/")); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserCaptcha: on a captcha_needed survey the page solves the
// challenge in a Web Worker while the welcome page is shown (no puzzle to
// click), and the response is recorded. The solve time at the service's
// difficulty is logged (the figure `make bench` reports).
func TestBrowserCaptcha(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, withWelcome("captcha", map[string]any{"captcha_needed": true, "privacy_preserving_message_enabled": true}))
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	visible(t, ctx, ".page.welcome")
	if label := evalJS[string](t, ctx, `document.getElementById("next").textContent`); label != "Let's go" {
		t.Errorf("the start button reads %q, want the welcome page's enter_text", label)
	}
	if notice := evalJS[string](t, ctx, `(document.querySelector(".page.welcome section.privacy[aria-label]")||{}).textContent||""`); !strings.Contains(notice, "only for this survey") {
		t.Errorf("privacy notice %q", notice)
	}
	shot(t, ctx, "captcha-welcome")
	var ms string
	for range 1200 {
		if ms = evalJS[string](t, ctx, `document.documentElement.getAttribute("data-captcha-ms")||""`); ms != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ms == "" {
		t.Fatalf("the challenge was not solved in a minute")
	}
	n, _ := strconv.Atoi(ms)
	t.Logf("captcha: solved in the browser's worker in %d ms (headless Chromium, this machine)", n)
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "0")
	keys(t, ctx, "human")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	if brand := evalJS[string](t, ctx, `(document.querySelector("footer.brand a")||{}).textContent||""`); brand == "" {
		t.Errorf("no footer naming the service")
	}
	// One response, one challenge (issue 38: the page fetched a second one
	// ahead, for a session it never started).
	if n := evalJS[int](t, ctx, `performance.getEntriesByType("resource").filter(function (e) { return e.name.indexOf("/challenge/") >= 0; }).length`); n != 1 {
		t.Errorf("the page fetched its challenge %d times, want once", n)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 || fmt.Sprint(rs[0].Answers) != fmt.Sprintf("map[%v:human]", sv.Elements[1]["id"]) {
		t.Fatalf("responses %+v", rs)
	}
}

// TestBrowserNoSpam: a second response from the same browser to a no_spam
// survey is refused, and the page says why.
func TestBrowserNoSpam(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("nospam", map[string]any{"no_spam": true, "branding_removal": true}))
	ctx := browser(t, true)
	for i, word := range []string{"first", "second"} {
		open(t, ctx, p, sv.URLSlug)
		visible(t, ctx, "textarea")
		if n := evalJS[int](t, ctx, `document.querySelectorAll("footer.brand").length`); n != 0 {
			t.Errorf("branding_removal: the footer is shown")
		}
		keys(t, ctx, word)
		tabTo(t, ctx, "submit")
		if i == 0 {
			visible(t, ctx, "#thanks")
			continue
		}
		var msg string
		for range 1200 {
			if msg = evalJS[string](t, ctx, `document.getElementById("errors").innerText`); msg != "" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		shot(t, ctx, "nospam-refused")
		if msg != "You have already responded to this survey." {
			t.Errorf("the second response shows %q", msg)
		}
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Fatalf("%d responses, want 1", len(rs))
	}
}

// TestBrowserKioskReload: with reload_active the appreciation page goes
// back to the survey's start after reload_time seconds, and the next
// responder starts a fresh session.
func TestBrowserKioskReload(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, withWelcome("kiosk", nil))
	p.patchElement(t, sv.ID, elementID(sv, 2), map[string]any{"reload_active": true, "reload_time": 1, "share_link_active": true})
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	sessions := map[string]bool{}
	for _, word := range []string{"one", "two"} {
		visible(t, ctx, ".page.welcome")
		tabTo(t, ctx, "next")
		waitPage(t, ctx, "0")
		keys(t, ctx, word)
		sessions[evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`)] = true
		tabTo(t, ctx, "submit")
		visible(t, ctx, "#thanks")
		if share := evalJS[string](t, ctx, `(document.getElementById("share-link")||{}).value||""`); !strings.HasSuffix(share, "/s/"+sv.URLSlug+"/") {
			t.Errorf("share link %q", share)
		}
		shot(t, ctx, "kiosk-thanks-"+word)
	}
	if len(sessions) != 2 || sessions[""] {
		t.Errorf("sessions %v, want two fresh ones", sessions)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 2 {
		t.Fatalf("%d responses, want 2", len(rs))
	}
}

// elementID is the id of a built survey's i-th element.
func elementID(sv builtSurvey, i int) int64 {
	return int64(sv.Elements[i]["id"].(float64))
}
