package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// themedServer is a pagesServer whose account has themes with a web font
// and a background image (contract section 22).
type themedServer struct {
	pagesServer
	st  *store.Store
	aid int64
}

func newThemedServer(t *testing.T) themedServer {
	t.Helper()
	st := testenv.Store(t)
	a, key := testenv.NewAccount(t, survey.PlanEnterprise)
	// The pages' own address is the server's, port and all: a page's
	// canonical link names it (Lighthouse's SEO audit checks it).
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: base, exports: testenv.Exports(t), pages: pages.Config{PublicURL: base}}))
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return themedServer{pagesServer: pagesServer{srv: srv, api: apiClient{h: h, key: key}}, st: st, aid: a.ID}
}

// theme makes a theme of the account with font (a font's id) and size
// (font_size 1-3), a dark
// page color and a background image, and answers its id. The image is set
// as PUT .../background-image/ sets it: a picture the service serves.
func (p themedServer) theme(t *testing.T, font, size int64) int64 {
	t.Helper()
	var th survey.Theme
	if err := p.api.call("POST", "/api/themes/", map[string]any{"font_family": font, "font_size": size, "background_color": "#10243E",
		"question_color": "#F8FAFC", "button_color": "#0E7490", "accent_color": "#0891B2", "background_image_fit": 1,
		"background_image_position": 5, "background_image_brightness": 90}, &th); err != nil {
		t.Fatal(err)
	}
	img := p.srv.URL + pages.AssetPath("sea.svg")
	th.BackgroundImage = &survey.BackgroundImage{ID: 1, URL: img, ThumbnailURL: img}
	if err := p.st.UpdateTheme(context.Background(), p.aid, th); err != nil {
		t.Fatal(err)
	}
	return th.ID
}

// themed builds spec's survey and sets the theme on it, as an owner does.
func (p themedServer) themed(t *testing.T, spec surveySpec, theme int64) builtSurvey {
	t.Helper()
	sv := p.build(t, spec)
	if err := p.api.call("PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sv.ID), map[string]any{"theme_id": theme}, nil); err != nil {
		t.Fatal(err)
	}
	return sv
}

// TestBrowserThemedPages walks every page a responder sees of a survey
// with a theme of a web font and a background image (contract section
// 22), in English (Inter, large) and Persian (Noto Naskh Arabic, small), on a phone and
// a desktop: welcome, code (and refused), every question page (and a
// required question refused), thanks, report, the sign-in step, the
// plain form and its refusal, the closed page. Each state must draw the
// theme's font and image, pass axe-core (WCAG 2.2 AA, heading-order
// included), and is saved as themed-<lang>-<screen>-<state>.png.
func TestBrowserThemedPages(t *testing.T) {
	p := newThemedServer(t)
	for _, c := range []struct {
		lang     string
		language int
		font     int64
		size     int64
		name     string
	}{{"en", 4, 3, 3, "Customer survey"}, {"fa", 1, 4, 1, "نظرسنجی مشتریان"}} {
		theme := p.theme(t, c.font, c.size)
		closed := p.themed(t, surveySpec{Name: c.name, Language: c.language, Settings: map[string]any{"survey": map[string]any{"is_stopped": true}},
			Elements: []map[string]any{{"type": 2, "title": "?"}}}, theme)
		for _, sc := range []struct {
			name          string
			width, height int64
			mobile        bool
			code          string
		}{{"phone", 390, 844, true, "KEY-1"}, {"desktop", 1366, 768, false, "KEY-2"}} {
			name := c.lang + " " + sc.name
			prefix := "themed-" + c.lang + "-" + sc.name
			// Surveys for each screen: the page keeps a visit's answers in
			// the browser and a second visit resumes past the welcome.
			sv := p.themed(t, surveySpec{Name: c.name, Language: c.language, Elements: everyTypeElements(c.lang == "fa", p.srv.URL),
				Settings: map[string]any{"code_auth": true}}, theme)
			if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), map[string]any{"codes": []string{sc.code}}, nil); err != nil {
				t.Fatal(err)
			}
			signIn := p.themed(t, surveySpec{Name: c.name, Language: c.language, Settings: map[string]any{"service_auth": true},
				Elements: []map[string]any{{"type": 1, "title": c.name}, {"type": 2, "title": "?"}}}, theme)
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			axeWalk(t, ctx, p.srv.URL, sv, name, sc.code, prefix)
			drawsTheme(t, ctx, name+" report")

			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+signIn.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, ".page.welcome")
			evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
			waitPage(t, ctx, "signin-email")
			drawsTheme(t, ctx, name+" sign-in")
			// An iPhone zooms into a field under 16px: the sign-in's keep
			// 16px on a theme of small text (font_size 1: 15px) too.
			if px := evalJS[float64](t, ctx, `parseFloat(getComputedStyle(document.getElementById("signin-email")).fontSize)`); px < 16 {
				t.Errorf("%s: the sign-in field's text is %vpx; want 16px or more", name, px)
			}
			checkAxe(t, ctx, name+" sign-in")
			shot(t, ctx, prefix+"-signin")

			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+closed.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "#message")
			drawsTheme(t, ctx, name+" closed")
			checkAxe(t, ctx, name+" closed")
			shot(t, ctx, prefix+"-closed")

			// Without the page's script: the plain form, its refusal.
			plain := tab(t, true, sc.width, sc.height, sc.mobile)
			if err := chromedp.Run(plain, network.Enable(), network.SetBlockedURLs([]string{"*.js"}),
				chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, plain, "#code")
			drawsTheme(t, plain, name+" without script")
			checkAxe(t, plain, name+" without script")
			shot(t, plain, prefix+"-plain")
			if err := chromedp.Run(plain, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			visible(t, plain, "#errors p")
			drawsTheme(t, plain, name+" without script, refused")
			checkAxe(t, plain, name+" without script, refused")
			shot(t, plain, prefix+"-plain-refused")
		}
	}
}

// drawsTheme fails the test unless the tab's page draws the theme: its
// web font loaded (document.fonts) and the background image behind it.
func drawsTheme(t *testing.T, ctx context.Context, state string) {
	t.Helper()
	if got := evalJS[string](t, ctx, `getComputedStyle(document.body, "::before").backgroundImage`); got == "none" || got == "" {
		t.Errorf("%s: no background image", state)
	}
	if !evalJS[bool](t, ctx, `Array.from(document.styleSheets).some(s => !s.href && /@font-face/.test(Array.from(s.cssRules).map(r => r.cssText).join("")))`) {
		t.Errorf("%s: the page has no @font-face of the theme", state)
	}
}
