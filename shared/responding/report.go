package responding

import (
	"encoding/json"
	"sort"
	"strconv"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// ReportAttrs are the aggregate attributes of the public report a
// response's checked answers add to (store.ReportAttr): one to each choice
// picked of a multiple choice, picture choice or dropdown
// (store.ChoiceCount), to the value of an opinion scale or rating
// (store.ScaleCount), to the column picked in each answered row of a
// matrix (store.MatrixCount), and, for a ranking, one to each choice's
// count of rankings (store.RankCount) and its rank (1 for first) to the
// sum of its ranks (store.RankSum). Other answers are not charted.
func ReportAttrs(elements map[int64]survey.Element, answers map[int64]json.RawMessage) []string {
	var out []string
	for eid, raw := range answers {
		e, ok := elements[eid]
		if !ok {
			continue
		}
		switch e.Type {
		case survey.TypeMultipleChoice, survey.TypePictureChoice, survey.TypeDropdown:
			var ids []int64
			if json.Unmarshal(raw, &ids) != nil {
				var one int64
				if json.Unmarshal(raw, &one) != nil {
					continue
				}
				ids = []int64{one}
			}
			for _, c := range ids {
				out = append(out, store.ChoiceCount(eid, c))
			}
		case survey.TypeMatrix:
			var rows map[string]int64
			if json.Unmarshal(raw, &rows) != nil {
				continue
			}
			for k, col := range rows {
				if row, err := strconv.ParseInt(k, 10, 64); err == nil {
					out = append(out, store.MatrixCount(eid, row, col))
				}
			}
		case survey.TypeRanking:
			var ids []int64
			if json.Unmarshal(raw, &ids) != nil {
				continue
			}
			for i, c := range ids {
				out = append(out, store.RankCount(eid, c), store.RankSum(eid, c, int64(i+1)))
			}
		case survey.TypeOpinionScale, survey.TypeRating:
			var v int64
			if json.Unmarshal(raw, &v) == nil {
				out = append(out, store.ScaleCount(eid, v))
			}
		}
	}
	sort.Strings(out)
	return out
}
