package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"surveyservice/internal/testenv"
)

// Page fixes, each as a responder meets it in Chromium;
// TestBrowserAxe runs axe-core over every page state besides.

// TestBrowserRequiredFocusAndHideNext, on a phone, by keyboard, with
// hide_next_button: nothing moves when the script starts (no layout
// shift); a required text question keeps its Next button, is announced
// required, and is checked on Next with the message beside it and the
// focus on it; a scale's end labels sit on a row of their own under its
// wrapped values, matrix pills do not touch; a last page holding only a
// statement gets the focus on its heading.
func TestBrowserRequiredFocusAndHideNext(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "required", Language: 4, Settings: map[string]any{"hide_next_button": true},
		Elements: []map[string]any{
			{"type": 2, "title": "Your name", "answer_required": true},
			{"type": 7, "title": "Rate us"},
			{"type": 6, "title": "Recommend us?", "scale_min": 0, "scale_max": 10, "left_label": "Not at all likely", "right_label": "Extremely likely"},
			{"type": 12, "title": "Each part", "rows": []map[string]any{{"name": "Food"}}, "columns": []map[string]any{{"name": "Good"}, {"name": "Fair"}, {"name": "Bad"}}},
			{"type": 13, "title": "That is all", "description": "Press Submit."},
		}})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "0")
	time.Sleep(300 * time.Millisecond)
	shift := evalJS[float64](t, ctx,
		`new Promise(r => new PerformanceObserver((l, o) => { o.disconnect(); r(l.getEntries().reduce((s, e) => s + e.value, 0)); })`+
			`.observe({type: "layout-shift", buffered: true})) && performance.getEntriesByType("layout-shift").reduce((s, e) => s + e.value, 0)`)
	if shift > 0 {
		t.Errorf("the page shifted by %v when its script ran (cumulative layout shift)", shift)
	}

	// The required text question: announced, its Next shown, checked.
	if got := evalJS[string](t, ctx,
		`(() => { const a = document.querySelector("textarea"); return a.required + "/" + document.querySelector("label[for=" + a.id + "]").textContent; })()`); got != "true/Your name * (required)" {
		t.Errorf("the required question (control required / label) = %q", got)
	}
	if hidden := evalJS[bool](t, ctx, `document.getElementById("next").hidden`); hidden {
		t.Fatalf("hide_next_button hides Next on a text question: no way on")
	}
	tabTo(t, ctx, "next")
	time.Sleep(200 * time.Millisecond)
	if got := activePage(t, ctx); got != "0" {
		t.Fatalf("Next left the required question empty: page %q", got)
	}
	if got := evalJS[string](t, ctx, `(() => { const a = document.activeElement; const e = document.getElementById(a.getAttribute("aria-describedby") || "none");
		return a.tagName + "/" + a.getAttribute("aria-invalid") + "/" + (e ? e.textContent : "") + "/" + `+
		`(e ? e.closest(".q").dataset.id === a.closest(".q").dataset.id : false); })()`); got != "TEXTAREA/true/This question requires an answer./true" {
		t.Errorf("after Next on the empty question: %q, want the focus on it, the message beside it", got)
	}
	shot(t, ctx, "required-refused")
	keys(t, ctx, "Ada", kb.Tab)
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	if got := evalJS[string](t, ctx, `String(document.getElementById("next").hidden) + "/" + document.querySelectorAll(".err").length`); got != "true/0" {
		t.Errorf("rating page: next hidden / messages = %s, want true/0 (a pick moves on)", got)
	}
	keys(t, ctx, " ", kb.ArrowRight, kb.Enter)
	waitPage(t, ctx, "2")
	// A 0-10 scale wraps on a phone; its end labels are under it, at its
	// two ends.
	if got := evalJS[string](t, ctx, `(() => { const q = document.querySelector('.page[data-page="2"] .q');
		const pills = Array.from(q.querySelectorAll(".row>label")).map(x => x.getBoundingClientRect());
		const ends = Array.from(q.querySelectorAll(".ends .lbl")).map(x => x.getBoundingClientRect());
		const row = q.querySelector(".row").getBoundingClientRect();
		const low = Math.max(...pills.map(r => r.bottom));
		return [ends.length, ends.every(e => e.top >= low), Math.abs(ends[0].left - row.left) < 2, Math.abs(ends[1].right - row.right) < 2].join("/"); })()`); got != "2/true/true/true" {
		t.Errorf("scale end labels (count/below the values/left end/right end) = %s", got)
	}
	shot(t, ctx, "scale-phone")
	keys(t, ctx, " ", kb.Enter)
	waitPage(t, ctx, "3")
	if got := evalJS[string](t, ctx, `(() => { const ps = Array.from(document.querySelectorAll('.page[data-page="3"] .row>label')).map(x => x.getBoundingClientRect());
		let min = 1e9; for (let i = 1; i < ps.length; i++) if (Math.abs(ps[i].top - ps[i-1].top) < 2) min = Math.min(min, ps[i].left - ps[i-1].right);
		return String(!document.getElementById("next").hidden) + "/" + (min >= 4); })()`); got != "true/true" {
		t.Errorf("matrix page: next shown / pills apart = %s, want true/true", got)
	}
	keys(t, ctx, " ")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "4")
	if got := evalJS[string](t, ctx, `document.activeElement.tagName + ":" + document.activeElement.textContent`); got != "H2:That is all" {
		t.Errorf("focus on the statement-only last page: %q, want its heading", got)
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	if rs := p.responses(t, sv.ID); len(rs) != 1 || len(rs[0].Answers) != 4 {
		t.Errorf("responses %+v, want one with four answers", rs)
	}
}

// TestBrowserPersianReportAndMessages: a Persian survey's refusal is in
// Persian, and its report's charts are laid out right to
// left inside their box, with text of 12 px or more on a phone
// (findings 3 and 11).
func TestBrowserPersianReportAndMessages(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "گزارش", Language: 1, Elements: everyTypeElements(true, p.srv.URL), Settings: map[string]any{"code_auth": true}})
	if err := p.api.call("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), map[string]any{"codes": []string{"KEY-7"}}, nil); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "code")
	keys(t, ctx, "WRONG", kb.Enter)
	visible(t, ctx, "#errors p")
	if msg := evalJS[string](t, ctx, `document.getElementById("errors").textContent`); msg != "کد شما پذیرفته نشد." {
		t.Errorf("a wrong code on a Persian page: %q", msg)
	}
	shot(t, ctx, "fa-code-wrong")
	keys(t, ctx, kb.Tab, kb.Backspace, kb.Backspace, kb.Backspace, kb.Backspace, kb.Backspace)
	keys(t, ctx, "KEY-7", kb.Enter)
	waitPage(t, ctx, "0")
	for i := range everyTypeSteps {
		waitPage(t, ctx, fmt.Sprint(i))
		evalJS[bool](t, ctx, answerShown)
		if i < len(everyTypeSteps)-1 {
			evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
		}
	}
	evalJS[bool](t, ctx, `document.getElementById("submit").click(), true`)
	visible(t, ctx, "#thanks")
	testenv.Tally(t) // drawn with the response's counts: the matrix's row a segment

	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/r/"+sv.ReportCode+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".chart")
	shot(t, ctx, "fa-report")
	problems := evalJS[[]string](t, ctx, `(() => { const out = [];
		document.querySelectorAll(".chart svg").forEach((svg, n) => {
			const box = svg.getBoundingClientRect();
			const scale = box.width / svg.viewBox.baseVal.width;
			if (12 * scale < 11.9) out.push("chart " + n + ": text drawn at " + (12 * scale).toFixed(1) + "px");
			// A bar is its rects: one, or a matrix row's stacked segments.
			const bar = g => { const rs = Array.from(g.querySelectorAll("rect:not(.track)")).map(r => r.getBoundingClientRect());
				return rs.length ? {left: Math.min(...rs.map(r => r.left)), right: Math.max(...rs.map(r => r.right))} : null; };
			const first = Array.from(svg.querySelectorAll("g.item")).map(bar).find(b => b);
			svg.querySelectorAll("g.item").forEach((g, i) => {
				const l = g.querySelector(".label").getBoundingClientRect(), b = bar(g), v = g.querySelector(".value").getBoundingClientRect();
				const at = "chart " + n + " row " + i + ": ";
				if (l.left < box.left - 0.5 || l.right > box.right + 0.5) out.push(at + "label outside the chart");
				if (v.left < box.left - 0.5) out.push(at + "count outside the chart");
				if (!b) return; // a matrix row nobody answered
				if (l.left < b.right - 0.5) out.push(at + "label not right of its bar");
				if (v.right > b.left + 0.5) out.push(at + "count runs into its bar");
				if (Math.abs(b.right - first.right) > 0.5) out.push(at + "bars do not start at the right");
			});
			svg.querySelectorAll("g.legend").forEach((g, i) => {
				const l = g.querySelector("text").getBoundingClientRect(), s = g.querySelector("rect").getBoundingClientRect();
				const at = "chart " + n + " legend " + i + ": ";
				if (l.left < box.left - 0.5 || l.right > box.right + 0.5) out.push(at + "name outside the chart");
				if (l.right > s.left + 0.5) out.push(at + "name not left of its swatch");
			});
		});
		return out; })()`)
	for _, pr := range problems {
		t.Error(pr)
	}
	if n := evalJS[float64](t, ctx, `document.querySelectorAll(".chart svg").length`); n < 8 {
		t.Errorf("%v charts", n)
	}
}
