package survey_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

func TestValidateConditions(t *testing.T) {
	t.Parallel()
	qs := quiz()
	byID := map[int64]survey.Element{}
	var order []int64
	for _, q := range qs {
		byID[q.ID] = q
		if q.Type.List() == survey.ListQuestions {
			order = append(order, q.ID)
		}
	}
	multi := byID[13]
	multi.AllowMultipleSelect = true
	byID[13] = multi
	num := func(v string) *survey.Operand { return &survey.Operand{Type: 2, Value: &v} }
	txt := func(v string) *survey.Operand { return &survey.Operand{Type: 3, Value: &v} }
	choice := func(id int64) *survey.Operand { return &survey.Operand{Type: 1, ID: &id} }
	cell := func(row int64, col string) *survey.Operand { return &survey.Operand{Type: 1, ID: &row, Value: &col} }
	rule := func(first, op int64, s *survey.Operand) survey.Condition {
		return survey.Condition{FirstOperand: first, ArithmeticOperator: op, SecondOperand: s}
	}
	or := int64(2)
	bad := int64(3)
	for _, tc := range []struct {
		name  string
		el    int64
		rules []survey.Condition
		want  map[string]any // nil: valid
	}{
		{"ChoiceEquals", 22, []survey.Condition{rule(12, 1, choice(101))}, nil},
		{"ChoiceIncludesOtherElementsChoice", 22, []survey.Condition{rule(12, 10, choice(999))}, map[string]any{"0": []string{"second_operand must be {\"type\": 1, \"id\": <a choice of element 12>}."}}},
		{"MultiEqualsRefused", 22, []survey.Condition{rule(13, 1, choice(101))}, map[string]any{"0": []string{"Operator 1 (equals) does not apply to element 13 (picture choice)."}}},
		{"MultiIncludes", 22, []survey.Condition{rule(13, 10, choice(101))}, nil},
		{"ScaleNumber", 22, []survey.Condition{rule(15, 3, num("4.5"))}, nil},
		{"ScaleNotDecimal", 22, []survey.Condition{rule(15, 3, num("4,5"))}, map[string]any{"0": []string{survey.MsgOperandDecimal}}},
		{"ScaleContainsRefused", 22, []survey.Condition{rule(15, 7, txt("x"))}, map[string]any{"0": []string{"Operator 7 (contains) does not apply to element 15 (opinion scale)."}}},
		{"TextContains", 22, []survey.Condition{rule(11, 7, txt("x"))}, nil},
		{"TextEqualsNeedsText", 22, []survey.Condition{rule(11, 1, num("3"))}, map[string]any{"0": []string{survey.MsgOperandText}}},
		{"TextLessNeedsNumber", 22, []survey.Condition{rule(11, 3, num("3"))}, nil},
		{"RankingAnsweredOnly", 22, []survey.Condition{rule(14, 8, nil), rule(14, 10, choice(101))},
			map[string]any{"1": []string{survey.MsgLogicalOperator, "Operator 10 (includes) does not apply to element 14 (ranking)."}}},
		{"MatrixCell", 22, []survey.Condition{rule(21, 1, cell(201, "302"))}, nil},
		{"MatrixUnknownColumn", 22, []survey.Condition{rule(21, 1, cell(201, "201"))},
			map[string]any{"0": []string{"second_operand must be {\"type\": 1, \"id\": <a row of element 21>, \"value\": \"<a column id of element 21>\"}."}}},
		{"LaterElement", 12, []survey.Condition{rule(15, 8, nil)}, map[string]any{"0": []string{survey.MsgFirstOperandNotPrior}}},
		{"Self", 15, []survey.Condition{rule(15, 8, nil)}, map[string]any{"0": []string{survey.MsgFirstOperandUnknown}}},
		{"Statement", 22, []survey.Condition{rule(17, 8, nil)}, map[string]any{"0": []string{survey.MsgFirstOperandUnknown}}},
		{"Unknown", 22, []survey.Condition{rule(7, 8, nil)}, map[string]any{"0": []string{survey.MsgFirstOperandUnknown}}},
		{"UnknownOperator", 22, []survey.Condition{rule(11, 12, nil)}, map[string]any{"0": []string{"arithmetic_operator must be one of 1-11, not 12."}}},
		{"Or", 22, []survey.Condition{rule(11, 8, nil), {FirstOperand: 15, ArithmeticOperator: 9, LogicalOperator: &or}}, nil},
		{"BadLogical", 22, []survey.Condition{rule(11, 8, nil), {FirstOperand: 15, ArithmeticOperator: 9, LogicalOperator: &bad}}, map[string]any{"1": []string{survey.MsgLogicalOperator}}},
		{"GroupTakesThem", 17, []survey.Condition{rule(16, 6, num("3"))}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := byID[tc.el]
			e.Conditions = tc.rules
			err := survey.ValidateConditions(e, order, byID)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var got map[string]any
			if se, ok := err.(*survey.Error); ok && se.Code == survey.EINVALID {
				got = map[string]any(se.Fields["conditions"].(survey.Fields))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
	t.Run("WelcomePage", func(t *testing.T) {
		e := byID[10]
		e.Conditions = []survey.Condition{rule(11, 8, nil)}
		if err := survey.ValidateConditions(e, order, byID); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("TooMany", func(t *testing.T) {
		e := byID[22]
		for range 21 {
			e.Conditions = append(e.Conditions, rule(11, 8, nil))
		}
		if err := survey.ValidateConditions(e, order, byID); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("got %v", err)
		}
	})
}

func TestRemapConditions(t *testing.T) {
	t.Parallel()
	row, col := int64(201), "302"
	e := survey.Element{Conditions: []survey.Condition{
		{FirstOperand: 21, ArithmeticOperator: 1, SecondOperand: &survey.Operand{Type: 1, ID: &row, Value: &col}},
		{FirstOperand: 15, ArithmeticOperator: 3, SecondOperand: &survey.Operand{Type: 2, Value: &col}},
	}}
	orig := e.Conditions[0].SecondOperand
	e.RemapConditions(map[int64]int64{21: 1021, 201: 1201, 302: 1302, 15: 1015})
	c := e.Conditions
	if c[0].FirstOperand != 1021 || *c[0].SecondOperand.ID != 1201 || *c[0].SecondOperand.Value != "1302" {
		t.Fatalf("matrix rule: %+v %+v", c[0], *c[0].SecondOperand)
	}
	if c[1].FirstOperand != 1015 || *c[1].SecondOperand.Value != "302" {
		t.Fatalf("a number is not an id: %+v", *c[1].SecondOperand)
	}
	if *orig.ID != 201 {
		t.Fatal("the original rules changed")
	}
}

func TestCheckAnswersHidden(t *testing.T) {
	t.Parallel()
	qs := quiz()
	scale, text := byType(qs, survey.TypeOpinionScale), byType(qs, survey.TypeText)
	five := "5"
	scale.AnswerRequired = true
	scale.Conditions = []survey.Condition{{FirstOperand: text.ID, ArithmeticOperator: 1, SecondOperand: &survey.Operand{Type: 3, Value: &five}}}
	// hidden: not required, and an answer refused
	if _, err := survey.CheckAnswers(qs, nil, map[string]json.RawMessage{"11": []byte(`"4"`)}); err != nil {
		t.Fatalf("hidden required question required: %v", err)
	}
	_, err := survey.CheckAnswers(qs, nil, map[string]json.RawMessage{"11": []byte(`"4"`), "15": []byte(`3`)})
	if got := answerErrors(t, err); !reflect.DeepEqual(got, map[string]any{"15": []string{survey.MsgNotShown}}) {
		t.Fatalf("got %v", got)
	}
	// shown: required
	_, err = survey.CheckAnswers(qs, nil, map[string]json.RawMessage{"11": []byte(`" 5"`)})
	if got := answerErrors(t, err); !reflect.DeepEqual(got, map[string]any{"15": []string{survey.MsgAnswerRequired}}) {
		t.Fatalf("got %v", got)
	}
}
