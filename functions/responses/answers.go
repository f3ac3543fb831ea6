package responses

import (
	"encoding/json"

	"surveyservice/shared/survey"
)

// TEMPORARY until i11-choices lands (survey.ElementType.Answerable and
// survey.Element.AnswerText): the types that take an answer, and answers
// shown as their JSON.
func answerable(t survey.ElementType) bool {
	switch t {
	case 2, 3, 4, 5, 6, 7, 10, 11, 12:
		return true
	}
	return false
}

func answerText(e survey.Element, a json.RawMessage) string {
	var s string
	if e.Type == survey.TypeText && json.Unmarshal(a, &s) == nil {
		return s
	}
	return string(a)
}
