package survey_test

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"

	"surveyservice/shared/survey"
)

// conditionCase is one case of testdata/conditions_cases.json, the table
// the Go evaluator and the page's script (functions/pages/web/logic.js)
// both pass.
type conditionCase struct {
	Name      string `json:"name"`
	Questions []struct {
		ID                  int64              `json:"id"`
		Type                survey.ElementType `json:"type"`
		AllowMultipleSelect bool               `json:"allow_multiple_select"`
		Choices             []int64            `json:"choices"`
		Rows                []int64            `json:"rows"`
		Columns             []int64            `json:"columns"`
		Group               int64              `json:"group"`
		Conditions          []survey.Condition `json:"conditions"`
	} `json:"questions"`
	Answers map[string]json.RawMessage `json:"answers"`
	Shown   []int64                    `json:"shown"`
}

// ConditionCases reads the shared table of cases.
func conditionCases(tb testing.TB) []conditionCase {
	tb.Helper()
	b, err := os.ReadFile("testdata/conditions_cases.json")
	if err != nil {
		tb.Fatal(err)
	}
	var f struct{ Cases []conditionCase }
	if err := json.Unmarshal(b, &f); err != nil {
		tb.Fatal(err)
	}
	if len(f.Cases) < 50 {
		tb.Fatalf("only %d cases", len(f.Cases))
	}
	return f.Cases
}

// survey builds the case's elements, groups and answers.
func (c conditionCase) survey() ([]survey.Element, map[int64]int64, map[int64]json.RawMessage) {
	var qs []survey.Element
	groups := map[int64]int64{}
	for _, q := range c.Questions {
		e := survey.NewElement(q.Type)
		e.ID, e.AllowMultipleSelect, e.Conditions = q.ID, q.AllowMultipleSelect, q.Conditions
		for i, id := range q.Choices {
			e.Choices = append(e.Choices, survey.ChoiceItem{ID: id, Name: strconv.FormatInt(id, 10), Order: i + 1})
		}
		for _, id := range q.Rows {
			e.Rows = append(e.Rows, survey.NamedItem{ID: id, Name: strconv.FormatInt(id, 10)})
		}
		for _, id := range q.Columns {
			e.Columns = append(e.Columns, survey.NamedItem{ID: id, Name: strconv.FormatInt(id, 10)})
		}
		if q.Group != 0 {
			groups[q.ID] = q.Group
		}
		qs = append(qs, e)
	}
	answers := map[int64]json.RawMessage{}
	for k, v := range c.Answers {
		id, _ := strconv.ParseInt(k, 10, 64)
		answers[id] = v
	}
	return qs, groups, answers
}

func TestShownCases(t *testing.T) {
	t.Parallel()
	for _, c := range conditionCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			qs, groups, answers := c.survey()
			shown := survey.Shown(qs, groups, answers)
			var got []int64
			for _, q := range qs {
				if shown[q.ID] {
					got = append(got, q.ID)
				}
			}
			if !slices.Equal(got, c.Shown) {
				t.Errorf("shown %v, want %v", got, c.Shown)
			}
		})
	}
}

// TestCasesAreValidRules: every rule of the table passes the owner API's
// validation, so the table tests rules a survey can hold.
func TestCasesAreValidRules(t *testing.T) {
	t.Parallel()
	for _, c := range conditionCases(t) {
		qs, _, _ := c.survey()
		order := make([]int64, len(qs))
		byID := map[int64]survey.Element{}
		for i, q := range qs {
			order[i] = q.ID
			byID[q.ID] = q
		}
		for _, q := range qs {
			if err := survey.ValidateConditions(q, order, byID); err != nil {
				t.Errorf("%s: element %d: %v", c.Name, q.ID, err)
			}
		}
	}
}
