package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/localaws"
	"surveyservice/internal/outbox"
	"surveyservice/internal/testenv"
	"surveyservice/shared/sending"
	"surveyservice/shared/survey"
)

// newSigningServer is newPagesServer whose public function sends codes
// through moto's SES and SNS, each message also kept in the returned
// outbox (as `make run` keeps it for GET /local/outbox/). The per-client
// budget is raised: every test of the binary sends from 127.0.0.1.
func newSigningServer(t *testing.T) (pagesServer, *outbox.Outbox) {
	t.Helper()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	cfg := testenv.Config(t)
	from := fmt.Sprintf("signin-%d@example.com", time.Now().UnixNano())
	if err := localaws.EnsureMailIdentity(context.Background(), cfg, from); err != nil {
		t.Fatal(err)
	}
	box := outbox.New(nil)
	limits := sending.DefaultLimits
	limits.Client = sending.Limit{N: 10000, Per: time.Hour}
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t),
		sender: box.Wrap(sending.New(cfg, sending.Config{MailFrom: from, SenderID: "Survey"})), limits: limits}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return pagesServer{srv: srv, api: apiClient{h: h, key: key}}, box
}

// sixDigits is a code in a message, in any of the survey languages' digits.
var sixDigits = regexp.MustCompile(`(?:^|[^0-9۰-۹٠-٩])([0-9۰-۹٠-٩]{6})(?:$|[^0-9۰-۹٠-٩])`)

// codeSentTo is the code of the newest message to `to`, waited for.
func codeSentTo(t *testing.T, box *outbox.Outbox, to string) string {
	t.Helper()
	var code string
	waitFor(t, 30*time.Second, "a code sent to "+to, func() bool {
		for _, e := range box.Messages() { // newest first
			if e.To == to {
				if m := sixDigits.FindStringSubmatch(e.Body); m != nil {
					code = m[1]
					return true
				}
			}
		}
		return false
	})
	return code
}

// TestBrowserSignIn: a responder signs in by email and by phone on the
// hosted page (the address, a code read from the outbox, a wrong one
// refused, then the number in the survey's own form) and responds; the
// response carries both. axe finds nothing on the sign-in steps (the
// address, a refusal, the code asked), in English and in Persian.
func TestBrowserSignIn(t *testing.T) {
	p, box := newSigningServer(t)
	for _, c := range []struct {
		lang            int
		name, desc      string
		number, e164    string
		badAddressError string
	}{
		{4, "en", "Use your work address.", "+44 7911 123%03d", "+447911123%03d", "Enter a valid email address."},
		{1, "fa", "با نشانی کاری خود وارد شوید.", "0912 %07d", "+98912%07d", "یک نشانی ایمیل معتبر وارد کنید."},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := time.Now().UnixNano() % 1000
			number, e164 := fmt.Sprintf(c.number, n), fmt.Sprintf(c.e164, n)
			if c.name == "fa" { // the Iranian national form, in Persian digits
				number = strings.Map(func(r rune) rune {
					if r >= '0' && r <= '9' {
						return '۰' + r - '0'
					}
					return r
				}, number)
			}
			email := fmt.Sprintf("Responder-%d@Example.com", time.Now().UnixNano())
			sv := p.build(t, surveySpec{Name: "Sign in " + c.name, Language: c.lang, Settings: map[string]any{
				"service_auth": true, "phone_number_auth": true, "auth_description": c.desc},
				Elements: []map[string]any{
					{"type": 1, "title": "Welcome"},
					{"type": 2, "title": "Say something"},
					{"type": 9, "title": "Thanks!"},
				}})
			ctx := browser(t, true)
			open(t, ctx, p, sv.URLSlug)
			visible(t, ctx, ".page.welcome")
			next := func() { evalJS[bool](t, ctx, `document.getElementById("next").click(), true`) }
			set := func(id, v string) {
				evalJS[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).value = %q, true`, id, v))
			}
			next()
			waitPage(t, ctx, "signin-email")
			if d := evalJS[string](t, ctx, `document.querySelector(".page:not([hidden]) .auth-description").textContent`); d != c.desc {
				t.Errorf("auth_description %q above the address, want %q", d, c.desc)
			}
			checkAxe(t, ctx, c.name+" sign-in email")
			set("signin-email", "not-an-address")
			next()
			visible(t, ctx, "#errors p")
			if got := evalJS[string](t, ctx, `document.getElementById("errors").innerText`); !strings.Contains(got, c.badAddressError) {
				t.Errorf("a bad address: errors %q, want %q", got, c.badAddressError)
			}
			if evalJS[string](t, ctx, `document.getElementById("signin-email").getAttribute("aria-invalid")`) != "true" {
				t.Errorf("the refused address is not marked aria-invalid")
			}
			checkAxe(t, ctx, c.name+" sign-in email refused")
			set("signin-email", email)
			next()
			visible(t, ctx, ".page:not([hidden]) .signin-confirm")
			checkAxe(t, ctx, c.name+" sign-in code asked")
			code := codeSentTo(t, box, strings.ToLower(email))
			wrong := "111111"
			if code == wrong || code == "۱۱۱۱۱۱" {
				wrong = "222222"
			}
			set("signin-email-code", wrong)
			next()
			visible(t, ctx, "#errors p")
			checkAxe(t, ctx, c.name+" sign-in wrong code")
			set("signin-email-code", code)
			next()
			waitPage(t, ctx, "signin-phone")
			checkAxe(t, ctx, c.name+" sign-in phone")
			set("signin-phone", number)
			next()
			visible(t, ctx, ".page:not([hidden]) .signin-confirm")
			set("signin-phone-code", codeSentTo(t, box, e164))
			next()
			waitPage(t, ctx, "0")
			set(fmt.Sprintf("a%v", sv.Elements[1]["id"]), "signed in")
			evalJS[bool](t, ctx, `document.getElementById("submit").click(), true`)
			visible(t, ctx, "#thanks")
			if rs := respondents(t, p, sv.ID); len(rs) != 1 || rs[0]["email"] != strings.ToLower(email) || rs[0]["phone"] != e164 {
				t.Fatalf("respondents %v, want one from %s and %s", rs, strings.ToLower(email), e164)
			}
		})
	}
}

// TestBrowserSignInCrossSite: a page on localhost frames a survey that
// asks for an email address, served from 127.0.0.1 (another site): inside
// the frame the responder solves the send's challenge, gets the code,
// signs in and responds, and the response carries the address.
func TestBrowserSignInCrossSite(t *testing.T) {
	p, box := newSigningServer(t)
	sv := p.build(t, surveySpec{Name: "Signed in, framed", Language: 4, Settings: map[string]any{"service_auth": true},
		Elements: []map[string]any{
			{"type": 1, "title": "Welcome"},
			{"type": 2, "title": "Say something"},
			{"type": 9, "title": "Thanks!"},
		}})
	origin := p.srv.URL // http://127.0.0.1:Q
	parent := parentSite(t, origin+"/s/"+sv.URLSlug+"/", origin)
	parentURL := strings.Replace(parent.URL, "127.0.0.1", "localhost", 1) // http://localhost:P: another site
	if !strings.HasPrefix(parentURL, "http://localhost:") {
		t.Fatalf("parent %s: want localhost framing 127.0.0.1", parentURL)
	}
	ctx := browser(t, true)
	fctx := framed(t, ctx, parentURL, origin+"/s/")
	visible(t, fctx, ".page.welcome")
	next := func() { evalJS[bool](t, fctx, `document.getElementById("next").click(), true`) }
	set := func(id, v string) {
		evalJS[bool](t, fctx, fmt.Sprintf(`document.getElementById(%q).value = %q, true`, id, v))
	}
	email := fmt.Sprintf("framed-%d@example.com", time.Now().UnixNano())
	next()
	waitPage(t, fctx, "signin-email")
	set("signin-email", email)
	next()
	visible(t, fctx, ".page:not([hidden]) .signin-confirm")
	set("signin-email-code", codeSentTo(t, box, email))
	next()
	waitPage(t, fctx, "0")
	set(fmt.Sprintf("a%v", sv.Elements[1]["id"]), "from the blog")
	evalJS[bool](t, fctx, `document.getElementById("submit").click(), true`)
	visible(t, fctx, "#thanks")
	shot(t, ctx, "signin-cross-site")
	if rs := respondents(t, p, sv.ID); len(rs) != 1 || rs[0]["email"] != email {
		t.Fatalf("respondents %v, want one from %s", rs, email)
	}
}

// respondents are the survey's responses' respondent objects, as the
// owner's list shows them.
func respondents(t *testing.T, p pagesServer, sid int64) []map[string]string {
	t.Helper()
	var page struct {
		Results []struct {
			Respondent map[string]string `json:"respondent"`
		} `json:"results"`
	}
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/", sid), nil, &page); err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]string, len(page.Results))
	for i, r := range page.Results {
		out[i] = r.Respondent
	}
	return out
}
