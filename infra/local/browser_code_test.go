package main

import (
	"strings"
	"testing"
)

// TestBrowserCodePage: the page asking for the access code shows the
// owner's auth_description above the field (contract section 18; issue 38
// item 12), its two lines as written, in the survey's direction, on a
// phone and a desktop, en and fa; axe finds nothing (screenshots:
// code-<lang>-<screen>.png).
func TestBrowserCodePage(t *testing.T) {
	p := newPagesServer(t)
	cases := []struct {
		lang       string
		id         int
		desc, dir  string
		welcome, q string
	}{
		{"en", 4, "Your code is on the letter we posted to you.\nAsk the front desk if it is lost.", "ltr", "Welcome", "Say something"},
		{"fa", 1, "کد شما در نامه‌ای است که برایتان فرستادیم.\nاگر گم شده، از پذیرش بپرسید.", "rtl", "خوش آمدید", "چیزی بگویید"},
	}
	screens := []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}}
	for _, c := range cases {
		sv := p.build(t, surveySpec{Name: "Code " + c.lang, Language: c.id, Settings: map[string]any{"code_auth": true, "auth_description": c.desc},
			Elements: []map[string]any{{"type": 1, "title": c.welcome}, {"type": 2, "title": c.q}}})
		for _, sc := range screens {
			name := "code-" + c.lang + "-" + sc.name
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			open(t, ctx, p, sv.URLSlug)
			visible(t, ctx, ".page.welcome")
			evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
			waitPage(t, ctx, "code")
			const read = `(() => { const d = document.querySelector(".page:not([hidden]) .auth-description"), l = document.querySelector("label[for=code]");
				if (!d) return "none"; const s = getComputedStyle(d);
				return [d.innerText, s.direction, s.whiteSpace, d.getBoundingClientRect().bottom <= l.getBoundingClientRect().top].join("|"); })()`
			want := strings.Join([]string{c.desc, c.dir, "pre-line", "true"}, "|")
			if got := evalJS[string](t, ctx, read); got != want {
				t.Errorf("%s: the description reads %q, want %q (text, direction, white-space, above the field)", name, got, want)
			}
			shot(t, ctx, name)
			checkAxe(t, ctx, name)
		}
	}
}
