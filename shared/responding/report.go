package responding

import (
	"encoding/json"
	"sort"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// ReportAttrs are the aggregate attributes of the public report
// (store.ChoiceCount, store.ScaleCount) a response's checked answers add
// one to: each choice picked of a multiple choice, picture choice or dropdown,
// and the value of an opinion scale or rating. Other answers are not
// charted.
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
