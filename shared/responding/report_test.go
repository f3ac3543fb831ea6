package responding_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// TestReportAttrs: the counted answers are the picked choices of choice
// questions and the values of scales and ratings; others are not charted.
func TestReportAttrs(t *testing.T) {
	t.Parallel()
	els := map[int64]survey.Element{
		1: {ID: 1, Type: survey.TypeMultipleChoice}, 2: {ID: 2, Type: survey.TypeDropdown},
		3: {ID: 3, Type: survey.TypeRating}, 4: {ID: 4, Type: survey.TypeText}, 5: {ID: 5, Type: survey.TypeRanking},
	}
	got := responding.ReportAttrs(els, map[int64]json.RawMessage{
		1: json.RawMessage(`[10,11]`), 2: json.RawMessage(`20`), 3: json.RawMessage(`4`),
		4: json.RawMessage(`"x"`), 5: json.RawMessage(`[1,2]`), 9: json.RawMessage(`1`),
	})
	want := []string{"c_1_10", "c_1_11", "c_2_20", "s_3_4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReportAttrs = %v, want %v", got, want)
	}
}
