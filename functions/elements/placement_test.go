package elements_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"surveyservice/shared/survey"
)

// TestPlacement: three lists with orders 1..n each, prior_question,
// groups, and the survey detail's pages.
func TestPlacement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	order := func(m map[string]any) int { return int(num(t, m["order"])) }
	mk := func(typ int, extra string, wantOrder int) int64 {
		t.Helper()
		m := f.create(t, sid, fmt.Sprintf(`{"title":"E","type":%d%s}`, typ, extra))
		if got := order(m); got != wantOrder {
			t.Errorf("new type %d%s: order %d, want %d", typ, extra, got, wantOrder)
		}
		return idOf(t, m)
	}
	w1 := mk(1, "", 1)
	q1 := mk(2, "", 1)
	g := mk(8, "", 2)
	q2 := mk(2, "", 3)
	a1 := mk(9, "", 1)
	w2 := mk(1, "", 2)
	a2 := mk(9, "", 2)
	q3 := mk(13, "", 4)
	check := func(what string, ww, wq, wa []int64) {
		t.Helper()
		w, q, a := f.lists(t, sid)
		if !slices.Equal(w, ww) || !slices.Equal(q, wq) || !slices.Equal(a, wa) {
			t.Errorf("%s: lists %v %v %v, want %v %v %v", what, w, q, a, ww, wq, wa)
		}
	}
	check("no prior: last in each list", []int64{w1, w2}, []int64{q1, g, q2, q3}, []int64{a1, a2})

	q4 := mk(3, fmt.Sprintf(`,"prior_question":%d`, q1), 2)
	w3 := mk(1, fmt.Sprintf(`,"prior_question":%d`, w1), 2)
	a3 := mk(9, fmt.Sprintf(`,"prior_question":%d`, a1), 2)
	q5 := mk(2, fmt.Sprintf(`,"prior_question":%d`, q3), 6)
	check("after prior_question", []int64{w1, w3, w2}, []int64{q1, q4, g, q2, q3, q5}, []int64{a1, a3, a2})

	m1 := mk(2, fmt.Sprintf(`,"related_group":%d`, g), 4)
	m2 := mk(4, fmt.Sprintf(`,"related_group":%d`, g), 5)
	m3 := mk(5, fmt.Sprintf(`,"related_group":%d,"prior_question":%d`, g, q1), 2)
	check("group members", []int64{w1, w3, w2}, []int64{q1, m3, q4, g, m1, m2, q2, q3, q5}, []int64{a1, a3, a2})
	for _, m := range []int64{m1, m2, m3} {
		if rg := f.get(t, sid, m)["related_group"]; rg != float64(g) {
			t.Errorf("member %d: related_group %v, want %d", m, rg, g)
		}
	}
	for _, id := range []int64{q1, g, q2, w1, a1} {
		if rg := f.get(t, sid, id)["related_group"]; rg != nil {
			t.Errorf("element %d: related_group %v, want null", id, rg)
		}
	}

	d := f.detail(t, sid)
	wantPages := [][]int64{{q1}, {q4}, {g, m3, m1, m2}, {q2}, {q3}, {q5}}
	if got := pages(d); !reflect.DeepEqual(got, wantPages) {
		t.Errorf("pages %v, want %v", got, wantPages)
	}
	if got := viewIDs(d.Welcome); !slices.Equal(got, []int64{w1, w3, w2}) {
		t.Errorf("welcome %v", got)
	}
	if got := viewIDs(d.Appreciations); !slices.Equal(got, []int64{a1, a3, a2}) {
		t.Errorf("appreciations %v", got)
	}
	if d.QuestionCount != 8 {
		t.Errorf("question_count %d, want 8 (9 questions, one of them a group)", d.QuestionCount)
	}
	if c := f.state(t, sid); c.Survey.QuestionCount != 8 {
		t.Errorf("stored question_count %d, want 8", c.Survey.QuestionCount)
	}
	raw, _ := json.Marshal(d)
	var dm map[string]any
	_ = json.Unmarshal(raw, &dm)
	q0 := dm["questions"].([]any)[0].([]any)[0].(map[string]any)
	for _, k := range []string{"second_operand", "logical_operator", "arithmetic_operator"} {
		if v, ok := q0[k]; !ok || v != nil {
			t.Errorf("question %s = %v (present %v), want null", k, v, ok)
		}
	}
	if _, ok := dm["welcome"].([]any)[0].(map[string]any)["second_operand"]; ok {
		t.Error("a welcome page carries logic")
	}
	if v := dm["appreciations"].([]any)[0].(map[string]any)["link_type"]; v != 1.0 {
		t.Errorf("appreciation link_type %v in the detail", v)
	}

	t.Run("every type goes to its list", func(t *testing.T) {
		sid := f.newSurvey(t)
		byType := map[int]int64{}
		for typ := 1; typ <= 13; typ++ {
			byType[typ] = f.add(t, sid, typ, "")
		}
		w, q, a := f.lists(t, sid)
		var wantQ []int64
		for typ := 2; typ <= 13; typ++ {
			if typ != 9 {
				wantQ = append(wantQ, byType[typ])
			}
		}
		if !slices.Equal(w, []int64{byType[1]}) || !slices.Equal(q, wantQ) || !slices.Equal(a, []int64{byType[9]}) {
			t.Errorf("lists %v %v %v", w, q, a)
		}
		d := f.detail(t, sid)
		if d.QuestionCount != 10 || len(d.Questions) != 11 {
			t.Errorf("question_count %d, pages %d; want 10 and 11", d.QuestionCount, len(d.Questions))
		}
	})
}

// TestCalls: a create at the end or after a prior in a survey of 30
// elements takes at most a few DynamoDB calls, however long the survey.
func TestCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	var ids []int64
	for i := range 30 {
		typ := survey.TypeText
		p := survey.Placement{}
		switch {
		case i == 0:
			typ = survey.TypeWelcome
		case i == 1:
			typ = survey.TypeAppreciation
		case i == 5:
			typ = survey.TypeGroup
		case i > 5 && i < 9:
			g := ids[5]
			p.Group = &g
		}
		e := survey.NewElement(typ)
		e.Title = fmt.Sprintf("Element %d", i)
		ch, err := f.st.CreateElement(t.Context(), f.acct.ID, sid, e, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ch.Element.ID)
	}
	_, q0, _ := f.lists(t, sid)
	cases := []struct {
		name, method, path, body string
		code, max                int
	}{
		{"create at the end", "POST", listPath(sid), `{"title":"End","type":2}`, 201, 4},
		{"create after a prior", "POST", listPath(sid), fmt.Sprintf(`{"title":"Mid","type":2,"prior_question":%d}`, ids[10]), 201, 4},
		{"create into a group", "POST", listPath(sid), fmt.Sprintf(`{"title":"Member","type":2,"related_group":%d}`, ids[5]), 201, 4},
		{"create at the end again", "POST", listPath(sid), `{"title":"End 2","type":2}`, 201, 4},
		{"GET one", "GET", itemPath(sid, ids[20]), "", 200, 1},
		{"GET list", "GET", listPath(sid), "", 200, 1},
		// Writes: their own calls and the activity log's one BatchWriteItem
		// (contract section 19).
		{"PATCH a field", "PATCH", itemPath(sid, ids[20]), `{"title":"Renamed"}`, 200, 3},
		{"PATCH a move", "PATCH", itemPath(sid, ids[20]), fmt.Sprintf(`{"prior_question":%d}`, ids[3]), 200, 3},
		{"DELETE", "DELETE", itemPath(sid, ids[25]), "", 204, 3},
	}
	for _, c := range cases {
		r := f.do(t, c.method, c.path, c.body)
		if r.code != c.code {
			t.Errorf("%s: %d %s", c.name, r.code, r.body)
			continue
		}
		t.Logf("%s in a survey of %d elements: %d DynamoDB calls %v", c.name, len(q0)+2, r.calls, r.ops)
		if r.calls > c.max {
			t.Errorf("%s: %d DynamoDB calls, want at most %d (%v)", c.name, r.calls, c.max, r.ops)
		}
	}
	_, q, _ := f.lists(t, sid)
	if len(q) != len(q0)+4-1 {
		t.Errorf("%d questions, want %d", len(q), len(q0)+3)
	}
}
