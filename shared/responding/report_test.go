package responding_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestReportAttrs: the counted answers are the picked choices of choice
// questions, the values of scales and ratings, a matrix's column in each
// row and a ranking's ranks; others are not charted.
func TestReportAttrs(t *testing.T) {
	t.Parallel()
	els := map[int64]survey.Element{
		1: {ID: 1, Type: survey.TypeMultipleChoice}, 2: {ID: 2, Type: survey.TypeDropdown},
		3: {ID: 3, Type: survey.TypeRating}, 4: {ID: 4, Type: survey.TypeText}, 5: {ID: 5, Type: survey.TypeRanking},
		6: {ID: 6, Type: survey.TypeMatrix},
	}
	got := responding.ReportAttrs(els, map[int64]json.RawMessage{
		1: json.RawMessage(`[10,11]`), 2: json.RawMessage(`20`), 3: json.RawMessage(`4`),
		4: json.RawMessage(`"x"`), 5: json.RawMessage(`[2,1]`), 9: json.RawMessage(`1`),
		6: json.RawMessage(`{"30":41,"31":40}`),
	})
	want := []string{"c_1_10", "c_1_11", "c_2_20", "m_6_30_41", "m_6_31_40", "rn_5_1", "rn_5_2", "rs_5_1:2", "rs_5_2:1", "s_3_4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReportAttrs = %v, want %v", got, want)
	}
}

// TestReportAttrWeights: a report attribute adds its weight (1 without
// one); a name or weight that is not ours is refused.
func TestReportAttrWeights(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		name string
		w    int64
		ok   bool
	}{
		{"c_1_2", "c_1_2", 1, true}, {"rs_5_1:3", "rs_5_1", 3, true}, {"rs_5_1:0", "", 0, false},
		{"rs_5_1:-2", "", 0, false}, {"rs_5_1:03", "", 0, false}, {"rs_5_1:1000000", "", 0, false},
		{"Bad", "", 0, false}, {"", "", 0, false}, {"a b", "", 0, false}, {"x:", "", 0, false},
	} {
		name, w, ok := store.ReportAttr(tc.in)
		if name != tc.name || w != tc.w || ok != tc.ok {
			t.Errorf("ReportAttr(%q) = %q, %d, %v; want %q, %d, %v", tc.in, name, w, ok, tc.name, tc.w, tc.ok)
		}
	}
}
