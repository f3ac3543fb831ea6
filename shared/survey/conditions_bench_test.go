package survey_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"surveyservice/shared/survey"
)

// BenchmarkCheckAnswersRules checks the answers of a 200-question survey
// whose questions each carry 20 rules over earlier ones (scales, choices
// and texts), as a submission does: the rules' evaluation included (aim:
// well under 1 ms).
func BenchmarkCheckAnswersRules(b *testing.B) {
	const n, rules = 200, 20
	qs := make([]survey.Element, n)
	answers := map[string]json.RawMessage{}
	for i := range qs {
		id := int64(i + 1)
		var e survey.Element
		switch i % 3 {
		case 0:
			e = survey.NewElement(survey.TypeOpinionScale)
			answers[strconv.FormatInt(id, 10)] = json.RawMessage(`5`)
		case 1:
			e = survey.NewElement(survey.TypeMultipleChoice)
			e.Choices = []survey.ChoiceItem{{ID: 10000 + id, Name: "a", Order: 1}, {ID: 20000 + id, Name: "b", Order: 2}}
			answers[strconv.FormatInt(id, 10)] = json.RawMessage(`[` + strconv.FormatInt(10000+id, 10) + `]`)
		case 2:
			e = survey.NewElement(survey.TypeText)
			answers[strconv.FormatInt(id, 10)] = json.RawMessage(`"I love 12 cats"`)
		}
		e.ID = id
		for r := 0; r < rules && i > 0; r++ {
			first := &qs[(i*7+r*13)%i]
			c := survey.Condition{FirstOperand: first.ID, ArithmeticOperator: survey.OpAnswered}
			switch first.Type {
			case survey.TypeOpinionScale:
				v := "3"
				c.ArithmeticOperator, c.SecondOperand = survey.OpAtLeast, &survey.Operand{Type: 2, Value: &v}
			case survey.TypeMultipleChoice:
				cid := first.Choices[0].ID
				c.ArithmeticOperator, c.SecondOperand = survey.OpIncludes, &survey.Operand{Type: 1, ID: &cid}
			case survey.TypeText:
				v := "LOVE"
				c.ArithmeticOperator, c.SecondOperand = survey.OpContains, &survey.Operand{Type: 3, Value: &v}
			}
			if r > 0 {
				l := int64(survey.LogicAnd)
				if r%5 == 0 {
					l = survey.LogicOr
				}
				c.LogicalOperator = &l
			}
			e.Conditions = append(e.Conditions, c)
		}
		qs[i] = e
	}
	if got, err := survey.CheckAnswers(qs, nil, answers); err != nil || len(got) != n {
		b.Fatalf("%d answers, %v", len(got), err)
	}
	canon, _ := survey.CheckAnswers(qs, nil, answers)
	b.Run("check+rules", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := survey.CheckAnswers(qs, nil, answers); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rules", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if len(survey.Shown(qs, nil, canon)) != n {
				b.Fatal("not every question shown")
			}
		}
	})
}
