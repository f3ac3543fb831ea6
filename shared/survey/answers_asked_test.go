package survey_test

import (
	"encoding/json"
	"errors"
	"testing"

	"surveyservice/shared/survey"
)

// TestCheckAsked: a plain form's pages so far are checked as the page's
// script checks them: answers of hidden questions dropped (not refused),
// only the asked questions required, the shown ones returned.
func TestCheckAsked(t *testing.T) {
	t.Parallel()
	yes, no := int64(11), int64(12)
	pick := survey.NewElement(survey.TypeMultipleChoice)
	pick.ID, pick.Choices = 1, []survey.ChoiceItem{{ID: yes, Name: "Yes", Order: 1}, {ID: no, Name: "No", Order: 2}}
	why := survey.NewElement(survey.TypeText)
	why.ID, why.AnswerRequired = 2, true
	why.Conditions = []survey.Condition{{FirstOperand: 1, ArithmeticOperator: survey.OpIncludes, SecondOperand: &survey.Operand{Type: 1, ID: &yes}}}
	last := survey.NewElement(survey.TypeText)
	last.ID, last.AnswerRequired = 3, true
	qs := []survey.Element{pick, why, last}
	raw := func(m map[string]string) map[string]json.RawMessage {
		out := map[string]json.RawMessage{}
		for k, v := range m {
			out[k] = json.RawMessage(v)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		answers map[string]string
		asked   []int64
		want    string // the kept answers as JSON, or the error's fields
		shown   string
	}{
		{"a hidden answer is dropped", map[string]string{"1": "[12]", "2": `"because"`}, []int64{1, 2}, `{"1":[12]}`, "1,3"},
		{"a shown one kept", map[string]string{"1": "[11]", "2": `" because "`}, []int64{1, 2}, `{"1":[11],"2":"because"}`, "1,2,3"},
		{"a required shown one asked", map[string]string{"1": "[11]"}, []int64{1, 2}, `{"answers":{"2":["This question requires an answer."]}}`, ""},
		{"not asked yet: not required", map[string]string{"1": "[11]"}, []int64{1}, `{"1":[11]}`, "1,2,3"},
		{"a bad answer of a hidden one is no error", map[string]string{"1": "[12]", "2": `5`}, []int64{1, 2}, `{"1":[12]}`, "1,3"},
		{"a bad answer of a shown one is", map[string]string{"1": "[99]"}, []int64{1}, `{"answers":{"1":["Invalid pk \"99\" - object does not exist."]}}`, ""},
	} {
		asked := map[int64]bool{}
		for _, id := range c.asked {
			asked[id] = true
		}
		out, shown, err := survey.CheckAsked(qs, nil, raw(c.answers), asked)
		var got string
		if err != nil {
			var e *survey.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: %v", c.name, err)
			}
			b, _ := json.Marshal(e.Fields)
			got = string(b)
		} else {
			b, _ := json.Marshal(out)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		ids := ""
		for _, q := range qs {
			if shown[q.ID] {
				if ids != "" {
					ids += ","
				}
				ids += string(rune('0' + q.ID))
			}
		}
		if err == nil && ids != c.shown {
			t.Errorf("%s: shown %s, want %s", c.name, ids, c.shown)
		}
	}
	// CheckAnswers still refuses the hidden answer.
	if _, err := survey.CheckAnswers(qs, nil, raw(map[string]string{"1": "[12]", "2": `"because"`, "3": `"x"`})); err == nil {
		t.Error("CheckAnswers took an answer to a hidden question")
	}
}
