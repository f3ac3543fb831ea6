package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// The end-to-end tests of the hosted pages (contract 14) drive a real
// headless Chromium against the local handlers on moto, as a person
// would: by keyboard. They fail, never skip, when Chromium is missing
// (.ci/run installs it). Screenshots of each page go to a folder the tests
// print.
const chromiumPath = "/usr/bin/chromium"

var (
	shotsOnce sync.Once
	shotsDir  string
)

// screenshots is the folder the tests save their screenshots in.
func screenshots(t *testing.T) string {
	shotsOnce.Do(func() {
		shotsDir = filepath.Join(os.TempDir(), "survey-pages-screenshots")
		if err := os.MkdirAll(shotsDir, 0o755); err != nil {
			panic(err)
		}
		fmt.Printf("browser tests: screenshots in %s\n", shotsDir)
	})
	return shotsDir
}

// shared is the one headless Chromium of the test binary: each test opens
// tabs in it (a browser start costs seconds of the two cores). Chromium
// dies with the test process (chromedp sets Pdeathsig); its profile folder
// is named for the process, and profiles of processes gone are removed.
var shared struct {
	once sync.Once
	ctx  context.Context
	err  error
}

func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	shared.once.Do(func() {
		if _, err := os.Stat(chromiumPath); err != nil {
			shared.err = fmt.Errorf("chromium is required at %s (apt-get install chromium): %w", chromiumPath, err)
			return
		}
		removeStaleProfiles()
		profile := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", profilePrefix, os.Getpid()))
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chromiumPath),
			chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
			chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-renderer-backgrounding", true), chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.UserDataDir(profile), chromedp.WindowSize(390, 844),
		}
		actx, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		shared.ctx, _ = chromedp.NewContext(actx)
		shared.err = chromedp.Run(shared.ctx) // starts the browser
	})
	if shared.err != nil {
		t.Fatalf("start chromium: %v", shared.err)
	}
	return shared.ctx
}

const profilePrefix = "survey-pages-chromium-"

// removeStaleProfiles removes the profiles of test processes that ended.
func removeStaleProfiles() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), profilePrefix))
		if err != nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			_ = os.RemoveAll(d)
		}
	}
}

// browser opens a tab of the shared browser, closed when the test ends,
// with a phone's screen, and the page's scripts on or off.
func browser(t *testing.T, scripts bool) context.Context {
	t.Helper()
	return tab(t, scripts, 390, 844, true)
}

// tab opens a tab of width x height CSS pixels (mobile: a touch phone).
func tab(t *testing.T, scripts bool, width, height int64, mobile bool) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(sharedBrowser(t))
	t.Cleanup(func() { _ = chromedp.Cancel(ctx); cancel() })
	// A bound on the tab's whole life, so that a hung browser fails the
	// test instead of go test's timeout: generous, as one tab serves a
	// whole test, and TestBrowserPartialAndContinueLater's passed 3
	// minutes at load 23 and 60 (its last screenshot failed, "context
	// deadline exceeded").
	ctx, cancelTimeout := context.WithTimeout(ctx, 10*time.Minute)
	t.Cleanup(cancelTimeout)
	actions := []chromedp.Action{emulation.SetDeviceMetricsOverride(width, height, 1, mobile)}
	if mobile {
		actions = append(actions, emulation.SetTouchEmulationEnabled(true))
	}
	if !scripts {
		actions = append(actions, emulation.SetScriptExecutionDisabled(true))
	}
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// pagesServer serves the local handlers on moto for one new account.
type pagesServer struct {
	srv *httptest.Server
	api apiClient
}

func newPagesServer(t *testing.T) pagesServer {
	t.Helper()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t)}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return pagesServer{srv: srv, api: apiClient{h: h, key: key}}
}

func (p pagesServer) build(t *testing.T, spec surveySpec) builtSurvey {
	t.Helper()
	sv, err := buildSurvey(p.api, spec)
	if err != nil {
		t.Fatal(err)
	}
	return sv
}

// responses are the survey's stored responses, from the owner's API.
func (p pagesServer) responses(t *testing.T, sid int64) []struct {
	Answers   map[string]any `json:"answers"`
	Variables map[string]any `json:"variables"`
	Code      *string        `json:"code"`
} {
	t.Helper()
	var page struct {
		Count   int `json:"count"`
		Results []struct {
			Answers   map[string]any `json:"answers"`
			Variables map[string]any `json:"variables"`
			Code      *string        `json:"code"`
		} `json:"results"`
	}
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/", sid), nil, &page); err != nil {
		t.Fatal(err)
	}
	return page.Results
}

// shot saves a full screenshot of the tab as name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var buf []byte
	if w := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); w > 0 {
		t.Errorf("%s: the page is %vpx wider than the screen (a phone must not scroll sideways)", name, w)
	}
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&buf)); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(screenshots(t), name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// keys types keys into whatever has the focus.
func keys(t *testing.T, ctx context.Context, ks ...string) {
	t.Helper()
	for _, k := range ks {
		if err := chromedp.Run(ctx, chromedp.KeyEvent(k)); err != nil {
			t.Fatalf("key %q: %v", k, err)
		}
	}
}

// tabTo presses Tab until the element with the id has the focus, then
// Enter: how a keyboard user presses a button.
func tabTo(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	for range 30 {
		var active string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`document.activeElement ? document.activeElement.id : ""`, &active)); err != nil {
			t.Fatal(err)
		}
		if active == id {
			keys(t, ctx, kb.Enter)
			return
		}
		keys(t, ctx, kb.Tab)
	}
	t.Fatalf("Tab never reached #%s", id)
}

func visible(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s never became visible: %v", sel, err)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &v)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// activePage is the data-page of the page shown.
func activePage(t *testing.T, ctx context.Context) string {
	return evalJS[string](t, ctx, `(document.querySelector(".page:not([hidden])")||{}).dataset?.page || ""`)
}

// waitPage waits for the page with the data-page to be shown (the next
// page may wait for a session to start).
func waitPage(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	got := ""
	for range 1200 {
		if got = activePage(t, ctx); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("page %q shown, want page %q (errors: %s)", got, want, evalJS[string](t, ctx, `document.getElementById("errors").innerText`))
}

// everyTypeSteps are the keys that answer everyTypeElements' questions,
// one list a question, from the focus on its first input.
var everyTypeSteps = [][]string{
	{"Ada"},                    // text
	{" ", kb.ArrowDown},        // single choice: the second
	{" ", kb.Tab, kb.Tab, " "}, // multiple: first and third
	{" "},                      // picture: the first
	{kb.Tab, kb.Tab, kb.Tab, kb.Tab, kb.ArrowUp, kb.ArrowUp, kb.Tab, kb.Tab, kb.Tab, kb.Enter},                            // ranking: Speed up twice (arrow keys), Price down (its button)
	{" ", kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown}, // scale: 8
	{" ", kb.ArrowDown, kb.ArrowDown, kb.ArrowDown},                                                                       // rating: 4
	{kb.ArrowDown},                   // dropdown: the first
	{" ", kb.Tab, " ", kb.ArrowDown}, // matrix: row 1 col 1, row 2 col 2
}

// plainSteps are everyTypeSteps for the plain form, without the script:
// a ranking's choices are ranked by their selects.
func plainSteps() [][]string {
	steps := append([][]string(nil), everyTypeSteps...)
	steps[4] = []string{kb.ArrowDown, kb.ArrowDown, kb.Tab, kb.Tab, kb.ArrowUp, kb.ArrowUp} // Price last, Speed first
	return steps
}

// answerEveryType answers the every-type survey by keyboard, page by page
// (everyTypeElements' order), from its welcome page to the thanks.
func answerEveryType(t *testing.T, ctx context.Context, name string, code string) {
	t.Helper()
	visible(t, ctx, ".page.welcome")
	shot(t, ctx, name+"-1-welcome")
	tabTo(t, ctx, "next")
	if code != "" {
		waitPage(t, ctx, "code")
		keys(t, ctx, code)
		shot(t, ctx, name+"-2-code")
		tabTo(t, ctx, "next")
	}
	steps := everyTypeSteps
	for i, s := range steps {
		waitPage(t, ctx, fmt.Sprint(i))
		keys(t, ctx, s...)
		shot(t, ctx, fmt.Sprintf("%s-q%d", name, i+1))
		if i < len(steps)-1 {
			tabTo(t, ctx, "next")
		}
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	shot(t, ctx, name+"-9-thanks")
}

// checkEveryType holds the stored answers to what answerEveryType typed.
func checkEveryType(t *testing.T, sv builtSurvey, answers map[string]any) {
	t.Helper()
	el := sv.Elements
	id := func(i int) string { return fmt.Sprint(int64(el[i]["id"].(float64))) }
	ch := func(i, j int) float64 { return el[i]["choices"].([]any)[j].(map[string]any)["id"].(float64) }
	rc := func(i int, kind string, j int) float64 {
		return el[i][kind].([]any)[j].(map[string]any)["id"].(float64)
	}
	want := map[string]any{
		id(1): "Ada",
		id(2): []any{ch(2, 1)},
		id(3): []any{ch(3, 0), ch(3, 2)},
		id(4): []any{ch(4, 0)},
		id(5): []any{ch(5, 2), ch(5, 1), ch(5, 0)},
		id(6): float64(8),
		id(7): float64(4),
		id(8): ch(8, 0),
		id(9): map[string]any{fmt.Sprint(rc(9, "rows", 0)): rc(9, "columns", 0), fmt.Sprint(rc(9, "rows", 1)): rc(9, "columns", 1)},
	}
	got, _ := json.Marshal(answers)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("stored answers\n %s\nwant\n %s", got, exp)
	}
}

func TestBrowserEveryTypeEnglish(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "English", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	if lang := evalJS[string](t, ctx, `document.documentElement.lang + "/" + document.documentElement.dir`); lang != "en/ltr" {
		t.Errorf("lang/dir = %s", lang)
	}
	answerEveryType(t, ctx, "en", "")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 {
		t.Fatalf("%d responses stored, want 1", len(rs))
	}
	checkEveryType(t, sv, rs[0].Answers)

	// The report draws the counts of this one response (once the tally
	// has read the stream).
	testenv.Tally(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/r/"+sv.ReportCode+"/")); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "en-report")
	if n := evalJS[string](t, ctx, `document.querySelector("#count strong").textContent`); n != "1" {
		t.Errorf("report count %q, want 1", n)
	}
	charts := evalJS[[]string](t, ctx,
		`Array.from(document.querySelectorAll(".chart")).map(c => c.querySelector("h2").textContent + "=" + Array.from(c.querySelectorAll("text.value")).map(x => x.textContent).join(","))`)
	want := []string{
		"Which fruit do you like?=0,1,0", "Which colors do you like?=1,0,1", "Pick a picture=1,0",
		"Rank these=1.00,2.00,3.00", // mean ranks, best first: Speed, Quality, Price
		"How likely are you to recommend us?=0,0,0,0,0,0,0,0,1,0,0", "Rate our service=0,0,0,1,0", "Your country=1,0,0",
		"How was each part?=1,1", // each row's total
	}
	if strings.Join(charts, "|") != strings.Join(want, "|") {
		t.Errorf("charts drawn\n %q\nwant\n %q", charts, want)
	}
	if w := evalJS[float64](t, ctx, `document.querySelectorAll(".chart")[0].querySelectorAll("rect.bar")[1].width.baseVal.value`); w <= 0 {
		t.Errorf("the picked choice's bar has width %v", w)
	}
}

func TestBrowserEveryTypePersianWithCode(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "فارسی", Language: 1, Elements: everyTypeElements(true, p.srv.URL),
		Settings: map[string]any{"code_auth": true}})
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), map[string]any{"codes": []string{"KEY-42"}}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	if lang := evalJS[string](t, ctx, `document.documentElement.lang + "/" + document.documentElement.dir + "/" + getComputedStyle(document.body).direction`); lang != "fa/rtl/rtl" {
		t.Errorf("lang/dir/direction = %s", lang)
	}
	// Right to left: the heading starts at the right edge of the page.
	if gap := evalJS[float64](t, ctx,
		`(() => { const m = document.querySelector("main").getBoundingClientRect(); const r = document.createRange(); `+
			`r.selectNodeContents(document.querySelector("h1")); return m.right - r.getBoundingClientRect().right; })()`); gap > 40 {
		t.Errorf("the title ends %vpx from the right edge: not laid out right to left", gap)
	}
	answerEveryType(t, ctx, "fa", "KEY-42")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 {
		t.Fatalf("%d responses stored, want 1", len(rs))
	}
	checkEveryType(t, sv, rs[0].Answers)
	if rs[0].Code == nil || *rs[0].Code != "KEY-42" {
		t.Errorf("code %v, want KEY-42", rs[0].Code)
	}
}

// oneQuestion is a survey of one required text question.
func oneQuestion(name string, settings map[string]any) surveySpec {
	return surveySpec{Name: name, Language: 4, Settings: settings, Elements: []map[string]any{{"type": 2, "title": "Say something"}}}
}

func TestBrowserPersonalisedLink(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("link", nil))
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/variables/", sv.ID), []map[string]any{{"name": "city", "variable_source": 0}, {"name": "source", "variable_source": 0}}, nil); err != nil {
		t.Fatal(err)
	}
	tokens, err := testenv.Sealer(t).Seal(context.Background(), sv.ID, []links.Payload{{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Yazd"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/?qs="+tokens[0]+"&source=mail&other=x")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
	keys(t, ctx, "hello")
	shot(t, ctx, "link")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 || rs[0].Variables["city"] != "Yazd" || rs[0].Variables["source"] != "mail" || len(rs[0].Variables) != 2 {
		t.Fatalf("responses %+v, want one with city=Yazd, source=mail", rs)
	}
}

func TestBrowserCountdown(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("countdown", map[string]any{"responding_ duration": "00:00:02"}))
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#timer")
	shot(t, ctx, "countdown-running")
	visible(t, ctx, "#timeup")
	shot(t, ctx, "countdown-ended")
	if msg := evalJS[string](t, ctx, `document.getElementById("timeup").textContent`); msg != "The time to respond has ended." {
		t.Errorf("time-up message %q", msg)
	}
	if hidden := evalJS[bool](t, ctx, `document.getElementById("survey").hidden`); !hidden {
		t.Errorf("the form is still shown after the time ended")
	}
}

func TestBrowserClosedSurvey(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("closed", map[string]any{"survey": map[string]any{"is_stopped": true}}))
	resp, err := http.Get(p.srv.URL + "/s/" + sv.URLSlug + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Errorf("closed survey page: %d, want 410", resp.StatusCode)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "closed")
	if msg := evalJS[string](t, ctx, `document.getElementById("message").textContent`); msg != "This survey is closed." {
		t.Errorf("closed page says %q", msg)
	}
	resp, err = http.Get(p.srv.URL + "/s/nosuchslug/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown survey page: %d, want 404", resp.StatusCode)
	}
}

func TestBrowserDoubleClickRecordsOne(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("double", nil))
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
	keys(t, ctx, "twice")
	// A double click, and the same form sent again by a second request
	// with the page's Idempotency-Key (its session's own), as a retried
	// request would.
	if err := chromedp.Run(ctx, chromedp.DoubleClick("#submit", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#thanks")
	var status float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(async () => { const f = document.getElementById("survey");
		const r = await fetch("/api/public/surveys/" + f.dataset.slug + "/responses/", {method: "POST",
		headers: {"Content-Type": "application/json", "Idempotency-Key": "session:" + f.elements.session.value.slice(-32)},
		body: JSON.stringify({session: f.elements.session.value, answers: {}, variables: {}})}); return r.status; })()`, &status,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if status != 422 {
		t.Errorf("the page's key (its session's own) sent again with another body: %v, want 422 (409: the page sent another key)", status)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Fatalf("%d responses after a double click, want 1", len(rs))
	}
}

func TestBrowserPlainFormWithoutScript(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "No script", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	ctx := browser(t, false)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
	shot(t, ctx, "noscript-form")
	// Every page is on one form: Tab from one question to the next.
	for _, s := range plainSteps() {
		keys(t, ctx, kb.Tab)
		keys(t, ctx, s...)
	}
	// The form as the browser sends it, to send again below.
	sent := evalJS[string](t, ctx, `new URLSearchParams(new FormData(document.getElementById("survey"))).toString()`)
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#message")
	shot(t, ctx, "noscript-thanks")
	if msg := evalJS[string](t, ctx, `document.getElementById("message").textContent`); msg != "Thank you!" {
		t.Errorf("after the plain form: %q", msg)
	}
	// As the script's thanks: a heading, in a card, with the footer.
	if got := evalJS[string](t, ctx, `document.getElementById("message").tagName + " " + !!document.querySelector("#thanks footer, footer.brand")`); got != "H2 true" {
		t.Errorf("the plain form's thanks: %s, want a heading (H2) and the footer", got)
	}
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 {
		t.Fatalf("%d responses stored, want 1", len(rs))
	}
	checkEveryType(t, sv, rs[0].Answers)
	// The same form sent again (a resend, a second click that got through)
	// carries the same Idempotency-Key: the thanks again, nothing recorded.
	resp, err := http.Post(p.srv.URL+"/s/"+sv.URLSlug+"/", "application/x-www-form-urlencoded", strings.NewReader(sent))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the form sent again: %d, want 200", resp.StatusCode)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Errorf("%d responses after the form was sent again, want 1", len(rs))
	}
}

// TestBrowserHideSettings: with hide_next_button and hide_progressbar the
// page shows neither; Enter moves on by keyboard.
func TestBrowserHideSettings(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "hidden", Language: 4, Settings: map[string]any{"hide_next_button": true, "hide_progressbar": true},
		Elements: []map[string]any{{"type": 7, "title": "First"}, {"type": 7, "title": "Second"}}})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "0")
	if got := evalJS[string](t, ctx, `String(!!document.getElementById("progress")) + "/" + document.getElementById("next").hidden`); got != "false/true" {
		t.Errorf("progress bar shown / next hidden = %s, want false/true", got)
	}
	keys(t, ctx, " ", kb.ArrowDown, kb.Enter)
	waitPage(t, ctx, "1")
	keys(t, ctx, " ")
	shot(t, ctx, "hidden-next")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 || len(rs[0].Answers) != 2 {
		t.Fatalf("responses %+v, want one with two answers", rs)
	}
}

// TestBrowserWrongCode: a wrong code is refused on the code page with the
// API's message, in the alert; the right one then goes on.
func TestBrowserWrongCode(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("code", map[string]any{"code_auth": true}))
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), map[string]any{"codes": []string{"RIGHT-1"}}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "code")
	keys(t, ctx, "WRONG", kb.Enter)
	visible(t, ctx, "#errors p")
	shot(t, ctx, "code-wrong")
	if msg := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); msg != "Authentication failed." {
		t.Errorf("errors %q", msg)
	}
	if got := activePage(t, ctx); got != "code" {
		t.Errorf("page %q after a wrong code, want the code page", got)
	}
	// The alert has the focus; Tab goes on to the code.
	keys(t, ctx, kb.Tab)
	if id := evalJS[string](t, ctx, `document.activeElement.id`); id != "code" {
		t.Fatalf("Tab from the alert reached #%s", id)
	}
	keys(t, ctx, kb.Backspace, kb.Backspace, kb.Backspace, kb.Backspace, kb.Backspace, "RIGHT-1", kb.Enter)
	waitPage(t, ctx, "0")
	if msg := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); msg != "" {
		t.Errorf("the refusal is still shown on the next page: %q", msg)
	}
}
