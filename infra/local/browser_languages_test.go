package main

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLanguages (contract section 24): one survey answered in
// Persian that switches to English mid-way by the switcher's link keeps
// the answers so far (section 20's stored answers) and is stored once;
// axe finds nothing on the page in either language; screenshots of both
// on a phone and a desktop (languages-<lang>-<screen>.png).
func TestBrowserLanguages(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Languages", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	var langs map[string]any
	if err := p.api.call("PUT", fmt.Sprintf("/api/surveys/%d/languages/", sv.ID), map[string]any{"languages": []string{"fa"}}, &langs); err != nil {
		t.Fatal(err)
	}
	els := map[string]any{}
	for _, e := range sv.Elements {
		els[fmt.Sprint(e["id"])] = map[string]any{"title": "پرسش " + fmt.Sprint(e["id"])}
	}
	var tr map[string]any
	if err := p.api.call("PUT", fmt.Sprintf("/api/surveys/%d/translations/fa/", sv.ID), map[string]any{"survey": map[string]any{"name": "زبان‌ها"}, "elements": els}, &tr); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		for _, lang := range []string{"fa", "en"} {
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			seen(t, ctx, p.srv.URL+"/s/"+sv.URLSlug+"/?lang="+lang, ".page.welcome", "languages-"+lang+"-"+sc.name)
			if got := evalJS[string](t, ctx, `document.documentElement.lang + " " + document.documentElement.dir`); got != lang+" "+map[string]string{"fa": "rtl", "en": "ltr"}[lang] {
				t.Errorf("%s %s: the page is %q", lang, sc.name, got)
			}
			if sc.name == "desktop" {
				checkAxe(t, ctx, "languages "+lang)
			}
		}
	}

	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/?lang=fa")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	tabTo(t, ctx, "next")
	for i, s := range everyTypeSteps[:5] {
		waitPage(t, ctx, fmt.Sprint(i))
		keys(t, ctx, s...)
		tabTo(t, ctx, "next")
	}
	waitPage(t, ctx, "5")
	session := evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`)
	// The switcher: a plain link to the page in English.
	if err := chromedp.Run(ctx, chromedp.Click(`nav.langs a[hreflang="en"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, `html[lang="en"] nav.langs`)
	waitJS(t, ctx, `document.documentElement.classList.contains("ready")`, "the English page's script")
	waitPage(t, ctx, "5")
	if got := evalJS[string](t, ctx, `document.getElementById("survey").elements.session.value`); got != session {
		t.Errorf("session after the switch %q, want the one started %q", got, session)
	}
	if got := evalJS[string](t, ctx, `document.querySelector("textarea").value`); got != "Ada" {
		t.Errorf("the text answer after the switch: %q", got)
	}
	shot(t, ctx, "languages-switched-en")
	checkAxe(t, ctx, "languages switched")
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
}
