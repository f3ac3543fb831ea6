package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTooManyPicks: more boxes checked than a question allows are
// refused in the page's language and digits, in the responder's words
// (contract section 16), with the script and without it (a plain form
// cannot stop a fourth box); before, the page showed the API's English
// "Ensure this field has no more than 2 elements." on a Persian page.
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
		{1, "رنگ‌ها", "رنگ‌ها: حداکثر ۲ گزینه را انتخاب کنید.", true, 390, 844, true, "picks-fa-phone"},
		{1, "رنگ‌ها", "رنگ‌ها: حداکثر ۲ گزینه را انتخاب کنید.", false, 1280, 800, false, "picks-fa-plain-desktop"},
		{4, "Colours", "Colours: Choose at most 2.", true, 1280, 800, false, "picks-en-desktop"},
		{4, "Colours", "Colours: Choose at most 2.", false, 390, 844, true, "picks-en-plain-phone"},
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
