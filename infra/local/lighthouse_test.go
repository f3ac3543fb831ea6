package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Lighthouse (npm, `make lighthouse` installs it under .cache/,
// git-ignored) audits the themed page in Chromium; LIGHTHOUSE names
// another lighthouse-cli/index.js.

// lighthouseCategories are the four the contract asks 100 in.
var lighthouseCategories = []string{"performance", "accessibility", "best-practices", "seo"}

// lighthouseReport is the part of Lighthouse's JSON report read here.
type lighthouseReport struct {
	LighthouseVersion string `json:"lighthouseVersion"`
	Categories        map[string]struct {
		Score *float64 `json:"score"`
	} `json:"categories"`
	Audits map[string]struct {
		Score        *float64        `json:"score"`
		NumericValue float64         `json:"numericValue"`
		Title        string          `json:"title"`
		Details      json.RawMessage `json:"details"`
	} `json:"audits"`
}

// lighthouseItem is a row of an audit's table of requests.
type lighthouseItem struct {
	URL          string `json:"url"`
	ResourceType string `json:"resourceType"`
}

// items are the rows of audit id's table (some audits' details are not a
// table: their items are another shape, read here as none).
func (r lighthouseReport) items(t *testing.T, id string) []lighthouseItem {
	t.Helper()
	var d struct {
		Items []lighthouseItem `json:"items"`
	}
	if len(r.Audits[id].Details) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Audits[id].Details, &d); err != nil {
		t.Fatalf("Lighthouse's %s: %v", id, err)
	}
	return d.Items
}

// lighthouse runs Lighthouse on url (desktop: its desktop preset, else
// its mobile default: a phone's screen, a slow 4G and a 4x slower CPU,
// simulated) in /usr/bin/chromium and answers its report.
func lighthouse(t *testing.T, url string, desktop bool, name string) lighthouseReport {
	t.Helper()
	cli := os.Getenv("LIGHTHOUSE")
	if cli == "" {
		cli = filepath.Join("..", "..", ".cache", "lighthouse-12.8.2", "node_modules", "lighthouse", "cli", "index.js")
	}
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("Lighthouse is required by this test: run `make lighthouse` (npm install lighthouse@12.8.2 into .cache/lighthouse-12.8.2) or set LIGHTHOUSE: %v", err)
	}
	args := []string{cli, url, "--output=json", "--output-path=stdout", "--quiet", "--only-categories=performance,accessibility,best-practices,seo",
		"--chrome-flags=--headless=new --no-sandbox --disable-gpu"}
	if desktop {
		args = append(args, "--preset=desktop")
	}
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "CHROME_PATH=/usr/bin/chromium")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("lighthouse %s: %v\n%s", url, err, errs.String())
	}
	// The whole report beside the screenshots, for a person to read.
	_ = os.WriteFile(filepath.Join(screenshots(t), "lighthouse-"+name+".json"), out.Bytes(), 0o644)
	var r lighthouseReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("lighthouse's report: %v", err)
	}
	return r
}

// TestLighthouseThemed: a page with a theme of a web font and a
// background image scores 100 in Lighthouse's accessibility, best
// practices and SEO, on a phone and on a desktop, in English (Inter) and
// Persian (Vazirmatn), and nothing on it moves as the font arrives:
// cumulative layout shift 0 (contract section 22). Its performance score
// is logged, not asserted: Lighthouse derives it from the times the
// browser took, which a loaded machine stretches (docs/themes.md has the
// scores measured). What stands behind that score and can be counted is
// asserted: every font file the page fetched was preloaded (the largest
// paint is text, drawn in them), and nothing but the page's own style
// sheets and scripts blocks its first paint (no font, no image). LIGHTHOUSE_RUNS audits each
// page that many times (default 1), each run's four scores logged.
func TestLighthouseThemed(t *testing.T) {
	// One at a time, not beside the parallel tests: run beside them (30
	// November 2026) the fa desktop page shifted 0.000144 at a load of 17,
	// where this test asks for no shift at all.
	p := newThemedServer(t)
	runs, _ := strconv.Atoi(os.Getenv("LIGHTHOUSE_RUNS"))
	for _, c := range []struct {
		lang     string
		language int
		font     int64
		name     string
	}{{"en", 4, 3, "Customer survey"}, {"fa", 1, 2, "نظرسنجی مشتریان"}} {
		sv := p.themed(t, surveySpec{Name: c.name, Language: c.language, Elements: everyTypeElements(c.lang == "fa", p.srv.URL)}, p.theme(t, c.font, 2))
		url := p.srv.URL + "/s/" + sv.URLSlug + "/"
		preloads := pagePreloads(t, url)
		for run := range max(runs, 1) {
			for _, desktop := range []bool{false, true} {
				name := c.lang + map[bool]string{false: " mobile", true: " desktop"}[desktop]
				load, _ := os.ReadFile("/proc/loadavg")
				r := lighthouse(t, url, desktop, strings.ReplaceAll(name, " ", "-"))
				line := fmt.Sprintf("%s run %d (Lighthouse %s, load average %s):", name, run+1, r.LighthouseVersion, strings.Join(strings.Fields(string(load))[:1], ""))
				failed := false
				for _, cat := range lighthouseCategories {
					s := r.Categories[cat].Score
					if s == nil {
						t.Errorf("%s: no %s score", name, cat)
						continue
					}
					line += fmt.Sprintf(" %s %.0f", cat, *s*100)
					if *s < 1 && cat != "performance" {
						failed = true
						t.Errorf("%s: %s %.0f, want 100", name, cat, *s*100)
					}
				}
				for id, a := range r.Audits {
					if a.Score != nil && *a.Score < 1 && (failed || strings.Contains(id, "-")) {
						t.Logf("%s: %s %s: %.2f (%.0f)", name, id, a.Title, *a.Score, a.NumericValue)
					}
				}
				cls := r.Audits["cumulative-layout-shift"].NumericValue
				t.Logf("%s, CLS %g, FCP %.0f ms, LCP %.0f ms, SI %.0f ms, TBT %.0f ms", line, cls, r.Audits["first-contentful-paint"].NumericValue,
					r.Audits["largest-contentful-paint"].NumericValue, r.Audits["speed-index"].NumericValue, r.Audits["total-blocking-time"].NumericValue)
				if cls != 0 {
					t.Errorf("%s: cumulative layout shift %g, want 0", name, cls)
				}
				fonts := 0
				for _, req := range r.items(t, "network-requests") {
					if req.ResourceType != "Font" {
						continue
					}
					fonts++
					if !slices.ContainsFunc(preloads, func(p string) bool { return strings.HasSuffix(req.URL, p) }) {
						t.Errorf("%s: the page fetched the font %s, which it does not preload (%v): it arrives after the first paint and is swapped in then", name, req.URL, preloads)
					}
				}
				if fonts == 0 {
					t.Errorf("%s: the page fetched no font file", name)
				}
				for _, b := range r.items(t, "render-blocking-resources") {
					if !regexp.MustCompile(`^` + regexp.QuoteMeta(p.srv.URL) + `/assets/[a-z_-]+\.[0-9a-f]{12}\.(css|js)$`).MatchString(b.URL) {
						t.Errorf("%s: %s blocks the first paint", name, b.URL)
					}
				}
			}
		}
	}
}

// pagePreloads are the addresses the page at url preloads.
func pagePreloads(t *testing.T, url string) []string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`<link rel="preload" href="([^"]+)"`).FindAllStringSubmatch(string(body), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestBrowserLoadWork counts the script work a themed survey's page does
// at load for what its first screen does not show: a ranking on a later
// page is not set up (no list marked data-ranked) until a button of it
// is pressed, and then that list alone; the service worker is
// registered only once the page has loaded (document.readyState
// "complete" at the call), so that its install does not compete with the
// first screen. In English and Persian.
func TestBrowserLoadWork(t *testing.T) {
	p := newThemedServer(t)
	for _, c := range []struct {
		lang     string
		language int
		font     int64
		name     string
	}{{"en", 4, 3, "Customer survey"}, {"fa", 1, 2, "نظرسنجی مشتریان"}} {
		sv := p.themed(t, surveySpec{Name: c.name, Language: c.language, Elements: everyTypeElements(c.lang == "fa", p.srv.URL)}, p.theme(t, c.font, 2))
		ctx := tab(t, true, 390, 844, true)
		// Each call of register, with the document's state at the call.
		if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(`window.registered = [];
				if (navigator.serviceWorker) { const r = navigator.serviceWorker.register.bind(navigator.serviceWorker);
				navigator.serviceWorker.register = (...a) => { window.registered.push(document.readyState); return r(...a); }; }`).Do(ctx)
			return err
		}), chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
			t.Fatal(err)
		}
		visible(t, ctx, ".page.welcome")
		if n := evalJS[int](t, ctx, `document.querySelectorAll(".ranks").length`); n != 1 {
			t.Fatalf("%s: %d ranking lists on the page, want 1", c.lang, n)
		}
		if n := evalJS[int](t, ctx, `document.querySelectorAll(".ranks[data-ranked]").length`); n != 0 {
			t.Errorf("%s: %d ranking lists set up at load, want 0", c.lang, n)
		}
		var states []string
		for range 600 {
			if states = evalJS[[]string](t, ctx, `window.registered`); len(states) > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(states) != 1 || states[0] != "complete" {
			t.Errorf("%s: the service worker was registered %d times, at %v; want once, once the page had loaded (complete)", c.lang, len(states), states)
		}
		// A press on a ranking's button sets its list up, then moves the
		// item: the first choice goes down one place, the selects follow.
		order := `[...document.querySelectorAll(".ranks select")].map(s => s.getAttribute("data-choice") + "=" + s.value).join(",")`
		before := strings.Split(evalJS[string](t, ctx, order), ",")
		evalJS[bool](t, ctx, `document.querySelector(".ranks .down").click(), true`)
		if n := evalJS[int](t, ctx, `document.querySelectorAll(".ranks[data-ranked]").length`); n != 1 {
			t.Errorf("%s: %d ranking lists set up after a press, want 1", c.lang, n)
		}
		after := evalJS[string](t, ctx, order)
		choice := func(s string) string { return strings.Split(s, "=")[0] }
		if len(before) != 3 || after != choice(before[1])+"=1,"+choice(before[0])+"=2,"+choice(before[2])+"=3" {
			t.Errorf("%s: the list was %v, after a press on the first item's down %s", c.lang, before, after)
		}
	}
}
