package main

import (
	"fmt"
	"testing"
	"time"
)

// TestBrowserPagesFinished walks a Persian survey on a phone and a desktop
// and holds what issue 39's new user saw unfinished:
//   - "pick at least 2" is checked on Next, in Persian words and digits,
//     beside the question, whose card and controls turn red;
//   - a radio's or checkbox's circle stands level with its label's text;
//   - a 4-column matrix keeps its four columns on one line on a phone;
//   - a short text answer is a one-line box, an email field 16px or more
//     (an iPhone zooms into a smaller one);
//   - axe finds nothing on each state (heading order included).
func TestBrowserPagesFinished(t *testing.T) {
	p := newPagesServer(t)
	spec := surveySpec{Name: "پرسش‌نامهٔ پایانی", Language: 1, Elements: []map[string]any{
		{"type": 3, "title": "کدام رنگ‌ها؟", "choices": choices("قرمز", "سبز", "آبی"), "allow_multiple_select": true, "min_selectable_choices": 2},
		{"type": 12, "title": "هر بخش چطور بود؟", "rows": []map[string]any{{"name": "غذا"}, {"name": "خدمات"}},
			"columns": []map[string]any{{"name": "عالی"}, {"name": "خوب"}, {"name": "متوسط"}, {"name": "بد"}}},
		{"type": 2, "title": "نام شما", "max_length": 60},
	}}
	for _, sc := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
		name := "finished-fa-" + sc.name
		sv := p.build(t, spec) // a survey a screen: the page keeps its answers in the shared browser
		ctx := tab(t, true, sc.width, sc.height, sc.mobile)
		seen(t, ctx, p.srv.URL+"/s/"+sv.URLSlug+"/", ".page:not([hidden]) .q", name+"-choices")
		waitPage(t, ctx, "0")
		checkAxe(t, ctx, name+" choices")
		// Circles level with their labels' text (within a pixel).
		if off := evalJS[float64](t, ctx, `(() => { const i = document.querySelector(".page:not([hidden]) input[type=checkbox]"), l = i.closest("label");
			const r = document.createRange(); r.selectNodeContents(l); const rects = Array.from(r.getClientRects()).filter(x => x.width > 0 && x.left !== i.getBoundingClientRect().left);
			const text = rects[rects.length - 1], box = i.getBoundingClientRect();
			return Math.abs((box.top + box.bottom) / 2 - (text.top + text.bottom) / 2); })()`); off > 1.5 {
			t.Errorf("%s: a checkbox stands %.1fpx off its label's middle", name, off)
		}
		evalJS[bool](t, ctx, `document.querySelector(".page:not([hidden]) input[type=checkbox]").click(), true`)
		evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
		for i := 0; !evalJS[bool](t, ctx, `document.querySelector(".page:not([hidden]) .err") !== null`); i++ {
			if i == 600 {
				t.Fatalf("%s: Next with one pick of at least 2 showed no message", name)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := evalJS[string](t, ctx, `document.querySelector(".page:not([hidden]) .err").textContent`); got != "دست‌کم ۲ گزینه را انتخاب کنید." {
			t.Errorf("%s: one pick of at least 2 on Next: %q", name, got)
		}
		if got := evalJS[string](t, ctx, `getComputedStyle(document.querySelector(".page:not([hidden]) .q")).borderTopColor`); got != "rgb(198, 40, 40)" {
			t.Errorf("%s: the refused question's card border is %s, want red", name, got)
		}
		shot(t, ctx, name+"-at-least")
		checkAxe(t, ctx, name+" at least")
		evalJS[bool](t, ctx, `document.querySelectorAll(".page:not([hidden]) input[type=checkbox]")[1].click(), true`)
		evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
		waitPage(t, ctx, "1")
		const labelTops = `Array.from(document.querySelectorAll(".page:not([hidden]) .mrow:first-of-type label"))` +
			`.map(l => Math.round(l.getBoundingClientRect().top))`
		if tops := evalJS[[]float64](t, ctx, labelTops); len(tops) != 4 || tops[0] != tops[3] {
			t.Errorf("%s: the matrix's 4 columns stand at %v, want one line", name, tops)
		}
		shot(t, ctx, name+"-matrix")
		checkAxe(t, ctx, name+" matrix")
		evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
		waitPage(t, ctx, "2")
		if rows := evalJS[string](t, ctx, `document.querySelector(".page:not([hidden]) textarea").getAttribute("rows")`); rows != "1" {
			t.Errorf("%s: a 60-character answer's box has %s rows, want 1", name, rows)
		}
		if size := evalJS[float64](t, ctx, `(() => { const i = document.createElement("input"); i.type = "email"; document.querySelector("form").appendChild(i);
			const s = parseFloat(getComputedStyle(i).fontSize); i.remove(); return s; })()`); size < 16 {
			t.Errorf("%s: an email field's text is %vpx; under 16px an iPhone zooms in", name, size)
		}
		shot(t, ctx, name+"-text")
		checkAxe(t, ctx, fmt.Sprint(name, " text"))
	}
}
