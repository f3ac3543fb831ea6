package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDocs is a newcomer reading the docs on the site: /docs/ lists
// the topics in reading order; a topic is a page (its tables drawn as
// tables); a link in its text leads to another topic's heading; the
// contents list and the next link lead on. axe finds nothing on any of
// them, on a desktop and on a phone.
func TestBrowserDocs(t *testing.T) {
	p := newPagesServer(t)
	for _, sc := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		ctx := tab(t, true, sc.width, sc.height, sc.mobile) // the docs load no script; axe needs the tab's
		seen(t, ctx, p.srv.URL+"/docs/", "ol", "docs-"+sc.name+"-index")
		checkAxe(t, ctx, sc.name+" docs index")
		click(t, ctx, `a[href="/docs/local/"]`)
		untilTrue(t, ctx, `document.readyState === "complete" && document.querySelector("article h1") && document.querySelector("article h1").textContent.startsWith("Running it locally")`)
		shot(t, ctx, "docs-"+sc.name+"-local")
		checkAxe(t, ctx, sc.name+" docs local")
		// A link in the text to another topic's heading.
		click(t, ctx, `article a[href="/docs/responding/#hosted-pages"]`)
		untilTrue(t, ctx, `document.readyState === "complete" && location.pathname === "/docs/responding/" && document.getElementById("hosted-pages") !== null`)
		checkAxe(t, ctx, sc.name+" docs responding")
		// The contents list leads to any topic; operating has tables.
		click(t, ctx, `nav a[href="/docs/operating/"]`)
		untilTrue(t, ctx, `document.readyState === "complete" && location.pathname === "/docs/operating/"`)
		if n := evalJS[float64](t, ctx, `document.querySelectorAll("article table").length`); n == 0 {
			t.Errorf("%s: operating has no table drawn", sc.name)
		}
		shot(t, ctx, "docs-"+sc.name+"-operating")
		checkAxe(t, ctx, sc.name+" docs operating")
		click(t, ctx, `a[rel=next]`)
		untilTrue(t, ctx, `document.readyState === "complete" && location.pathname !== "/docs/operating/" && document.querySelector("a[aria-current=page]") !== null`)
	}
}

// untilTrue polls a script until it answers true, for up to a minute.
func untilTrue(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &ok)); err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	var where string
	_ = chromedp.Run(ctx, chromedp.Evaluate(`location.href`, &where))
	t.Fatalf("waited a minute for %s (at %s)", strings.TrimSpace(js), where)
}
