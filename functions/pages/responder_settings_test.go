package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// The hosted page's seams: the plain form honours the responder
// settings, a framed page keeps its responder cookie, and every responder
// text is in the survey's language, a 429 included.

// plainBrowser is a browser without the page's script: it keeps the
// responder cookie the pages set, as a browser's jar would.
type plainBrowser struct {
	h      http.Handler
	cookie string
	ua     string
}

func (b *plainBrowser) do(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	if b.cookie != "" {
		req.AddCookie(&http.Cookie{Name: responding.ResponderCookieName, Value: b.cookie})
	}
	if b.ua != "" {
		req.Header.Set("User-Agent", b.ua)
	}
	req.RemoteAddr = "203.0.113.7:4444"
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.Name == responding.ResponderCookieName {
			b.cookie = c.Value
		}
	}
	return rec
}

func (b *plainBrowser) page(t *testing.T, slug string) string {
	t.Helper()
	req := httptest.NewRequest("GET", "/s/"+slug+"/", nil)
	req.Header.Set("Accept", "text/html")
	rec := b.do(t, req)
	if rec.Code != 200 {
		t.Fatalf("page: %d %.300s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// send posts the page's form with answers, as the browser submits it.
func (b *plainBrowser) send(t *testing.T, slug, page, answers string) *httptest.ResponseRecorder {
	t.Helper()
	body := "idempotency_key=" + url.QueryEscape(hidden(t, page, "idempotency_key")) + "&served=" + url.QueryEscape(hidden(t, page, "served")) + answers
	req := httptest.NewRequest("POST", "/s/"+slug+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(t, req)
}

func (f fixture) answers() string {
	return fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)
}

func (f fixture) set(t *testing.T, u store.SettingsUpdate) {
	t.Helper()
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, u); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) responses(t *testing.T) []survey.Response {
	t.Helper()
	rs, err := f.st.ResponsesPage(context.Background(), f.sv.ID, store.ResponseQuery{Limit: 20, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	return rs.Responses
}

// TestPlainFormNoSpam: the plain form sets and reads the responder cookie
// (before: every plain-form submission of a no_spam survey was a 400,
// the responder stored empty): the page sets it, the form's response is
// bound to it and stores where it came from, the same browser's second
// form is refused (403), a browser that kept no cookie is told the survey
// needs cookies (400) and records nothing.
func TestPlainFormNoSpam(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.set(t, store.SettingsUpdate{Set: map[string]any{"no_spam": true}})
	slug := f.sv.URLSlug

	b := &plainBrowser{h: f.h, ua: "PlainBrowser/1.0"}
	page := b.page(t, slug)
	if b.cookie == "" {
		t.Fatalf("the page set no responder cookie")
	}
	if rec := b.send(t, slug, page, f.answers()); rec.Code != 200 {
		t.Fatalf("first plain form on a no_spam survey: %d %.400s", rec.Code, rec.Body)
	}
	rs := f.responses(t)
	if len(rs) != 1 {
		t.Fatalf("%d responses, want 1", len(rs))
	}
	if d := rs[0].Responder; d == nil || d.IP != "203.0.113.7" || d.UserAgent != "PlainBrowser/1.0" {
		t.Errorf("the plain form's responder details: %+v", d)
	}
	again := b.send(t, slug, b.page(t, slug), f.answers())
	if again.Code != http.StatusForbidden || !strings.Contains(again.Body.String(), "You have already responded to this survey.") {
		t.Errorf("the same browser's second plain form: %d %.400s", again.Code, again.Body)
	}

	// A browser that keeps no cookie: the form has nothing to bind to.
	jarless := &plainBrowser{h: f.h}
	p := jarless.page(t, slug)
	jarless.cookie = ""
	if rec := jarless.send(t, slug, p, f.answers()); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "This survey needs cookies to accept your response.") {
		t.Errorf("a plain form without the cookie: %d %.400s", rec.Code, rec.Body)
	}
	if n := len(f.responses(t)); n != 1 {
		t.Errorf("%d responses after the refusals, want 1", n)
	}
}

// TestPlainFormTagSpam: with tag_spam the plain form's repeats are kept
// and marked spam (before: they never were).
func TestPlainFormTagSpam(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	f.set(t, store.SettingsUpdate{Set: map[string]any{"no_spam": true, "tag_spam": true}})
	slug := f.sv.URLSlug
	b := &plainBrowser{h: f.h}
	for i := range 2 {
		if rec := b.send(t, slug, b.page(t, slug), f.answers()); rec.Code != 200 {
			t.Fatalf("plain form %d: %d %.400s", i, rec.Code, rec.Body)
		}
	}
	rs := f.responses(t)
	if len(rs) != 2 || rs[0].Spam || !rs[1].Spam {
		t.Fatalf("responses of one browser under tag_spam: %d, spam %v", len(rs), func() (out []bool) {
			for _, r := range rs {
				out = append(out, r.Spam)
			}
			return
		}())
	}
}

// TestWelcomeEnterText: the welcome page's start button reads its
// enter_text in the page as served (before: only the script set it).
func TestWelcomeEnterText(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	w := survey.NewElement(survey.TypeWelcome)
	w.Title, w.EnterText = "Hello", "Let us begin"
	if _, err := f.st.CreateElement(context.Background(), f.aid, f.sv.ID, w, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	page := f.get("/s/" + f.sv.URLSlug + "/").body
	if !strings.Contains(page, `id="next" class="next" data-label="Next" hidden>Let us begin</button>`) {
		t.Errorf("the start button is not labelled with enter_text: %.2000s", page)
	}
}

// TestFramedPageCookie: the frame's navigation (Sec-Fetch-Dest: iframe)
// sets the responder cookie SameSite=None, Secure and Partitioned, so
// that the framed page's own requests carry it on another site (finding
// 3); a page outside a frame sets it SameSite=Lax; a page never replaces
// one the browser has.
func TestFramedPageCookie(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	get := func(dest, cookie string) *http.Cookie {
		req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil)
		req.Header.Set("Accept", "text/html")
		if dest != "" {
			req.Header.Set("Sec-Fetch-Dest", dest)
		}
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: responding.ResponderCookieName, Value: cookie})
		}
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		for _, c := range rec.Result().Cookies() {
			if c.Name == responding.ResponderCookieName {
				return c
			}
		}
		return nil
	}
	framed := get("iframe", "")
	if framed == nil || framed.SameSite != http.SameSiteNoneMode || !framed.Secure || !framed.Partitioned || !framed.HttpOnly {
		t.Errorf("a framed page's cookie: %+v", framed)
	}
	top := get("document", "")
	if top == nil || top.SameSite != http.SameSiteLaxMode || !top.Secure || top.Partitioned || !top.HttpOnly {
		t.Errorf("a top-level page's cookie: %+v", top)
	}
	if again := get("iframe", responding.NewResponderValue()); again != nil {
		t.Errorf("a page replaced the browser's cookie: %+v", again)
	}
}

// TestTurkishPage: a Turkish survey's page is in Turkish, its words and
// the refusals its script and plain form show (before: a wholly
// English page under lang="tr").
func TestTurkishPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	tr := int64(2)
	f.set(t, store.SettingsUpdate{Language: &tr, Set: map[string]any{"code_auth": true}})
	page := f.get("/s/" + f.sv.URLSlug + "/").body
	for _, want := range []string{`lang="tr" dir="ltr"`, ">Gönder</button>", ">İleri</button>", "Kodunuz kabul edilmedi."} {
		if !strings.Contains(page, want) {
			t.Errorf("the Turkish page lacks %q", want)
		}
	}
	for _, english := range []string{">Submit</button>", ">Next</button>", ">Your code</label>"} {
		if strings.Contains(page, english) {
			t.Errorf("the Turkish page says %q", english)
		}
	}
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=k&code=WRONG")
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), `<p dir="auto">Kodunuz kabul edilmedi.</p>`) {
		t.Errorf("a wrong code on the Turkish plain form: %d %.600s", rec.Code, rec.Body)
	}
}

// TestResponderTextsTranslated: every refusal a responder can meet has
// its words in fa, ar and tr, in the table the page's script reads (of a
// survey whose features can bring each: no_spam, a CAPTCHA, a file
// question) and on the plain form (before: "You have already
// responded", "needs cookies", "Invalid challenge.", "Invalid upload.",
// the 429 and 503 texts were English).
func TestResponderTextsTranslated(t *testing.T) {
	t.Parallel()
	for _, lang := range []int64{1, 2, 3} {
		code, _ := survey.LanguageCode(lang)
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 2)
			f.set(t, store.SettingsUpdate{Language: &lang, Set: map[string]any{"no_spam": true}})
			// The plain form's refusal in the survey's language.
			b := &plainBrowser{h: f.h}
			b.send(t, f.sv.URLSlug, b.page(t, f.sv.URLSlug), f.answers())
			rec := b.send(t, f.sv.URLSlug, b.page(t, f.sv.URLSlug), f.answers())
			errs := regexp.MustCompile(`<div id="errors"[^>]*>(.*?)</div>`).FindStringSubmatch(rec.Body.String())
			if rec.Code != 403 || errs == nil || !strings.Contains(errs[1], `<p dir="auto">`) || strings.Contains(errs[1], "already responded") {
				t.Errorf("the %s plain form's repeat: %d %.600s", code, rec.Code, rec.Body)
			}
			f.set(t, store.SettingsUpdate{Set: map[string]any{"captcha_needed": true}})
			file := survey.NewElement(survey.TypeFileUpload)
			file.Title, file.MaxFileSizeMB, file.AllowedFileTypes = "CV", 1, []string{"pdf"}
			if _, err := f.st.CreateElement(context.Background(), f.aid, f.sv.ID, file, survey.Placement{}); err != nil {
				t.Fatal(err)
			}
			page := f.get("/s/" + f.sv.URLSlug + "/").body
			for _, english := range responderTexts {
				if !strings.Contains(page, `"`+english+`":`) { // the table is between single quotes
					t.Errorf("the %s page's table has no %q", code, english)
				}
			}
		})
	}
}

// responderTexts are the API's and the page's English texts a responder
// may meet beyond section 11's: each has its translation in the page's
// table. The 429 and 503 texts are the page's own (their API details
// carry a number, or nothing a responder needs).
var responderTexts = []string{
	"You have already responded to this survey.",
	"This survey needs cookies to accept your response.",
	"Invalid challenge.",
	"Invalid upload.",
	"This field is required.",
	"This file belongs to another response.",
	"This session has already responded.",
	"Too many requests; wait a moment and try again.",
	"The service is busy; try again shortly.",
}

// TestChallengeWorkerWhereAChallengeMayCome: the page carries the
// CAPTCHA worker's address (data-captcha-worker) wherever the page may
// have to solve a challenge (the CAPTCHA, a sign-in's code send, the
// code-guess guard of a code survey under attack) and nowhere else. The
// worker went missing from sign-in and code pages once, when the form's
// flags were trimmed for weight: the browser's sign-in then failed with
// "The network failed".
func TestChallengeWorkerWhereAChallengeMayCome(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		set    map[string]any
		worker bool
	}{
		{"plain", nil, false},
		{"captcha", map[string]any{"captcha_needed": true}, true},
		{"email sign-in", map[string]any{"service_auth": true}, true},
		{"phone sign-in", map[string]any{"phone_number_auth": true}, true},
		{"codes", map[string]any{"code_auth": true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 2)
			if c.set != nil {
				f.set(t, store.SettingsUpdate{Set: c.set})
			}
			page := f.get("/s/" + f.sv.URLSlug + "/")
			if page.code != 200 {
				t.Fatalf("page: %d", page.code)
			}
			if got := strings.Contains(page.body, `data-captcha-worker="/assets/captcha-worker.`); got != c.worker {
				t.Errorf("data-captcha-worker on the page: %v, want %v", got, c.worker)
			}
		})
	}
}
