package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"surveyservice/internal/testenv"
)

// TestBrowserLook walks the every-type survey in English and in Persian on
// a desktop (1280x800) and a phone (390x844) screen and holds what a
// person sees (screenshots: look-<lang>-<screen>-*.png):
//   - the welcome page is a card whose heading gets the focus without a
//     ring for a mouse user; a key pressed, the focus is drawn;
//   - the ranking is a list in rank order, moved by its buttons and by the
//     arrow keys, each move announced in a live region;
//   - the 0-10 scale is one row, on a phone too;
//   - Persian pages write their numbers in Persian digits;
//   - the thanks is aligned as the title is;
//   - the report shows the NPS of the 0-10 scale, a count in each matrix
//     segment, its question headings no larger than its title, and on a
//     desktop its charts side by side rather than in a narrow column.
func TestBrowserLook(t *testing.T) {
	p := newPagesServer(t)
	surveys := map[string]builtSurvey{
		"en": p.build(t, surveySpec{Name: "English", Language: 4, Elements: everyTypeElements(false, p.srv.URL)}),
		"fa": p.build(t, surveySpec{Name: "فارسی ۱۴۰۵", Language: 1, Elements: everyTypeElements(true, p.srv.URL)}),
	}
	screens := []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}}
	for _, lang := range []string{"en", "fa"} {
		sv := surveys[lang]
		for _, sc := range screens {
			name := "look-" + lang + "-" + sc.name
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			seen(t, ctx, p.srv.URL+"/s/"+sv.URLSlug+"/", ".page.welcome", name+"-welcome")
			if got := evalJS[string](t, ctx, `(() => { const a = document.activeElement, s = getComputedStyle(a), w = getComputedStyle(document.querySelector(".welcome"));
				return a.tagName + " outline " + s.outlineStyle + ", card " + w.backgroundColor + " " + w.borderTopStyle; })()`); got != "H2 outline none, card rgb(255, 255, 255) solid" {
				t.Errorf("%s: welcome page on load: %s; want its heading focused without a ring, in a white card", name, got)
			}
			keys(t, ctx, kb.Tab)
			if got := evalJS[string](t, ctx, `document.activeElement.id + " " + getComputedStyle(document.activeElement).outlineStyle`); got != "next solid" {
				t.Errorf("%s: Tab from the heading: %s; want Next with a focus ring", name, got)
			}
			next := func() { evalJS[bool](t, ctx, `document.getElementById("next").click(), true`) }
			next()
			for i := range everyTypeSteps {
				waitPage(t, ctx, fmt.Sprint(i))
				switch i {
				case 4:
					checkRanking(t, ctx, name, lang)
					shot(t, ctx, name+"-ranking")
				case 5:
					// The 0-10 scale: one row of 11 options.
					const labelTops = `Array.from(document.querySelectorAll(".page:not([hidden]) .scale .row>label"))` +
						`.map(l => Math.round(l.getBoundingClientRect().top))`
					if tops := evalJS[[]float64](t, ctx, labelTops); len(tops) != 11 || tops[0] != tops[10] {
						t.Errorf("%s: the 0-10 scale's options stand at %v; want one row of 11", name, tops)
					}
					want := map[string]string{"en": "0 10", "fa": "۰ ۱۰"}[lang]
					if got := evalJS[string](t, ctx, `(() => { const l = document.querySelectorAll(".page:not([hidden]) .scale .row>label"); return l[0].textContent + " " + l[10].textContent; })()`); got != want {
						t.Errorf("%s: the scale's ends read %q, want %q", name, got, want)
					}
					shot(t, ctx, name+"-scale")
				}
				evalJS[bool](t, ctx, answerShown)
				if i < len(everyTypeSteps)-1 {
					next()
				}
			}
			click(t, ctx, "#submit") // by pointer: the thanks gets the focus without a ring
			visible(t, ctx, "#thanks")
			shot(t, ctx, name+"-thanks")
			if got := evalJS[string](t, ctx, `getComputedStyle(document.getElementById("thanks")).textAlign + " " + getComputedStyle(document.activeElement).outlineStyle`); got != "start none" {
				t.Errorf("%s: the thanks: %s; want aligned at the start as the title, focused without a ring after a click", name, got)
			}
		}
		testenv.Tally(t)
		for _, sc := range screens {
			name := "look-" + lang + "-" + sc.name
			ctx := tab(t, true, sc.width, sc.height, sc.mobile)
			seen(t, ctx, p.srv.URL+"/r/"+sv.ReportCode+"/", ".chart", name+"-report")
			// Two responses answered 0 on the 0-10 scale: two detractors.
			want := map[string]string{"en": "−100 detractors 100%", "fa": "−۱۰۰ منتقدان ۱۰۰٪"}[lang]
			const nps = `(() => { const n = document.querySelector(".nps"); ` +
				`return n ? n.querySelector("strong").textContent + " " + n.nextElementSibling.textContent.split(/[,،] /)[2] : "none"; })()`
			if got := evalJS[string](t, ctx, nps); got != want {
				t.Errorf("%s: the NPS reads %q, want %q", name, got, want)
			}
			const segments = `(() => { const g = Array.from(document.querySelectorAll("svg g.item")).filter(g => g.querySelector("rect.seg")); ` +
				`return g.map(g => g.querySelectorAll("rect.seg").length + "/" + g.querySelectorAll("text.sc").length).join(" "); })()`
			if got := evalJS[string](t, ctx, segments); got == "" || strings.Contains(got, "/0") {
				t.Errorf("%s: matrix segments/counts %q; want a count in each segment", name, got)
			}
			if lang == "fa" {
				if got := evalJS[string](t, ctx, `document.querySelector("#count strong").textContent`); got != "۲" {
					t.Errorf("%s: the count reads %q, want ۲", name, got)
				}
				if got := evalJS[string](t, ctx, `getComputedStyle(document.body).fontFamily.split(",")[0]`); got != "Vazirmatn" {
					t.Errorf("%s: the font stack starts with %s, want a Persian font", name, got)
				}
			}
			const headings = `(() => { const h1 = parseFloat(getComputedStyle(document.querySelector("h1")).fontSize), ` +
				`h2 = parseFloat(getComputedStyle(document.querySelector(".chart h2")).fontSize); return h2 <= h1 ? "ok" : h2 + ">" + h1; })()`
			if got := evalJS[string](t, ctx, headings); got != "ok" {
				t.Errorf("%s: a question heading is larger than the title: %s", name, got)
			}
			if sc.name == "desktop" {
				const sideBySide = `(() => { const c = Array.from(document.querySelectorAll(".chart")).map(c => c.getBoundingClientRect()); ` +
					`return Math.round(document.querySelector(".charts").getBoundingClientRect().width) + " " + (c[0].top === c[1].top); })()`
				if got := evalJS[string](t, ctx, sideBySide); got == "" || strings.HasSuffix(got, "false") {
					t.Errorf("%s: the charts' column is %s; want two charts side by side", name, got)
				}
			}
			evalJS[bool](t, ctx, `document.querySelector(".chart:last-child").scrollIntoView(), true`)
			shot(t, ctx, name+"-report-matrix")
			checkAxe(t, ctx, name+" report")
		}
	}
}

// seen opens url in the tab, waits for sel and saves a screenshot.
func seen(t *testing.T, ctx context.Context, url, sel, name string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, sel)
	shot(t, ctx, name)
}

// checkRanking moves the ranking shown (Price, Quality, Speed) by its
// buttons and by the arrow keys, and holds its order, the places the form
// sends and what the live region announces.
func checkRanking(t *testing.T, ctx context.Context, name, lang string) {
	t.Helper()
	state := func() string {
		return evalJS[string](t, ctx, `(() => { const q = document.querySelector(".page:not([hidden]) .rank");
			return Array.from(q.querySelectorAll(".rank-item"))
				.map(li => li.querySelector(".rank-name").textContent + "=" + li.querySelector("select").value).join(",") +
				" | " + q.querySelector(".rank-live").textContent; })()`)
	}
	words := map[string][3]string{"en": {"Price", "Quality", "Speed"}, "fa": {"قیمت", "کیفیت", "سرعت"}}[lang]
	if got := evalJS[string](t, ctx, `document.activeElement.className + " " + getComputedStyle(document.querySelector(".page:not([hidden]) .rank select")).display`); got != "up none" {
		t.Errorf("%s: the ranking page: %s; want the focus on the first Move up, the selects hidden", name, got)
	}
	click(t, ctx, ".page:not([hidden]) .rank-item:first-child .down")
	of := map[string]string{"en": ": 2 of 3", "fa": ": ۲ از ۳"}[lang]
	if got, want := state(), fmt.Sprintf("%s=1,%s=2,%s=3 | %s%s", words[1], words[0], words[2], words[0], of); got != want {
		t.Errorf("%s: after Move down: %q, want %q", name, got, want)
	}
	// The focus stays on the button pressed; ArrowUp moves its item back.
	keys(t, ctx, kb.ArrowUp)
	if got, want := state(), fmt.Sprintf("%s=1,%s=2,%s=3 | %s%s", words[0], words[1], words[2], words[0], map[string]string{"en": ": 1 of 3", "fa": ": ۱ از ۳"}[lang]); got != want {
		t.Errorf("%s: after ArrowUp: %q, want %q", name, got, want)
	}
}
