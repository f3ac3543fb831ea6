package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserTooManyPicks: more boxes checked than a question allows are
// refused in the page's language and digits, in the responder's words
// (contract section 16), with the script and without it (a plain form
// cannot stop a fourth box); before, the page showed the API's English
// "Ensure this field has no more than 2 elements." on a Persian page.
// The title is quoted isolated (FSI ... PDI): a title with an unbalanced
// U+202E RIGHT-TO-LEFT OVERRIDE showed the refusal after it reversed.
func TestBrowserTooManyPicks(t *testing.T) {
	p := newPagesServer(t)
	for _, c := range []struct {
		lang          int
		title, want   string
		scripts       bool
		width, height int64
		mobile        bool
		name          string
	}{
		{1, "رنگ‌ها", "\u2068رنگ‌ها\u2069: حداکثر ۲ گزینه را انتخاب کنید.", true, 390, 844, true, "picks-fa-phone"},
		{1, "رنگ‌ها", "\u2068رنگ‌ها\u2069: حداکثر ۲ گزینه را انتخاب کنید.", false, 1280, 800, false, "picks-fa-plain-desktop"},
		{4, "Colours", "\u2068Colours\u2069: Choose at most 2.", true, 1280, 800, false, "picks-en-desktop"},
		{4, "Colours", "\u2068Colours\u2069: Choose at most 2.", false, 390, 844, true, "picks-en-plain-phone"},
		{4, "\u202eColours", "\u2068\u202eColours\u2069: Choose at most 2.", true, 390, 844, true, "picks-override-phone"},
		{4, "\u202eColours", "\u2068\u202eColours\u2069: Choose at most 2.", false, 390, 844, true, "picks-override-plain-phone"},
		{1, "\u2067رنگ‌ها", "\u2068رنگ‌ها\u2069: حداکثر ۲ گزینه را انتخاب کنید.", true, 1280, 800, false, "picks-isolate-fa-desktop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sv := p.build(t, surveySpec{Name: c.name, Language: c.lang, Elements: []map[string]any{{"type": 3, "title": c.title,
				"allow_multiple_select": true, "max_selectable_choices": 2, "choices": []map[string]any{{"name": "A"}, {"name": "B"}, {"name": "C"}}}}})
			ctx := tab(t, c.scripts, c.width, c.height, c.mobile)
			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, `input[type="checkbox"]`)
			for i := range 3 {
				if err := chromedp.Run(ctx, chromedp.Click(fmt.Sprintf(`label:nth-of-type(%d) input[type="checkbox"]`, i+1), chromedp.ByQuery)); err != nil {
					t.Fatal(err)
				}
			}
			if err := chromedp.Run(ctx, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "#errors p")
			shot(t, ctx, c.name)
			if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); strings.TrimSpace(got) != c.want {
				t.Errorf("errors %q, want %q", got, c.want)
			}
			if rs := p.responses(t, sv.ID); len(rs) != 0 {
				t.Errorf("%d responses recorded", len(rs))
			}
		})
	}
}

// TestBrowserPlainFormLineBreaks: a text with line breaks sent by the
// plain form is the text the responder typed, as the script sends it:
// the browser sends each line break as CR LF, which counted two
// characters against max_length (a text the browser let the responder
// type in full was refused) and was stored with the CRs.
func TestBrowserPlainFormLineBreaks(t *testing.T) {
	p := newPagesServer(t)
	for _, scripts := range []bool{false, true} {
		t.Run(fmt.Sprint("scripts ", scripts), func(t *testing.T) {
			sv := p.build(t, surveySpec{Name: "lines", Language: 4, Elements: []map[string]any{{"type": 2, "title": "Lines", "max_length": 10}}})
			ctx := browser(t, scripts)
			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "textarea")
			if err := chromedp.Run(ctx, chromedp.Focus("textarea", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			keys(t, ctx, "ab", kb.Enter, "cd", kb.Enter, "ef", kb.Enter, "g")
			if got := evalJS[string](t, ctx, `document.querySelector("textarea").value`); got != "ab\ncd\nef\ng" {
				t.Fatalf("typed %q", got)
			}
			if err := chromedp.Run(ctx, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "#thanks, #message, #errors p")
			if errs := evalJS[string](t, ctx, `(document.getElementById("errors")||{}).textContent || ""`); errs != "" {
				t.Fatalf("refused: %q", errs)
			}
			rs := p.responses(t, sv.ID)
			if len(rs) != 1 {
				t.Fatalf("%d responses", len(rs))
			}
			for _, a := range rs[0].Answers {
				if a != "ab\ncd\nef\ng" {
					t.Errorf("stored %q, want the text typed", a)
				}
			}
		})
	}
}

// TestBrowserStaleForm: the owner removes a choice while a Persian page
// is open with it picked; the script's submission is refused in Persian,
// saying that the survey changed (before: the API's English "Invalid pk
// ..."), and nothing is recorded.
func TestBrowserStaleForm(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "stale", Language: 1, Elements: []map[string]any{{"type": 3, "title": "رنگ",
		"choices": []map[string]any{{"name": "سرخ"}, {"name": "سبز"}}}}})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/"),
		chromedp.Click(`label:nth-of-type(2) input[type="radio"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	keep := sv.Elements[0]["choices"].([]any)[0].(map[string]any)
	if err := p.api.call("PATCH", fmt.Sprintf("/api/v2/surveys/%d/questions/%v/", sv.ID, sv.Elements[0]["id"]),
		map[string]any{"choices": []map[string]any{{"id": keep["id"], "name": keep["name"]}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#errors p")
	shot(t, ctx, "stale-fa-phone")
	want := "\u2068رنگ\u2069: پرسش‌نامه هنگام پاسخ دادن شما تغییر کرد؛ پاسخ‌هایتان را بررسی کنید و دوباره بفرستید."
	if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); strings.TrimSpace(got) != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 800, 1, false)); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "stale-fa-desktop")
	if rs := p.responses(t, sv.ID); len(rs) != 0 {
		t.Errorf("%d responses recorded", len(rs))
	}
}

// TestBrowserPlainFormCaptcha: without JavaScript a captcha_needed
// survey's form is refused saying that answering needs JavaScript, in the
// page's language (before: "This field is required."), phone and desktop.
func TestBrowserPlainFormCaptcha(t *testing.T) {
	p := newPagesServer(t)
	for _, c := range []struct {
		lang   int
		want   string
		mobile bool
		name   string
	}{
		{1, "پاسخ به این پرسش‌نامه به جاوااسکریپت نیاز دارد. جاوااسکریپت مرورگر خود را روشن کنید.", true, "captcha-plain-fa-phone"},
		{4, "Answering this survey needs JavaScript. Turn JavaScript on in your browser.", false, "captcha-plain-en-desktop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sv := p.build(t, surveySpec{Name: c.name, Language: c.lang, Settings: map[string]any{"captcha_needed": true},
				Elements: []map[string]any{{"type": 2, "title": "Say something"}}})
			width, height := int64(1280), int64(800)
			if c.mobile {
				width, height = 390, 844
			}
			ctx := tab(t, false, width, height, c.mobile)
			if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/"), chromedp.Click("#submit", chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			visible(t, ctx, "#errors p")
			shot(t, ctx, c.name)
			if got := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); got != c.want {
				t.Errorf("errors %q, want %q", got, c.want)
			}
		})
	}
}
