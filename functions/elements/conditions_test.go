package elements_test

import (
	"fmt"
	"testing"
)

// conditionsSurvey is a survey of a choice question (choices a, b), a
// scale, a matrix and a text question whose rules name the three.
func conditionsSurvey(t *testing.T, f *fixture) (sid, choice, a, b, scale, matrix, row, col, text int64) {
	t.Helper()
	sid = f.newSurvey(t)
	c := f.create(t, sid, `{"title":"C","type":3,"choices":[{"name":"a"},{"name":"b"}]}`)
	choice = idOf(t, c)
	cs := c["choices"].([]any)
	a, b = int64(num(t, cs[0].(map[string]any)["id"])), int64(num(t, cs[1].(map[string]any)["id"]))
	scale = f.add(t, sid, 6, "")
	m := f.create(t, sid, `{"title":"M","type":12,"rows":[{"name":"r"}],"columns":[{"name":"x"},{"name":"y"}]}`)
	matrix = idOf(t, m)
	row = int64(num(t, m["rows"].([]any)[0].(map[string]any)["id"]))
	col = int64(num(t, m["columns"].([]any)[1].(map[string]any)["id"]))
	text = f.add(t, sid, 2, fmt.Sprintf(`,"conditions":[
		{"first_operand":%d,"arithmetic_operator":1,"second_operand":{"id":%d,"type":1,"value":null}},
		{"first_operand":%d,"arithmetic_operator":6,"second_operand":{"id":null,"type":2,"value":"7"},"logical_operator":1},
		{"first_operand":%d,"arithmetic_operator":1,"second_operand":{"id":%d,"type":1,"value":"%d"},"logical_operator":2}]`,
		choice, a, scale, matrix, row, col))
	return
}

func TestConditionsStoredAndShown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid, choice, a, _, scale, matrix, row, col, text := conditionsSurvey(t, f)
	got := f.get(t, sid, text)["conditions"].([]any)
	if len(got) != 3 || num(t, got[0].(map[string]any)["first_operand"]) != float64(choice) {
		t.Fatalf("conditions %v", got)
	}
	d := f.detail(t, sid)
	last := d.Questions[len(d.Questions)-1][0]
	if last.Logic == nil || last.Logic.ArithmeticOperator == nil || *last.Logic.ArithmeticOperator != 1 || *last.Logic.SecondOperand.ID != a {
		t.Fatalf("detail's first rule: %+v", last.Logic)
	}
	if first := d.Questions[0][0]; first.Logic.ArithmeticOperator != nil || first.Conditions == nil || len(*first.Conditions) != 0 {
		t.Fatalf("question without rules: %+v %v", first.Logic, first.Conditions)
	}
	for _, id := range []int64{scale, matrix, row, col} {
		if id == 0 {
			t.Fatal("fixture without ids")
		}
	}
}

func TestConditionsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid, choice, _, _, scale, matrix, _, _, text := conditionsSurvey(t, f)
	welcome := f.add(t, sid, 1, "")
	for _, tc := range []struct {
		name, body, want string
	}{
		{"LaterElement", fmt.Sprintf(`{"conditions":[{"first_operand":%d,"arithmetic_operator":8}]}`, text),
			`{"conditions":{"0":["first_operand must be placed before this element: a rule may only name earlier questions."]}}`},
		{"OperatorByType",
			fmt.Sprintf(`{"conditions":[{"first_operand":%d,"arithmetic_operator":8},{"first_operand":%d,"arithmetic_operator":7,"second_operand":{"type":3,`+
				`"value":"x"},"logical_operator":1}]}`, choice, scale),
			fmt.Sprintf(`{"conditions":{"1":["Operator 7 (contains) does not apply to element %d (opinion scale)."]}}`, scale)},
		{"Format", `{"conditions":[{"arithmetic_operator":"1"}]}`,
			`{"conditions":{"0":["arithmetic_operator: A valid integer is required.","first_operand: This field is required."]}}`},
		{"NotAList", `{"conditions":{}}`, `{"conditions":["Expected a list of items but got type \"dict\"."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.state(t, sid)
			eid := matrix
			if tc.name == "LaterElement" {
				eid = choice
			}
			r := f.do(t, "PATCH", itemPath(sid, eid), tc.body)
			expect(t, tc.name, r, 400, tc.want)
			unchanged(t, tc.name, before, f.state(t, sid))
		})
	}
	r := f.do(t, "PATCH", itemPath(sid, welcome), fmt.Sprintf(`{"conditions":[{"first_operand":%d,"arithmetic_operator":8}]}`, choice))
	expect(t, "welcome page", r, 400, `{"conditions":["Only questions, statements and question groups take conditions."]}`)
}

// TestConditionsGuards: deleting or moving an element a rule names, and
// removing a choice, row or column a rule names, answer 409 and change
// nothing; a move that keeps every rule valid, and removing the rules
// first, are allowed.
func TestConditionsGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid, choice, a, b, scale, matrix, row, col, text := conditionsSurvey(t, f)
	used := func(n, m int64) string {
		return fmt.Sprintf(`{"detail":"Element %d is used by the conditions of element %d."}`, n, m)
	}
	for _, tc := range []struct {
		name, method string
		eid          int64
		body, want   string
	}{
		{"Delete", "DELETE", choice, "", used(choice, text)},
		{"MoveOperandAfter", "PATCH", scale, fmt.Sprintf(`{"prior_question":%d}`, text), used(scale, text)},
		{"MoveRuleBefore", "PATCH", text, fmt.Sprintf(`{"prior_question":%d}`, choice), used(scale, text)},
		{"RemoveChoice", "PATCH", choice, fmt.Sprintf(`{"choices":[{"id":%d,"name":"b"}]}`, b),
			fmt.Sprintf(`{"detail":"Choice %d is used by the conditions of element %d."}`, a, text)},
		{"RemoveColumn", "PATCH", matrix, fmt.Sprintf(`{"columns":[{"name":"z"}]}`),
			fmt.Sprintf(`{"detail":"Column %d is used by the conditions of element %d."}`, col, text)},
		{"RemoveRow", "PATCH", matrix, `{"rows":[{"name":"q"}]}`,
			fmt.Sprintf(`{"detail":"Row %d is used by the conditions of element %d."}`, row, text)},
		{"ChangeType", "PATCH", scale, `{"type":7}`, used(scale, text)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.state(t, sid)
			expect(t, tc.name, f.do(t, tc.method, itemPath(sid, tc.eid), tc.body), 409, tc.want)
			unchanged(t, tc.name, before, f.state(t, sid))
		})
	}
	// A move that keeps every rule valid.
	expect(t, "move scale first", f.do(t, "PATCH", itemPath(sid, scale), `{"prior_question":null}`), 200, "")
	other := f.add(t, sid, 13, "")
	expect(t, "move other before the rule", f.do(t, "PATCH", itemPath(sid, other), fmt.Sprintf(`{"prior_question":%d}`, choice)), 200, "")
	// Without its rules, the text question no longer holds anything.
	expect(t, "clear rules", f.do(t, "PATCH", itemPath(sid, text), `{"conditions":[]}`), 200, "")
	expect(t, "delete now", f.do(t, "DELETE", itemPath(sid, choice), ""), 204, "")
	checkStored(t, f.state(t, sid))
}
