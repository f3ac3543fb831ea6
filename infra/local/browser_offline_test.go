package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// Answers that survive (contract section 20) in Chromium: a reload
// resumes where the responder was; a submission made offline waits in
// the browser and is recorded once when the connection is back; a kiosk
// survey keeps nothing.

// switchedServer is newPagesServer whose network can be cut: while down,
// every request's connection is closed unanswered, as a lost connection
// looks to the browser (the tab's network emulation says offline too,
// for navigator.onLine and the online event).
type switchedServer struct {
	pagesServer
	down *atomic.Bool
	// puts counts the partial PUTs that reached the service.
	puts *atomic.Int64
}

func newSwitchedServer(t *testing.T) switchedServer {
	t.Helper()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t)}))
	down, puts := new(atomic.Bool), new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/partial/") && !down.Load() {
			puts.Add(1)
		}
		if down.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					_ = c.Close()
				}
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return switchedServer{pagesServer: pagesServer{srv: srv, api: apiClient{h: h, key: key}}, down: down, puts: puts}
}

// online cuts the tab's connection or gives it back.
func (s switchedServer) online(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if !on {
		s.down.Store(true)
	}
	if err := chromedp.Run(ctx, network.Enable(), network.EmulateNetworkConditions(!on, 0, -1, -1)); err != nil {
		t.Fatalf("network emulation: %v", err)
	}
	if on {
		s.down.Store(false)
	}
}

// waitJS polls js until it is true (a minute at most: a loaded machine).
func waitJS(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	for range 600 {
		if evalJS[bool](t, ctx, js) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never happened (%s)", what, js)
}

// awaitJS evaluates an async expression.
func awaitJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &v, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// reload reloads the tab, waiting for the page's script.
func reload(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload: %v", err)
	}
	waitJS(t, ctx, `document.documentElement.classList.contains("ready")`, "the page's script after the reload")
}

// controlled waits for the service worker to control the tab.
func controlled(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, `!!navigator.serviceWorker.controller`, "the service worker taking the page")
}

// pageKept waits until the service worker holds its copy of the page: a
// page shown before the worker controlled it asks to be kept, and the
// worker fetches it once more (r3: the test went offline while that fetch
// was under way on a busy machine, and the offline reload found no copy).
func pageKept(t *testing.T, ctx context.Context) {
	t.Helper()
	for range 600 {
		if awaitJS[bool](t, ctx, `(u => (u.searchParams.delete("resume"), caches.match(u.href)))(new URL(location.href)).then(r => !!r)`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the service worker never kept the page")
}

// kept is what the page keeps for its survey, "" for nothing.
func kept(t *testing.T, ctx context.Context, slug string) string {
	t.Helper()
	return evalJS[string](t, ctx, `localStorage.getItem("survey:`+slug+`") || ""`)
}

// TestBrowserResumeAfterReload: the every-type survey answered to its
// sixth page, reloaded: the sixth page is shown with the answers before it
// filled in (the ranking in its order) and a status that says so; the
// rest answered, one response holds every answer. A Persian survey
// resumes the same way; axe finds nothing in the resumed state, en and fa;
// closed meanwhile, its closed page removes what was kept.
func TestBrowserResumeAfterReload(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Resume", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	visible(t, ctx, ".page.welcome")
	tabTo(t, ctx, "next")
	for i, s := range everyTypeSteps[:5] {
		waitPage(t, ctx, fmt.Sprint(i))
		keys(t, ctx, s...)
		tabTo(t, ctx, "next")
	}
	waitPage(t, ctx, "5")
	session := evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`)
	reload(t, ctx)
	waitPage(t, ctx, "5")
	if got := evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`); got != session {
		t.Errorf("session after the reload %q, want the one started %q", got, session)
	}
	if got := evalJS[string](t, ctx, `document.getElementById("kept").textContent`); got != "Your answers so far are filled in." {
		t.Errorf("resumed status %q", got)
	}
	if got := evalJS[string](t, ctx, `document.querySelector("textarea").value`); got != "Ada" {
		t.Errorf("the text answer after the reload: %q", got)
	}
	shot(t, ctx, "resume-en")
	checkAxe(t, ctx, "en resumed")
	for i, s := range everyTypeSteps[5:] {
		waitPage(t, ctx, fmt.Sprint(i+5))
		keys(t, ctx, s...)
		if i+5 < len(everyTypeSteps)-1 {
			tabTo(t, ctx, "next")
		}
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 {
		t.Fatalf("%d responses stored, want 1", len(rs))
	}
	checkEveryType(t, sv, rs[0].Answers)
	if k := kept(t, ctx, sv.URLSlug); k != "" {
		t.Errorf("kept after the response was recorded: %s", k)
	}
	// After the response a reload starts afresh.
	reload(t, ctx)
	visible(t, ctx, ".page.welcome")

	fa := p.build(t, surveySpec{Name: "ادامه", Language: 1, Elements: everyTypeElements(true, p.srv.URL)})
	open(t, ctx, p, fa.URLSlug)
	visible(t, ctx, ".page.welcome")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "0")
	keys(t, ctx, "آدا")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	reload(t, ctx)
	waitPage(t, ctx, "1")
	got := evalJS[string](t, ctx, `document.getElementById("kept").textContent + "|" + document.querySelector("textarea").value`)
	if got != "پاسخ‌هایی که تاکنون داده‌اید بازگردانده شد.|آدا" {
		t.Errorf("fa resumed: %q", got)
	}
	shot(t, ctx, "resume-fa")
	checkAxe(t, ctx, "fa resumed")

	// Closed meanwhile: the closed page removes what was kept.
	if err := p.api.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", fa.ID), map[string]any{"survey": map[string]any{"is_stopped": true}}, nil); err != nil {
		t.Fatal(err)
	}
	if kept(t, ctx, fa.URLSlug) == "" {
		t.Fatal("nothing kept before the survey closed")
	}
	open(t, ctx, p, fa.URLSlug)
	visible(t, ctx, "#message")
	waitJS(t, ctx, `!localStorage.getItem("survey:`+fa.URLSlug+`")`, "the closed page removing the kept answers")
}

// TestBrowserOfflineSubmission: the page is loaded and its service worker
// installed; offline, the welcome page's Next says it needs a connection;
// online again it starts the response; offline, the answer is typed and
// submitted: the page says it is saved on this device; reloaded offline
// (the service worker's copy) it says so again; online again it is sent
// and the thanks shown, one response stored and counted. The same key and
// body sent once more answer the replay and record nothing. en and fa,
// with axe in the new states.
func TestBrowserOfflineSubmission(t *testing.T) {
	words := map[string][3]string{
		"en": {"This step needs a connection.", "Saved on this device. It will be sent when you are back online.", "written offline"},
		"fa": {"این مرحله به اتصال اینترنت نیاز دارد.",
			"روی این دستگاه ذخیره شد. هنگامی که دوباره به اینترنت وصل شوید فرستاده می‌شود.", "آفلاین"},
	}
	for _, lang := range []string{"en", "fa"} {
		t.Run(lang, func(t *testing.T) {
			s := newSwitchedServer(t)
			spec := withWelcome("offline "+lang, nil)
			if lang == "fa" {
				spec.Language = 1
			}
			sv := s.build(t, spec)
			ctx := browser(t, true)
			open(t, ctx, s.pagesServer, sv.URLSlug)
			visible(t, ctx, ".page.welcome")
			controlled(t, ctx)
			pageKept(t, ctx)

			s.online(t, ctx, false)
			tabTo(t, ctx, "next")
			visible(t, ctx, "#errors p")
			if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); got != words[lang][0] {
				t.Errorf("Next offline on the welcome page says %q", got)
			}
			checkAxe(t, ctx, lang+" needs a connection")
			s.online(t, ctx, true)
			tabTo(t, ctx, "next")
			waitPage(t, ctx, "0")

			s.online(t, ctx, false)
			keys(t, ctx, words[lang][2])
			tabTo(t, ctx, "submit")
			visible(t, ctx, "#kept")
			if got := evalJS[string](t, ctx, `document.getElementById("kept").textContent + "|" + document.getElementById("survey").hidden`); got != words[lang][1]+"|true" {
				t.Errorf("offline submission shows %q", got)
			}
			shot(t, ctx, "offline-saved-"+lang)
			checkAxe(t, ctx, lang+" saved offline")

			reload(t, ctx)
			visible(t, ctx, "#kept")
			if got := evalJS[string](t, ctx, `document.getElementById("kept").textContent`); got != words[lang][1] {
				t.Errorf("reloaded offline, the page shows %q", got)
			}
			shot(t, ctx, "offline-reloaded-"+lang)
			checkAxe(t, ctx, lang+" reloaded offline")
			// The waiting submission's key and body, as the page sends them.
			waiting := evalJS[[]string](t, ctx, `(o => [o.key, JSON.stringify(o.body)])(JSON.parse(localStorage.getItem("survey:`+sv.URLSlug+`")).out)`)
			if waiting[0] == "" || !strings.Contains(waiting[1], `"session"`) {
				t.Fatalf("no submission waits: %v", waiting)
			}
			if rs := s.responses(t, sv.ID); len(rs) != 0 {
				t.Fatalf("%d responses stored while offline", len(rs))
			}

			s.online(t, ctx, true)
			visible(t, ctx, "#thanks")
			shot(t, ctx, "offline-sent-"+lang)
			if k := kept(t, ctx, sv.URLSlug); k != "" {
				t.Errorf("kept after the response was recorded: %s", k)
			}
			// The waiting submission once more, as a second tab's or a
			// retry's would be: the replay, nothing recorded.
			replay := awaitJS[string](t, ctx, fmt.Sprintf(`(async () => { const r = await fetch("/api/public/surveys/%s/responses/", {method: "POST",
				headers: {"Content-Type": "application/json", "Idempotency-Key": %q}, body: %q});
				return r.status + " " + r.headers.get("Idempotent-Replayed"); })()`, sv.URLSlug, waiting[0], waiting[1]))
			if replay != "201 true" {
				t.Errorf("the waiting submission sent again: %s, want 201 true", replay)
			}
			rs := s.responses(t, sv.ID)
			if len(rs) != 1 || rs[0].Answers[fmt.Sprint(elementID(sv, 1))] != words[lang][2] {
				t.Fatalf("responses %+v, want one with %q", rs, words[lang][2])
			}
			testenv.Tally(t)
			var detail struct {
				Submitted int `json:"submitted_responses"`
				Views     int `json:"views"`
			}
			if err := s.api.call("GET", fmt.Sprintf("/api/v2/surveys/%d/", sv.ID), nil, &detail); err != nil {
				t.Fatal(err)
			}
			// One view: the service worker's copy of the page counts none.
			if detail.Submitted != 1 || detail.Views != 1 {
				t.Errorf("submitted_responses %d, views %d; want 1 and 1", detail.Submitted, detail.Views)
			}
		})
	}
}

// TestBrowserKioskKeepsNothing: on a reload_active survey the page keeps
// no answers (a reload starts afresh) and the service worker keeps no
// copy of its page, only the assets.
func TestBrowserKioskKeepsNothing(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, withWelcome("kiosk keeps nothing", nil))
	p.patchElement(t, sv.ID, elementID(sv, 2), map[string]any{"reload_active": true, "reload_time": 30})
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	visible(t, ctx, ".page.welcome")
	controlled(t, ctx)
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "0")
	keys(t, ctx, "shared screen")
	if k := kept(t, ctx, sv.URLSlug); k != "" {
		t.Errorf("a kiosk survey keeps %s", k)
	}
	reload(t, ctx)
	visible(t, ctx, ".page.welcome")
	if got := evalJS[string](t, ctx, `document.querySelector("textarea").value + "|" + document.getElementById("survey").elements.session.value`); got != "|" {
		t.Errorf("a kiosk survey resumed: %q", got)
	}
	cached := awaitJS[[]string](t, ctx, `(async () => { const out = [];
		for (const n of await caches.keys()) for (const r of await (await caches.open(n)).keys()) out.push(new URL(r.url).pathname);
		return out; })()`)
	var assets int
	for _, path := range cached {
		if strings.HasPrefix(path, "/s/") {
			t.Errorf("the service worker keeps the kiosk page %s", path)
		}
		if strings.HasPrefix(path, "/assets/") {
			assets++
		}
	}
	if assets == 0 {
		t.Errorf("the service worker keeps no asset: %v", cached)
	}
}

// TestBrowserPartialAndContinueLater: with partial_responses the page
// sends the answers so far when the page changes, one PUT for two quick
// changes (one every 5 s), which the owner lists; "Continue later" shows
// a link that opens the response on another device (a browser context of
// its own) on the page it was left at, answers filled in, in the
// language it was read in (the link's ?lang=); submitted there, one
// response holds both devices' answers. A bad link says, in
// the survey's language, that it has expired, and starts afresh. axe in
// the new states, en and fa.
func TestBrowserPartialAndContinueLater(t *testing.T) {
	s := newSwitchedServer(t)
	spec := surveySpec{Name: "partial", Language: 4, Settings: map[string]any{"partial_responses": true}, Elements: []map[string]any{
		{"type": 1, "title": "Welcome"}, {"type": 2, "title": "First"}, {"type": 2, "title": "Second"}, {"type": 9, "title": "Thanks!"},
	}}
	sv := s.build(t, spec)
	// In English and Persian, answered in Persian: the link continues in
	// Persian whatever the other device's language (section 24).
	var langs map[string]any
	if err := s.api.call("PUT", fmt.Sprintf("/api/surveys/%d/languages/", sv.ID), map[string]any{"languages": []string{"fa"}}, &langs); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.srv.URL+"/s/"+sv.URLSlug+"/?lang=fa")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	if !evalJS[bool](t, ctx, `document.querySelector(".later").hidden`) {
		t.Errorf("Continue later is offered before the response started")
	}
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "0")
	keys(t, ctx, "first")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	s.waitPuts(t, 1)
	first := time.Now()
	// Two quick page changes: one more PUT, once 5 s have passed.
	evalJS[bool](t, ctx, `document.getElementById("prev").click(), document.getElementById("next").click(), true`)
	waitPage(t, ctx, "1")
	if n := s.puts.Load(); n != 1 && time.Since(first) < 4*time.Second {
		t.Errorf("%d PUTs within 5 s of the first", n)
	}
	s.waitPuts(t, 2)
	// The owner lists the partial (the list may lag: section 11's 5 s).
	var partials struct {
		Results []struct {
			Answers  map[string]any `json:"answers"`
			LastPage int            `json:"last_page"`
		} `json:"results"`
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if err := s.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/?status=partial", sv.ID), nil, &partials); err != nil {
			t.Fatal(err)
		}
		if len(partials.Results) == 1 && partials.Results[0].LastPage == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(partials.Results) != 1 || partials.Results[0].LastPage != 1 || partials.Results[0].Answers[fmt.Sprint(elementID(sv, 1))] != "first" {
		t.Errorf("the owner's partials: %+v, want one on page 1 with the first answer", partials.Results)
	}
	evalJS[bool](t, ctx, `document.querySelector(".later button").click(), true`)
	visible(t, ctx, "#resume-link")
	link := evalJS[string](t, ctx, `document.getElementById("resume-link").href`)
	if !strings.HasPrefix(link, s.srv.URL+"/s/"+sv.URLSlug+"/?resume=") || !strings.HasSuffix(link, "&lang=fa") {
		t.Fatalf("Continue later shows %q, want the resume address in Persian", link)
	}
	shot(t, ctx, "continue-later")
	checkAxe(t, ctx, "fa continue later")

	// Another device: a tab without the first one's cookies and storage.
	other := browser(t, true)
	if err := chromedp.Run(other, network.ClearBrowserCookies(), storage.ClearDataForOrigin(s.srv.URL, "local_storage,service_workers,cache_storage"),
		chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, other, `document.documentElement.classList.contains("ready")`, "the page's script")
	waitPage(t, other, "1")
	if got := evalJS[string](t, other, `document.getElementById("a`+fmt.Sprint(elementID(sv, 1))+`").value + "|" + location.search + "|" + document.documentElement.lang`); got != "first|?lang=fa|fa" {
		t.Errorf("continued on another device: %q, want the first answer, no token in the address, in Persian", got)
	}
	checkAxe(t, other, "fa continued")
	keys(t, other, "second")
	tabTo(t, other, "submit")
	visible(t, other, "#thanks")
	rs := s.responses(t, sv.ID)
	if len(rs) != 1 || rs[0].Answers[fmt.Sprint(elementID(sv, 1))] != "first" || rs[0].Answers[fmt.Sprint(elementID(sv, 2))] != "second" {
		t.Fatalf("responses %+v, want one with first and second", rs)
	}

	for _, c := range []struct{ lang, want string }{{"en", "The link to continue has expired."}, {"fa", "پیوند ادامه منقضی شده است."}} {
		target := sv
		if c.lang == "fa" {
			fa := spec
			fa.Language = 1
			target = s.build(t, fa)
		}
		if err := chromedp.Run(ctx, chromedp.Navigate(s.srv.URL+"/s/"+target.URLSlug+"/?resume=not-a-token")); err != nil {
			t.Fatal(err)
		}
		visible(t, ctx, "#kept")
		visible(t, ctx, ".page.welcome")
		if got := evalJS[string](t, ctx, `document.getElementById("kept").textContent`); got != c.want {
			t.Errorf("%s: a bad link says %q", c.lang, got)
		}
		shot(t, ctx, "resume-expired-"+c.lang)
		checkAxe(t, ctx, c.lang+" link expired")
	}
}

// waitPuts waits (a minute at most) for n partial PUTs, and fails on more.
func (s switchedServer) waitPuts(t *testing.T, n int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); s.puts.Load() < n && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if got := s.puts.Load(); got != n {
		t.Fatalf("%d partial PUTs, want %d", got, n)
	}
}

// TestBrowserSessionRespondedInAnotherTab: this browser's kept session
// recorded its response in another tab, with other answers; the page,
// resumed from what was kept, sends its own (the session's key, contract
// section 11: 422 for another body) and is refused. What was kept is
// forgotten, as after a 409, so that the next visit starts afresh instead
// of resuming a session that can never respond again.
func TestBrowserSessionRespondedInAnotherTab(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, oneQuestion("two tabs", nil))
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	visible(t, ctx, "textarea")
	// The other tab: a session, kept in this browser's storage, and its
	// response recorded under the session's own key.
	if !awaitJS[bool](t, ctx, `(async () => { const slug = document.getElementById("survey").dataset.slug, api = "/api/public/surveys/" + slug + "/";
		const s = await (await fetch(api + "sessions/", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"})).json();
		localStorage.setItem("survey:" + slug, JSON.stringify({session: s.session, started_at: s.started_at, page: 0}));
		const r = await fetch(api + "responses/", {method: "POST", headers: {"Content-Type": "application/json", "Idempotency-Key": "session:" + s.session.slice(-32)},
			body: JSON.stringify({session: s.session, answers: {}, variables: {}})});
		return r.status === 201; })()`) {
		t.Fatal("the other tab's response was not recorded")
	}
	reload(t, ctx)
	visible(t, ctx, "textarea")
	keys(t, ctx, "mine")
	if err := chromedp.Run(ctx, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("errors").textContent !== ""`, "the refusal")
	if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); got != "This form was already sent with other answers." {
		t.Errorf("refusal %q", got)
	}
	if k := kept(t, ctx, sv.URLSlug); k != "" {
		t.Errorf("kept after its session's response was recorded elsewhere: %s", k)
	}
	if rs := p.responses(t, sv.ID); len(rs) != 1 {
		t.Errorf("%d responses, want 1", len(rs))
	}
}
