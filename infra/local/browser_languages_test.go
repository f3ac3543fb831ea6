package main

import (
	"encoding/csv"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"surveyservice/internal/testenv"
)

// TestBrowserLanguages (contract section 24): one survey answered in
// Persian that switches to English mid-way by the switcher's link keeps
// the answers so far (section 20's stored answers) and is stored once;
// axe finds nothing on the page in either language; screenshots of both
// on a phone and a desktop (languages-<lang>-<screen>.png). The same
// answers given again in English: the owner's CSV shows both responses,
// each with its language, and the same cells in every answer column,
// read in English or in Persian (?lang=); the report reads in either
// (languages-report-<lang>-<screen>.png), axe finding nothing.
func TestBrowserLanguages(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Languages", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	var langs map[string]any
	if err := p.api.call("PUT", fmt.Sprintf("/api/surveys/%d/languages/", sv.ID), map[string]any{"languages": []string{"fa"}}, &langs); err != nil {
		t.Fatal(err)
	}
	// Every title, and every choice, row and column, in Persian: the CSV
	// in fa then reads every label in Persian, the same in both rows.
	els := map[string]any{}
	for _, e := range sv.Elements {
		entry := map[string]any{"title": "پرسش " + fmt.Sprint(e["id"])}
		for _, kind := range []string{"choices", "rows", "columns"} {
			items, _ := e[kind].([]any)
			names := map[string]any{}
			for j, it := range items {
				names[fmt.Sprint(int64(it.(map[string]any)["id"].(float64)))] = fmt.Sprintf("گزینه %d", j+1)
			}
			if len(names) > 0 {
				entry[kind] = names
			}
		}
		els[fmt.Sprint(e["id"])] = entry
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

	// The same answers given in English from the start.
	ctx = browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/?lang=en")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	tabTo(t, ctx, "next")
	for i, s := range everyTypeSteps {
		waitPage(t, ctx, fmt.Sprint(i))
		keys(t, ctx, s...)
		if i < len(everyTypeSteps)-1 {
			tabTo(t, ctx, "next")
		}
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs = p.responses(t, sv.ID)
	if len(rs) != 2 {
		t.Fatalf("%d responses stored, want 2", len(rs))
	}
	checkEveryType(t, sv, rs[0].Answers)

	// The owner's CSV, in the default (en) and in fa: both responses, the
	// language each was given in (the first's session started in fa), and
	// the same cells in every answer column: answers are choice ids, so
	// the labels follow ?lang=, never the responder's language.
	for _, lang := range []string{"", "en", "fa"} {
		rows := p.csv(t, sv.ID, lang)
		if len(rows) != 3 {
			t.Fatalf("CSV ?lang=%s: %d rows, want the header and 2", lang, len(rows))
		}
		col := slices.Index(rows[0], "language")
		if col < 0 || !slices.Equal(rows[0][:col+1], []string{"id", "submitted_at", "duration_seconds", "spam", "language"}) {
			t.Fatalf("CSV ?lang=%s header %q", lang, rows[0])
		}
		if got := []string{rows[1][col], rows[2][col]}; !slices.Equal(got, []string{"en", "fa"}) { // newest first
			t.Errorf("CSV ?lang=%s: languages %q, want en then fa", lang, got)
		}
		if !slices.Equal(rows[1][col+1:], rows[2][col+1:]) {
			t.Errorf("CSV ?lang=%s: the answer cells differ between the languages:\n %q\n %q", lang, rows[1][col+1:], rows[2][col+1:])
		}
		second := fmt.Sprint(int64(sv.Elements[2]["id"].(float64)))
		title, cell := rows[0][col+2], rows[1][col+2] // the single choice: its second choice
		switch {
		case lang == "fa" && (title != "پرسش "+second || cell != "گزینه 2"):
			t.Errorf("CSV in fa: the single choice %q, answered %q", title, cell)
		case lang != "fa" && (strings.Contains(title, "پرسش") || strings.Contains(cell, "گزینه") || cell == ""):
			t.Errorf("CSV in en: the single choice %q, answered %q", title, cell)
		}
	}

	// The report in either language: the two responses counted once per
	// choice id, the labels in the language read.
	testenv.Tally(t)
	for _, sc := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		for _, lang := range []string{"fa", "en"} {
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			seen(t, ctx, p.srv.URL+"/r/"+sv.ReportCode+"/?lang="+lang, ".chart", "languages-report-"+lang+"-"+sc.name)
			got := evalJS[string](t, ctx, `document.documentElement.lang + " " + document.querySelector(".chart h2").textContent + " " +
				Array.from(document.querySelectorAll(".chart")[0].querySelectorAll("text.value")).map(x => x.textContent).join(",")`)
			want := "en Which fruit do you like? 0,2,0"
			if lang == "fa" {
				want = "fa پرسش " + fmt.Sprint(int64(sv.Elements[2]["id"].(float64))) + " ۰,۲,۰"
			}
			if got != want {
				t.Errorf("the report in %s (%s): %q, want %q", lang, sc.name, got, want)
			}
			if sc.name == "desktop" {
				checkAxe(t, ctx, "languages report "+lang)
			}
		}
	}
}

// csv is the survey's responses as the owner's CSV, in lang ("" for the
// survey's own).
func (p pagesServer) csv(t *testing.T, sid int64, lang string) [][]string {
	t.Helper()
	target := fmt.Sprintf("/api/surveys/%d/responses/?format=csv", sid)
	if lang != "" {
		target += "&lang=" + lang
	}
	req := httptest.NewRequest("GET", target, nil)
	req.Header.Set("Authorization", "Api-Key "+p.api.key)
	rec := httptest.NewRecorder()
	p.api.h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("CSV ?lang=%s: %d %s", lang, rec.Code, rec.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(rec.Body.String(), "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
