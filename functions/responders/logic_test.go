package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestSubmitHiddenQuestions: an answer to a question its rules hide is
// refused; a hidden required question is not required.
func TestSubmitHiddenQuestions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	pick := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, -1, "Yes", "No")
	why := survey.NewElement(survey.TypeText)
	why.Title, why.AnswerRequired = "Why?", true
	yes := pick.Choices[0].ID
	why.Conditions = []survey.Condition{{FirstOperand: pick.ID, ArithmeticOperator: survey.OpEquals, SecondOperand: &survey.Operand{Type: 1, ID: &yes}}}
	ch, err := f.st.CreateElement(context.Background(), f.aid, sid, why, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	no := pick.Choices[1].ID
	sess := f.session(t, slug, nil)
	r := f.respond(t, slug, sess, map[string]any{fmt.Sprint(pick.ID): []int64{no}, fmt.Sprint(ch.Element.ID): "because"})
	if r.code != 400 || !strings.Contains(r.body, survey.MsgNotShown) {
		t.Fatalf("answer to a hidden question: %d %s", r.code, r.body)
	}
	if r := f.respond(t, slug, sess, map[string]any{fmt.Sprint(pick.ID): []int64{no}}); r.code != 201 {
		t.Fatalf("hidden required question required: %d %s", r.code, r.body)
	}
	if r := f.respond(t, slug, f.session(t, slug, nil), map[string]any{fmt.Sprint(pick.ID): []int64{yes}}); r.code != 400 || !strings.Contains(r.body, survey.MsgAnswerRequired) {
		t.Fatalf("shown required question: %d %s", r.code, r.body)
	}
}

// TestSubmitQuizSheet: a scored response answers its sheet and token; the
// key follows the settings.
func TestSubmitQuizSheet(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true,
		"show_answer_key_after_response_submit": true})
	q1 := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, 1, "3", "4")
	q2 := f.choiceQuestion(t, sid, survey.TypeDropdown, 0, "Tehran", "Shiraz")
	r := f.respond(t, slug, f.session(t, slug, nil), map[string]any{fmt.Sprint(q1.ID): []int64{q1.Choices[1].ID}, fmt.Sprint(q2.ID): q2.Choices[1].ID})
	if r.code != 201 {
		t.Fatalf("%d %s", r.code, r.body)
	}
	var got struct {
		Sheet      survey.Sheet `json:"sheet"`
		SheetToken string       `json:"sheet_token"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Sheet.Score != (survey.Score{Correct: 1, Total: 2}) || got.SheetToken == "" || len(got.Sheet.Questions) != 2 {
		t.Fatalf("sheet %+v token %q", got.Sheet, got.SheetToken)
	}
	if c := got.Sheet.Questions[1].CorrectChoice; c == nil || *c != q2.Choices[0].ID {
		t.Errorf("key %v", c)
	}
}

// TestPerQuestionDeadline: responding_duration_type 2 allows the sum of
// the shown questions' durations and 30 s.
func TestPerQuestionDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"responding_duration_type": int64(2)})
	for _, d := range []string{"00:00:20", "00:00:40"} {
		e := survey.NewElement(survey.TypeText)
		e.Title, e.RespondingDuration = "Quick", &d
		if _, err := f.st.CreateElement(context.Background(), f.aid, sid, e, survey.Placement{}); err != nil {
			t.Fatal(err)
		}
	}
	early, late := f.session(t, slug, nil), f.session(t, slug, nil)
	f.advance(80 * time.Second)
	if r := f.respond(t, slug, early, nil); r.code != 201 {
		t.Fatalf("within 60 s + 30 s: %d %s", r.code, r.body)
	}
	f.advance(11 * time.Second)
	if r := f.respond(t, slug, late, nil); r.code != 410 {
		t.Fatalf("after 91 s: %d %s", r.code, r.body)
	}
}

// TestChoiceOrders: a randomized question's choices come in an order of
// the session's own: every choice once, and the same for the same token.
func TestChoiceOrders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	ids, _ := f.st.NewIDs(context.Background(), store.KindChoice, 8)
	e := survey.NewElement(survey.TypeMultipleChoice)
	e.Title, e.Randomize = "Shuffled", true
	for i, id := range ids {
		e.Choices = append(e.Choices, survey.ChoiceItem{ID: id, Name: fmt.Sprint(i), Order: i + 1})
	}
	ch, err := f.st.CreateElement(context.Background(), f.aid, sid, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 5 {
		r := f.startSession(t, slug, nil)
		var s struct {
			Session      string             `json:"session"`
			ChoiceOrders map[string][]int64 `json:"choice_orders"`
		}
		if err := json.Unmarshal([]byte(r.body), &s); err != nil || r.code != 201 {
			t.Fatalf("%d %s", r.code, r.body)
		}
		order := s.ChoiceOrders[fmt.Sprint(ch.Element.ID)]
		if len(order) != len(ids) {
			t.Fatalf("order %v", order)
		}
		seen[fmt.Sprint(order)] = true
		l, _ := f.st.SurveyCollection(context.Background(), f.aid, sid)
		if again := l.Layout.ChoiceOrders(s.Session)[fmt.Sprint(ch.Element.ID)]; fmt.Sprint(again) != fmt.Sprint(order) {
			t.Errorf("the same session gives %v, then %v", order, again)
		}
	}
	if len(seen) < 2 {
		t.Errorf("5 sessions, %d orders", len(seen))
	}
}
