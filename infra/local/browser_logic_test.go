package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The end-to-end tests of contract section 15 on the hosted page: display
// rules, quizzes and per-question timers, by keyboard in Chromium.

// idOf and itemID read ids out of built elements.
func idOf(el map[string]any) int64 { return int64(el["id"].(float64)) }

func itemID(el map[string]any, kind string, i int) int64 {
	return int64(el[kind].([]any)[i].(map[string]any)["id"].(float64))
}

// patchElement changes an element of the survey through the owner's API.
func (p pagesServer) patchElement(t *testing.T, sid, eid int64, body map[string]any) {
	t.Helper()
	if err := p.api.call("PATCH", fmt.Sprintf("/api/v2/surveys/%d/questions/%d/", sid, eid), body, nil); err != nil {
		t.Fatalf("PATCH element %d: %v", eid, err)
	}
}

func rule(first int64, op int, second map[string]any, logical int) map[string]any {
	r := map[string]any{"first_operand": first, "arithmetic_operator": op, "second_operand": second}
	if logical != 0 {
		r["logical_operator"] = logical
	}
	return r
}

// logicSurvey is a chain of rules over a choice, a scale, a text and a
// matrix question, one a page:
//
//	0 coffee? (Yes, No)
//	1 how much (0-10)        shown when 0 = Yes
//	2 why (text)             shown when 1 >= 8
//	3 when (matrix Morning: Tea, Coffee)  shown when 2 contains "love" or 0 = No
//	4 statement              shown when 3 Morning = Coffee
//	5 anything else (text)   always
func logicSurvey(t *testing.T, p pagesServer) builtSurvey {
	t.Helper()
	sv := p.build(t, surveySpec{Name: "Coffee", Language: 4, Elements: []map[string]any{
		{"title": "Do you drink coffee?", "type": 3, "choices": []map[string]any{{"name": "Yes"}, {"name": "No"}}},
		{"title": "How much do you like it?", "type": 6},
		{"title": "Why so much?", "type": 2},
		{"title": "When do you drink what?", "type": 12, "rows": []map[string]any{{"name": "Morning"}}, "columns": []map[string]any{{"name": "Tea"}, {"name": "Coffee"}}},
		{"title": "A true coffee lover!", "type": 13},
		{"title": "Anything else?", "type": 2},
	}})
	el := sv.Elements
	yes, no := itemID(el[0], "choices", 0), itemID(el[0], "choices", 1)
	morning, coffee := itemID(el[3], "rows", 0), itemID(el[3], "columns", 1)
	p.patchElement(t, sv.ID, idOf(el[1]), map[string]any{"conditions": []any{rule(idOf(el[0]), 1, map[string]any{"type": 1, "id": yes}, 0)}})
	p.patchElement(t, sv.ID, idOf(el[2]), map[string]any{"conditions": []any{rule(idOf(el[1]), 6, map[string]any{"type": 2, "value": "8"}, 0)}})
	p.patchElement(t, sv.ID, idOf(el[3]), map[string]any{"conditions": []any{
		rule(idOf(el[2]), 7, map[string]any{"type": 3, "value": "LOVE"}, 0),
		rule(idOf(el[0]), 1, map[string]any{"type": 1, "id": no}, 2),
	}})
	p.patchElement(t, sv.ID, idOf(el[4]), map[string]any{"conditions": []any{rule(idOf(el[3]), 1, map[string]any{"type": 1, "id": morning, "value": fmt.Sprint(coffee)}, 0)}})
	return sv
}

// progressAt is the progress bar as "value/max".
func progressAt(t *testing.T, ctx context.Context) string {
	return evalJS[string](t, ctx, `(function(){var p=document.getElementById("progress");return p.value+"/"+p.max})()`)
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestBrowserLogicTwoPaths(t *testing.T) {
	p := newPagesServer(t)
	sv := logicSurvey(t, p)
	el := sv.Elements
	id := func(i int) string { return fmt.Sprint(idOf(el[i])) }
	ctx := browser(t, true)
	open := func() {
		if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
			t.Fatal(err)
		}
		waitPage(t, ctx, "0")
	}

	// Path A: Yes, 9, "I love it", Morning = Coffee: every page shown.
	open()
	if got := progressAt(t, ctx); got != "1/2" {
		t.Errorf("path A start: progress %s, want 1/2 (nothing chosen: only the first and the last page)", got)
	}
	keys(t, ctx, " ") // Yes
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	keys(t, ctx, " ", kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown) // 9
	if got := progressAt(t, ctx); got != "2/4" {
		t.Errorf("path A at how much: progress %s, want 2/4 (why shown for 9, the matrix not yet)", got)
	}
	shot(t, ctx, "logic-a-scale")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "2")
	keys(t, ctx, "I love it")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "3")
	keys(t, ctx, kb.ArrowRight, " ") // focus on Tea: the next is Coffee
	if c := evalJS[bool](t, ctx, `!!document.querySelector('.mrow input:checked') && document.querySelector('.mrow input:checked').parentNode.textContent === "Coffee"`); !c {
		keys(t, ctx, kb.ArrowDown)
	}
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "4")
	if got := progressAt(t, ctx); got != "5/6" {
		t.Errorf("path A at the statement: progress %s, want 5/6", got)
	}
	shot(t, ctx, "logic-a-statement")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "5")
	keys(t, ctx, "no")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")

	// Path B: Yes and 9 first, then back to No: the scale is hidden and
	// cleared, why and the statement are skipped, the matrix is shown.
	open()
	keys(t, ctx, " ")
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	keys(t, ctx, " ", kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown)
	tabTo(t, ctx, "prev")
	waitPage(t, ctx, "0")
	if err := chromedp.Run(ctx, chromedp.Focus(`input[name="a`+id(0)+`"]:checked`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	keys(t, ctx, kb.ArrowDown) // No
	if c := evalJS[int](t, ctx, `document.querySelectorAll('.q[data-id="`+id(1)+`"] input:checked').length`); c != 0 {
		t.Errorf("the hidden scale keeps %d checked inputs", c)
	}
	if got := progressAt(t, ctx); got != "1/3" {
		t.Errorf("path B: progress %s, want 1/3", got)
	}
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "3")
	if got := progressAt(t, ctx); got != "2/3" {
		t.Errorf("path B at the matrix: progress %s, want 2/3", got)
	}
	shot(t, ctx, "logic-b-matrix")
	keys(t, ctx, " ") // Tea
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "5")
	keys(t, ctx, "tea person")
	tabTo(t, ctx, "prev")
	waitPage(t, ctx, "3") // back skips the statement too
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "5")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")

	rs := p.responses(t, sv.ID)
	if len(rs) != 2 {
		t.Fatalf("%d responses, want 2", len(rs))
	}
	yes, no := itemID(el[0], "choices", 0), itemID(el[0], "choices", 1)
	morning, tea, coffee := itemID(el[3], "rows", 0), itemID(el[3], "columns", 0), itemID(el[3], "columns", 1)
	wantA := map[string]any{id(0): []any{float64(yes)}, id(1): 9.0, id(2): "I love it", id(3): map[string]any{fmt.Sprint(morning): float64(coffee)}, id(5): "no"}
	wantB := map[string]any{id(0): []any{float64(no)}, id(3): map[string]any{fmt.Sprint(morning): float64(tea)}, id(5): "tea person"}
	// Newest first.
	if got, want := jsonOf(rs[1].Answers), jsonOf(wantA); got != want {
		t.Errorf("path A stored\n %s\nwant\n %s", got, want)
	}
	if got, want := jsonOf(rs[0].Answers), jsonOf(wantB); got != want {
		t.Errorf("path B stored\n %s\nwant\n %s", got, want)
	}
}

// TestBrowserQuizSheet: a quiz that shows the sheet without the key until
// the survey stops.
func TestBrowserQuizSheet(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Quiz", Language: 4, Elements: []map[string]any{
		{"title": "2 + 2?", "type": 3, "choices": []map[string]any{{"name": "3"}, {"name": "4"}}},
		{"title": "Capital of Iran?", "type": 10, "choices": []map[string]any{{"name": "Tehran"}, {"name": "Shiraz"}}},
	}, Settings: map[string]any{
		"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true,
		"show_answer_key_after_response_submit": false, "show_answer_key_after_survey_stop": true,
	}})
	el := sv.Elements
	p.patchElement(t, sv.ID, idOf(el[0]), map[string]any{"correct_choice": itemID(el[0], "choices", 1)})
	p.patchElement(t, sv.ID, idOf(el[1]), map[string]any{"correct_choice": itemID(el[1], "choices", 0)})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "0")
	keys(t, ctx, " ", kb.ArrowDown) // 4: right
	tabTo(t, ctx, "next")
	waitPage(t, ctx, "1")
	keys(t, ctx, kb.ArrowDown, kb.ArrowDown) // Shiraz: wrong
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#sheet-link")
	tabTo(t, ctx, "sheet-link")
	visible(t, ctx, "#sheet")
	shot(t, ctx, "quiz-sheet-no-key")
	if s := evalJS[string](t, ctx, `document.querySelector("#score strong").textContent`); s != "1/2" {
		t.Errorf("score %q, want 1/2", s)
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll(".sheet .key").length`); n != 0 {
		t.Errorf("the key shows before the survey stops (%d)", n)
	}
	if err := p.api.call("PATCH", fmt.Sprintf("/api/surveys/%d/settings/", sv.ID), map[string]any{"survey": map[string]any{"is_stopped": true}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "#sheet")
	shot(t, ctx, "quiz-sheet-key")
	keysShown := evalJS[[]string](t, ctx, `Array.from(document.querySelectorAll(".sheet .key")).map(k => k.textContent)`)
	if jsonOf(keysShown) != jsonOf([]string{"Correct answer: 4 (right)", "Correct answer: Tehran (wrong)"}) {
		t.Errorf("keys shown %q", keysShown)
	}
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 {
		t.Fatalf("%d responses", len(rs))
	}
}

// TestBrowserPerQuestionTimer: with responding_duration_type 2 the page
// moves on when a question's own time ends.
func TestBrowserPerQuestionTimer(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Quick", Language: 4, Elements: []map[string]any{
		{"title": "First thought?", "type": 2},
		{"title": "Second thought?", "type": 2},
	}, Settings: map[string]any{"responding_duration_type": 2}})
	p.patchElement(t, sv.ID, idOf(sv.Elements[0]), map[string]any{"responding_duration": "00:00:02"})
	p.patchElement(t, sv.ID, idOf(sv.Elements[1]), map[string]any{"responding_duration": "00:01:00"})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "0")
	visible(t, ctx, "#timer")
	shot(t, ctx, "timer-first")
	keys(t, ctx, "sky")
	start := time.Now()
	waitPage(t, ctx, "1") // within 5 s: nobody pressed Next
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("moved on after %v, want about 2 s", d)
	}
	if lbl := evalJS[string](t, ctx, `document.getElementById("timer").textContent`); lbl == "" {
		t.Error("the second question has no countdown")
	}
	keys(t, ctx, "sea")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 || rs[0].Answers[fmt.Sprint(idOf(sv.Elements[0]))] != "sky" || rs[0].Answers[fmt.Sprint(idOf(sv.Elements[1]))] != "sea" {
		t.Errorf("stored %v", rs)
	}
}

// TestBrowserLogicWithoutScript: the chain of rules of
// TestBrowserLogicTwoPaths answered along the same two paths with the
// page's script off: the plain form goes page by page on the server,
// each page shows only what the rules show, with the progress over the
// pages shown, and the stored answers are the script's.
func TestBrowserLogicWithoutScript(t *testing.T) {
	p := newPagesServer(t)
	sv := logicSurvey(t, p)
	el := sv.Elements
	id := func(i int) string { return fmt.Sprint(idOf(el[i])) }
	ctx := browser(t, false)
	// waitStep waits for page n of the steps (a new page from the server).
	waitStep := func(n int) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.WaitVisible(fmt.Sprintf(`.page.qp[data-page="%d"]`, n), chromedp.ByQuery)); err != nil {
			t.Fatalf("page %d never came: %v", n, err)
		}
	}
	shown := func() string {
		return evalJS[string](t, ctx, `Array.from(document.querySelectorAll(".q[data-id]")).filter(e => e.offsetParent !== null).map(e => e.dataset.id).join(",")`)
	}
	focus := func(sel string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Focus(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("focus %s: %v", sel, err)
		}
	}
	expect := func(what, want, progress string) {
		t.Helper()
		if got := shown(); got != want {
			t.Errorf("%s: questions shown %q, want %q", what, got, want)
		}
		if progress != "" {
			if got := progressAt(t, ctx); got != progress {
				t.Errorf("%s: progress %s, want %s", what, got, progress)
			}
		}
		if n := evalJS[int](t, ctx, `document.scripts.length`); what != "start" && n != 0 {
			t.Errorf("%s: a step page has %d scripts", what, n)
		}
	}
	open := func() {
		if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
			t.Fatal(err)
		}
		waitStep(0)
		expect("start", id(0), "")
	}
	scale9 := []string{" ", kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown, kb.ArrowDown}
	yes, no := itemID(el[0], "choices", 0), itemID(el[0], "choices", 1)
	morning, tea, coffee := itemID(el[3], "rows", 0), itemID(el[3], "columns", 0), itemID(el[3], "columns", 1)

	// Path A: Yes, 9, "I love it", Morning = Coffee: every page.
	open()
	shot(t, ctx, "logic-noscript-a-start")
	focus(`input[name="a` + id(0) + `"]`)
	keys(t, ctx, " ", kb.Enter) // Yes; Enter presses Next
	waitStep(1)
	expect("path A at how much", id(1), "2/3")
	focus(`input[name="a` + id(1) + `"]`)
	keys(t, ctx, scale9...)
	tabTo(t, ctx, "submit")
	waitStep(2)
	expect("path A at why", id(2), "3/4")
	focus(`#a` + id(2))
	keys(t, ctx, "I love it")
	tabTo(t, ctx, "submit")
	waitStep(3)
	expect("path A at the matrix", id(3), "4/5")
	focus(fmt.Sprintf(`input[name="m%s_%d"][value="%d"]`, id(3), morning, coffee))
	keys(t, ctx, " ")
	shot(t, ctx, "logic-noscript-a-matrix")
	tabTo(t, ctx, "submit")
	waitStep(4)
	expect("path A at the statement", id(4), "5/6")
	tabTo(t, ctx, "submit")
	waitStep(5)
	expect("path A at the last", id(5), "6/6")
	focus(`#a` + id(5))
	keys(t, ctx, "no")
	if label := evalJS[string](t, ctx, `document.getElementById("submit").textContent`); label != "Submit" {
		t.Errorf("the last page's button says %q", label)
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#message")

	// Path B: Yes and 9, back to the first page, No: the scale is hidden
	// and its answer cleared; why and the statement are skipped.
	open()
	focus(`input[name="a` + id(0) + `"]`)
	keys(t, ctx, " ", kb.Enter)
	waitStep(1)
	focus(`input[name="a` + id(1) + `"]`)
	keys(t, ctx, scale9...)
	tabTo(t, ctx, "prev")
	waitStep(0)
	expect("path B back at the first", id(0), "1/4") // the scale's 9 is kept: why would follow
	focus(`input[name="a` + id(0) + `"]:checked`)
	keys(t, ctx, kb.ArrowDown) // No
	tabTo(t, ctx, "submit")
	waitStep(3)
	expect("path B at the matrix", id(3), "2/3")
	shot(t, ctx, "logic-noscript-b-matrix")
	focus(fmt.Sprintf(`input[name="m%s_%d"][value="%d"]`, id(3), morning, tea))
	keys(t, ctx, " ")
	tabTo(t, ctx, "submit")
	waitStep(5)
	focus(`#a` + id(5))
	keys(t, ctx, "tea person")
	tabTo(t, ctx, "prev")
	waitStep(3) // back skips the statement too
	tabTo(t, ctx, "submit")
	waitStep(5)
	if v := evalJS[string](t, ctx, `document.getElementById("a`+id(5)+`").value`); v != "tea person" {
		t.Errorf("the last answer after going back: %q", v)
	}
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#message")
	shot(t, ctx, "logic-noscript-thanks")

	rs := p.responses(t, sv.ID)
	if len(rs) != 2 {
		t.Fatalf("%d responses, want 2", len(rs))
	}
	wantA := map[string]any{id(0): []any{float64(yes)}, id(1): 9.0, id(2): "I love it", id(3): map[string]any{fmt.Sprint(morning): float64(coffee)}, id(5): "no"}
	wantB := map[string]any{id(0): []any{float64(no)}, id(3): map[string]any{fmt.Sprint(morning): float64(tea)}, id(5): "tea person"}
	if got, want := jsonOf(rs[1].Answers), jsonOf(wantA); got != want {
		t.Errorf("path A stored\n %s\nwant\n %s", got, want)
	}
	if got, want := jsonOf(rs[0].Answers), jsonOf(wantB); got != want {
		t.Errorf("path B stored\n %s\nwant\n %s", got, want)
	}
}

// TestBrowserPerQuestionTimerGroup: with responding_duration_type 2 a
// group page of two questions shows them one at a time, each with its
// own countdown, moving on by itself when each ends.
func TestBrowserPerQuestionTimerGroup(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Quick group", Language: 4, Elements: []map[string]any{
		{"title": "A quick pair", "type": 8},
		{"title": "Last thought?", "type": 2, "responding_duration": "00:01:00"},
	}, Settings: map[string]any{"responding_duration_type": 2}})
	group := idOf(sv.Elements[0])
	var members []int64
	for _, title := range []string{"First of the pair?", "Second of the pair?"} {
		var got map[string]any
		if err := p.api.call("POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.ID),
			map[string]any{"title": title, "type": 2, "related_group": group, "responding_duration": "00:00:02"}, &got); err != nil {
			t.Fatal(err)
		}
		members = append(members, idOf(got))
	}
	last := idOf(sv.Elements[1])
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	seen := func() string {
		return evalJS[string](t, ctx, `Array.from(document.querySelectorAll(".q[data-id]")).filter(e => e.offsetParent !== null).map(e => e.dataset.id).join(",")`)
	}
	waitPage(t, ctx, "0")
	visible(t, ctx, "#timer")
	if got, want := seen(), fmt.Sprintf("%d,%d", group, members[0]); got != want {
		t.Errorf("first page shows %s, want the group's title and its first question %s", got, want)
	}
	if got := evalJS[string](t, ctx, `document.getElementById("timer").textContent`); !strings.HasSuffix(got, "0:02") && !strings.HasSuffix(got, "0:01") {
		t.Errorf("first question's countdown %q, want its own 2 s", got)
	}
	shot(t, ctx, "timer-group-first")
	focusAnswer := func(id int64) {
		if err := chromedp.Run(ctx, chromedp.Focus(fmt.Sprintf("#a%d", id), chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
	}
	focusAnswer(members[0]) // the focus is on the group's title
	keys(t, ctx, "one")
	start := time.Now()
	waitPage(t, ctx, "1") // nobody pressed Next
	if got := seen(); got != fmt.Sprint(members[1]) {
		t.Errorf("second page shows %s, want the second question alone", got)
	}
	focusAnswer(members[1])
	keys(t, ctx, "two")
	waitPage(t, ctx, "2")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the second question moved on after %v, want about 2 s", d)
	}
	if got := evalJS[string](t, ctx, `document.getElementById("timer").textContent`); !strings.Contains(got, "1:00") && !strings.Contains(got, "0:59") {
		t.Errorf("last question's countdown %q, want its own minute", got)
	}
	focusAnswer(last)
	keys(t, ctx, "three")
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	rs := p.responses(t, sv.ID)
	want := map[string]any{fmt.Sprint(members[0]): "one", fmt.Sprint(members[1]): "two", fmt.Sprint(last): "three"}
	if len(rs) != 1 || jsonOf(rs[0].Answers) != jsonOf(want) {
		t.Errorf("stored %v, want %v", rs, want)
	}
}

// TestBrowserAxeSteps runs axe-core on the plain form's step pages (no
// script of theirs), with a required question left empty and refused: the
// first page is posted natively (form.submit(), which the page's script
// does not see), as a browser without the script posts it.
func TestBrowserAxeSteps(t *testing.T) {
	p := newPagesServer(t)
	sv := logicSurvey(t, p)
	el := sv.Elements
	p.patchElement(t, sv.ID, idOf(el[2]), map[string]any{"answer_required": true})
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "0")
	post := func(js string) {
		t.Helper()
		var ignored any
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const f = document.getElementById("survey"); `+js+`; HTMLFormElement.prototype.submit.call(f); return true; })()`, &ignored)); err != nil {
			t.Fatal(err)
		}
	}
	step := func(n int) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.WaitVisible(fmt.Sprintf(`.page.qp[data-page="%d"]`, n), chromedp.ByQuery), chromedp.WaitReady("footer", chromedp.ByQuery)); err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
	}
	post(fmt.Sprintf(`f.querySelector('input[name="a%d"]').checked = true`, idOf(el[0]))) // Yes
	step(1)
	checkAxe(t, ctx, "step page 1")
	post(fmt.Sprintf(`f.querySelectorAll('input[name="a%d"]')[9].checked = true`, idOf(el[1]))) // 9
	step(2)
	post(``) // why left empty: refused
	if err := chromedp.Run(ctx, chromedp.WaitVisible("#errors p", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "logic-steps-refused")
	checkAxe(t, ctx, "step page 2 refused")
}
