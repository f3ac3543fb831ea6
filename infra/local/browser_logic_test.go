package main

import (
	"context"
	"encoding/json"
	"fmt"
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
