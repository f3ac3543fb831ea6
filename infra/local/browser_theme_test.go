package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestBrowserTheme sets a theme with a web font and a background image on
// an English and a Persian survey (contract section 22) through the API,
// and looks at the page on a phone and a desktop: the browser loads the
// theme's font from the page's own origin, draws the image behind the
// page, and the question cards stay opaque white over it. The
// screenshots are theme-<lang>-<screen>-*.png in the browser tests'
// folder.
func TestBrowserTheme(t *testing.T) {
	st := testenv.Store(t)
	a, key := testenv.NewAccount(t, survey.PlanEnterprise)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), surveyURL: "http://127.0.0.1", exports: testenv.Exports(t)}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	p := pagesServer{srv: srv, api: apiClient{h: h, key: key}}
	ctx := context.Background()
	for _, c := range []struct {
		lang     string
		language int
		name     string
		font     int64
		family   string
	}{
		{"en", 4, "Customer survey", 3, "Inter"},
		{"fa", 1, "نظرسنجی مشتریان", 4, "Noto Naskh Arabic"},
	} {
		var th survey.Theme
		if err := p.api.call("POST", "/api/themes/", map[string]any{"font_family": c.font, "font_size": 2, "background_color": "#10243E",
			"question_color": "#F8FAFC", "button_color": "#0E7490", "accent_color": "#0891B2", "background_image_fit": 1,
			"background_image_position": 5, "background_image_brightness": 90}, &th); err != nil {
			t.Fatal(err)
		}
		// The image is set as PUT .../background-image/ would set it: a
		// picture the service serves.
		th.BackgroundImage = &survey.BackgroundImage{ID: 1, URL: srv.URL + pages.AssetPath("sea.svg"), ThumbnailURL: srv.URL + pages.AssetPath("sea.svg")}
		if err := st.UpdateTheme(ctx, a.ID, th); err != nil {
			t.Fatal(err)
		}
		for _, sc := range []struct {
			name          string
			width, height int64
			mobile        bool
		}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
			name := "theme-" + c.lang + "-" + sc.name
			// A survey for each screen: the page keeps a visit's answers in
			// the browser and a second visit resumes past the welcome.
			sv := p.build(t, surveySpec{Name: c.name, Language: c.language, Elements: everyTypeElements(c.lang == "fa", srv.URL)})
			if err := p.api.call("PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sv.ID), map[string]any{"theme_id": th.ID}, nil); err != nil {
				t.Fatal(err)
			}
			tab := tab(t, true, sc.width, sc.height, sc.mobile)
			seen(t, tab, srv.URL+"/s/"+sv.URLSlug+"/", ".page.welcome", name+"-welcome")
			var loaded []string
			if err := chromedp.Run(tab, chromedp.Evaluate(`document.fonts.ready.then(() => Array.from(document.fonts).filter(f => f.status == "loaded").map(f => f.family.replace(/"/g, "")))`,
				&loaded, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(loaded, ","), c.family) {
				t.Errorf("%s: the fonts loaded are %v; want %s", name, loaded, c.family)
			}
			if got := evalJS[string](t, tab, `getComputedStyle(document.body, "::before").backgroundImage`); !strings.Contains(got, "/assets/sea.") {
				t.Errorf("%s: the page's background image is %s", name, got)
			}
			if got := evalJS[string](t, tab, `getComputedStyle(document.querySelector(".welcome")).backgroundColor`); got != "rgb(255, 255, 255)" {
				t.Errorf("%s: the card over the image is %s; want opaque white", name, got)
			}
			evalJS[bool](t, tab, `document.getElementById("next").click(), true`)
			waitPage(t, tab, "0")
			shot(t, tab, name+"-question")
		}
	}
}
