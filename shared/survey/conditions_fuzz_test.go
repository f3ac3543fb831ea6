package survey_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

// FuzzConditionsWithAnswers runs arbitrary rules (valid or not: a stored
// rule may predate an edit of the element it names) and arbitrary answers
// through the evaluator and the answers checker together: no panic; a
// member of a hidden group is hidden; accepted answers are answers of shown
// questions only, include every shown required question, and pass again
// unchanged.
func FuzzConditionsWithAnswers(f *testing.F) {
	for _, s := range [][2]string{
		{`{"12":[{"first_operand":11,"arithmetic_operator":7,"second_operand":{"type":3,"value":"x"}}]}`, `{"11":"xx","12":[101]}`},
		{`{"17":[{"first_operand":15,"arithmetic_operator":5,"second_operand":{"type":2,"value":"3"}}]}`, `{"15":4,"19":101}`},
		{`{"22":[{"first_operand":21,"arithmetic_operator":1,"second_operand":{"id":201,"type":1,"value":"302"}},` +
			`{"first_operand":12,"arithmetic_operator":11,"second_operand":{"id":101,"type":1},"logical_operator":2}]}`, `{"21":{"201":302}}`},
		{`{"16":[{"first_operand":22,"arithmetic_operator":9}]}`, `{"16":3}`},
		{`{"14":[{"first_operand":11,"arithmetic_operator":3,"second_operand":{"type":2,"value":"۱۲"}}]}`, `{"11":" 7 ","14":[103,101,102]}`},
		{`{"19":[{"first_operand":19,"arithmetic_operator":99,"second_operand":null,"logical_operator":7}]}`, `{"19":102}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]), true)
	}
	f.Fuzz(func(t *testing.T, rulesJSON, answersJSON []byte, required bool) {
		var rules map[int64][]survey.Condition
		var in map[string]json.RawMessage
		if json.Unmarshal(rulesJSON, &rules) != nil || json.Unmarshal(answersJSON, &in) != nil {
			return
		}
		qs := quiz()[1:8]                         // text .. group (the questions list's types first)
		qs = append(qs, quiz()[9:]...)            // dropdown, upload, matrix, statement
		groups := map[int64]int64{19: 17, 21: 17} // dropdown and matrix in the group
		order := make([]int64, len(qs))
		byID := map[int64]survey.Element{}
		for i := range qs {
			qs[i].Conditions = rules[qs[i].ID]
			qs[i].AnswerRequired = required
			order[i] = qs[i].ID
			byID[qs[i].ID] = qs[i]
		}
		for _, q := range qs {
			if err := survey.ValidateConditions(q, order, byID); err != nil && survey.ErrorCode(err) != survey.EINVALID {
				t.Fatalf("ValidateConditions: %v", err)
			}
		}
		got, err := survey.CheckAnswers(qs, groups, in)
		if err != nil {
			if survey.ErrorCode(err) != survey.EINVALID {
				t.Fatalf("CheckAnswers: %v", err)
			}
			return
		}
		shown := survey.Shown(qs, groups, got)
		for m, g := range groups {
			if shown[m] && !shown[g] {
				t.Fatalf("member %d shown in hidden group %d", m, g)
			}
		}
		again := map[string]json.RawMessage{}
		for id, a := range got {
			if !shown[id] {
				t.Fatalf("answer to hidden question %d accepted", id)
			}
			again[itoa(id)] = a
		}
		for _, q := range qs {
			if _, ok := got[q.ID]; required && shown[q.ID] && q.Type.Answerable() && !ok {
				t.Fatalf("required shown question %d unanswered", q.ID)
			}
		}
		got2, err := survey.CheckAnswers(qs, groups, again)
		if err != nil || !reflect.DeepEqual(got, got2) {
			t.Fatalf("canonical answers not stable: %v, %v then %v", err, got, got2)
		}
	})
}
