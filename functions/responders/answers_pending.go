package responders

// TEMPORARY, until branch i11-choices lands survey.CheckAnswers (its commit
// "survey: answers ..."): a stand-in of its signature that takes text
// answers only, so that everything around it can be built and tested. The
// merge replaces it with survey.CheckAnswers and deletes this file.

import (
	"encoding/json"
	"strconv"
	"strings"

	"surveyservice/shared/survey"
)

func checkAnswers(questions []survey.Element, answers map[string]json.RawMessage) (map[int64]json.RawMessage, error) {
	byID := map[string]survey.Element{}
	for _, e := range questions {
		byID[strconv.FormatInt(e.ID, 10)] = e
	}
	errs := map[string]any{}
	out := map[int64]json.RawMessage{}
	for id, raw := range answers {
		e, ok := byID[id]
		if !ok {
			errs[id] = []string{"Unknown question."}
			continue
		}
		if e.Type != survey.TypeText {
			errs[id] = []string{"This question takes no answer."}
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			errs[id] = []string{"Not a valid string."}
			continue
		}
		if s = strings.TrimSpace(s); s != "" {
			b, _ := json.Marshal(s)
			out[e.ID] = b
		}
	}
	for _, e := range questions {
		if _, ok := out[e.ID]; !ok && e.AnswerRequired {
			if _, failed := errs[strconv.FormatInt(e.ID, 10)]; !failed {
				errs[strconv.FormatInt(e.ID, 10)] = []string{"This question requires an answer."}
			}
		}
	}
	if len(errs) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"answers": errs}}
	}
	return out, nil
}
