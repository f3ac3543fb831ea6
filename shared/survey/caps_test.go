package survey_test

import (
	"encoding/json"
	"testing"

	"surveyservice/shared/survey"
)

// TestQuotaMatches (contract section 25): a response matches a quota when,
// for every condition, its answer to that question includes one of those
// choices. Two conditions on one question are two such tests of one
// answer: on a question that takes several choices, one of these and one
// of those (which no single condition says); on one that takes one, a
// choice in both lists. A quota without conditions matches nothing.
func TestQuotaMatches(t *testing.T) {
	t.Parallel()
	cond := func(q int64, choices ...int64) survey.QuotaCondition {
		return survey.QuotaCondition{Question: q, Choices: choices}
	}
	iosOrAndroid, webOrDesktop := cond(1, 11, 12), cond(1, 13, 14)
	for _, tc := range []struct {
		name    string
		conds   []survey.QuotaCondition
		answers map[int64]string
		want    bool
	}{
		{"one condition, one of its choices", []survey.QuotaCondition{iosOrAndroid}, map[int64]string{1: "[12]"}, true},
		{"one condition, none of its choices", []survey.QuotaCondition{iosOrAndroid}, map[int64]string{1: "[13]"}, false},
		{"a dropdown's one id", []survey.QuotaCondition{cond(2, 21)}, map[int64]string{2: "21"}, true},
		{"unanswered", []survey.QuotaCondition{iosOrAndroid}, map[int64]string{}, false},
		{"two questions, both met", []survey.QuotaCondition{iosOrAndroid, cond(2, 21)}, map[int64]string{1: "[11]", 2: "21"}, true},
		{"two questions, one met", []survey.QuotaCondition{iosOrAndroid, cond(2, 21)}, map[int64]string{1: "[11]", 2: "22"}, false},
		{"one question twice, both met", []survey.QuotaCondition{iosOrAndroid, webOrDesktop}, map[int64]string{1: "[11,14]"}, true},
		{"one question twice, one met", []survey.QuotaCondition{iosOrAndroid, webOrDesktop}, map[int64]string{1: "[11,12]"}, false},
		{"one question twice, one answer in both", []survey.QuotaCondition{cond(2, 21, 22), cond(2, 22, 23)}, map[int64]string{2: "22"}, true},
		{"one question twice, one answer in one", []survey.QuotaCondition{cond(2, 21, 22), cond(2, 22, 23)}, map[int64]string{2: "21"}, false},
		{"no conditions", nil, map[int64]string{1: "[11]"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answers := map[int64]json.RawMessage{}
			for q, a := range tc.answers {
				answers[q] = json.RawMessage(a)
			}
			if got := (survey.Quota{Conditions: tc.conds}).Matches(answers); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
}
