package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"surveyservice/internal/testenv"
)

// axe-core (npm, `make axe-core` installs it under .cache/, git-ignored)
// is injected into each page state the browser tests reach and run with
// the WCAG 2.0, 2.1 and 2.2 A and AA rules; any violation fails the test.
// AXE_CORE names another copy of axe.min.js.

var axeSource struct {
	once sync.Once
	js   string
	err  error
}

func axeJS(t *testing.T) string {
	t.Helper()
	axeSource.once.Do(func() {
		path := os.Getenv("AXE_CORE")
		if path == "" {
			path = filepath.Join("..", "..", ".cache", "axe-core-4.14", "node_modules", "axe-core", "axe.min.js")
		}
		b, err := os.ReadFile(path)
		if err != nil {
			axeSource.err = fmt.Errorf("axe-core is required by the browser tests: run `make axe-core` (npm install axe-core@4.14 into .cache/axe-core-4.14) or set AXE_CORE: %w", err)
			return
		}
		axeSource.js = string(b)
	})
	if axeSource.err != nil {
		t.Fatal(axeSource.err)
	}
	return axeSource.js
}

// axeViolation is one rule's failure on a page.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// wcagTags are the rules run: WCAG 2.2 level AA and everything below it.
const wcagTags = `["wcag2a","wcag2aa","wcag21a","wcag21aa","wcag22a","wcag22aa"]`

// checkAxe runs axe-core on the tab's document as it is now (state names
// it in failures) and fails the test on any violation. It answers the
// number of rules that passed, so that a caller knows axe ran.
func checkAxe(t *testing.T, ctx context.Context, state string) int {
	t.Helper()
	if !evalJS[bool](t, ctx, `typeof axe === "object"`) {
		var ignored any
		if err := chromedp.Run(ctx, chromedp.Evaluate(axeJS(t)+";true", &ignored)); err != nil {
			t.Fatalf("%s: inject axe-core: %v", state, err)
		}
	}
	var out struct {
		Version    string         `json:"version"`
		Passes     int            `json:"passes"`
		Violations []axeViolation `json:"violations"`
	}
	js := `(async () => { const r = await axe.run(document, {runOnly: {type: "tag", values: ` + wcagTags + `}});
		return {version: axe.version, passes: r.passes.length, violations: r.violations}; })()`
	await := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &out, await)); err != nil {
		t.Fatalf("%s: axe.run: %v", state, err)
	}
	if !strings.HasPrefix(out.Version, "4.14") {
		t.Fatalf("axe-core %s, want 4.14", out.Version)
	}
	for _, v := range out.Violations {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprintf("%v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " ")))
		}
		t.Errorf("%s: axe %s (%s): %s\n    %s", state, v.ID, v.Impact, v.Help, strings.Join(where, "\n    "))
	}
	if out.Passes == 0 {
		t.Errorf("%s: axe passed no rule at all", state)
	}
	return out.Passes
}

// answerShown answers every question on the page shown (the first choice
// of each, "x" in text) as a responder would, so that Next moves on.
const answerShown = `(() => { const p = document.querySelector(".page:not([hidden])");
	const seen = new Set();
	p.querySelectorAll("input[type=radio],input[type=checkbox]").forEach(i => { if (!seen.has(i.name)) { seen.add(i.name); i.click(); } });
	p.querySelectorAll("textarea,input[type=text]").forEach(i => { if (!i.value) { i.value = "x"; i.dispatchEvent(new Event("input", {bubbles: true})); } });
	p.querySelectorAll("select").forEach(s => { if (!s.value) { s.selectedIndex = 1; s.dispatchEvent(new Event("change", {bubbles: true})); } });
	return true; })()`

// axeWalk runs axe on every state of the every-type survey's page in one
// tab: the welcome page, the code page (with a wrong code refused), each
// question page (the first also with its required question left empty),
// the thanks; then the report. With shots not "", each state is also
// saved as a screenshot, shots-<state>.png.
func axeWalk(t *testing.T, ctx context.Context, base string, sv builtSurvey, name, code, shots string) {
	t.Helper()
	checkAxe := func(t *testing.T, ctx context.Context, state string) {
		t.Helper()
		checkAxe(t, ctx, state)
		if shots != "" {
			shot(t, ctx, shots+"-"+strings.ReplaceAll(strings.TrimPrefix(state, name+" "), " ", "-"))
		}
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	checkAxe(t, ctx, name+" welcome")
	next := func() { evalJS[bool](t, ctx, `document.getElementById("next").click(), true`) }
	next()
	if code != "" {
		waitPage(t, ctx, "code")
		checkAxe(t, ctx, name+" code")
		evalJS[bool](t, ctx, `document.getElementById("code").value = "WRONG", true`)
		next()
		visible(t, ctx, "#errors p")
		checkAxe(t, ctx, name+" code refused")
		evalJS[bool](t, ctx, `document.getElementById("code").value = "`+code+`", true`)
		next()
	}
	for i := range everyTypeSteps {
		waitPage(t, ctx, fmt.Sprint(i))
		if i == 0 {
			next() // the required question left empty: refused on this page
			visible(t, ctx, ".q .err")
			checkAxe(t, ctx, name+" required question refused")
		}
		evalJS[bool](t, ctx, answerShown)
		checkAxe(t, ctx, fmt.Sprintf("%s question page %d", name, i+1))
		if i < len(everyTypeSteps)-1 {
			next()
		}
	}
	evalJS[bool](t, ctx, `document.getElementById("submit").click(), true`)
	visible(t, ctx, "#thanks")
	checkAxe(t, ctx, name+" thanks")
	testenv.Tally(t) // the report's counts, the matrix's and ranking's charts included
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/r/"+sv.ReportCode+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".chart")
	checkAxe(t, ctx, name+" report")
}

// TestBrowserAxe runs axe-core (WCAG 2.2 AA) over every state of the
// hosted pages: a survey of each answerable type in English and one in
// Persian (right to left, with a code), each on a desktop (1366x768) and a
// phone (390x844) screen, with the script and without it (the plain form,
// and the plain form shown again with its errors), and the closed and
// not-found pages. One browser, one survey a language.
func TestBrowserAxe(t *testing.T) {
	p := newPagesServer(t)
	en := p.build(t, surveySpec{Name: "English", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	fa := p.build(t, surveySpec{Name: "فارسی", Language: 1, Elements: everyTypeElements(true, p.srv.URL), Settings: map[string]any{"code_auth": true}})
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", fa.ID), map[string]any{"codes": []string{"KEY-1", "KEY-2"}}, nil); err != nil {
		t.Fatal(err)
	}
	closed := p.build(t, oneQuestion("closed", map[string]any{"survey": map[string]any{"is_stopped": true}}))
	screens := []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1366, 768, false}, {"phone", 390, 844, true}}
	start := time.Now()
	for _, sc := range screens {
		ctx := tab(t, true, sc.width, sc.height, sc.mobile)
		axeWalk(t, ctx, p.srv.URL, en, "en "+sc.name, "", "")
		axeWalk(t, ctx, p.srv.URL, fa, "fa "+sc.name, map[string]string{"desktop": "KEY-1", "phone": "KEY-2"}[sc.name], "")

		// Without the page's script: its scripts are not loaded (axe
		// itself needs the tab's JavaScript).
		plain := tab(t, true, sc.width, sc.height, sc.mobile)
		if err := chromedp.Run(plain, network.Enable(), network.SetBlockedURLs([]string{"*.js"})); err != nil {
			t.Fatal(err)
		}
		for _, sv := range []struct {
			name string
			sv   builtSurvey
		}{{"en", en}, {"fa", fa}} {
			state := sv.name + " " + sc.name + " without script"
			if err := chromedp.Run(plain, chromedp.Navigate(p.srv.URL+"/s/"+sv.sv.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, plain, "textarea")
			checkAxe(t, plain, state)
			if err := chromedp.Run(plain, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			visible(t, plain, "#errors p")
			checkAxe(t, plain, state+", refused")
		}
		for _, path := range []string{"/s/" + closed.URLSlug + "/", "/s/nosuchsurvey/"} {
			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+path)); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "#message")
			checkAxe(t, ctx, sc.name+" "+path)
		}
	}
	t.Logf("axe over every page state: %v", time.Since(start).Round(time.Millisecond))
}
