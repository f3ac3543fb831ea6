package pages

import (
	"encoding/json"
	"net/url"
	"testing"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// FuzzFormAnswers: any form body decodes into answers without panicking,
// each answer valid JSON of one of the question's elements, for the
// shared checks (survey.CheckAnswers) to judge.
func FuzzFormAnswers(f *testing.F) {
	f.Add("a1=hello&a2=10&a2=11&r3_30=2&r3_31=1&a4=5&m5_50=60&a6=x")
	f.Add("a2=%zz&r3_30=-1&m5_50=&a1=")
	f.Add("")
	els := map[int64]survey.Element{
		1: {ID: 1, Type: survey.TypeText}, 2: {ID: 2, Type: survey.TypeMultipleChoice},
		3: {ID: 3, Type: survey.TypeRanking, Choices: []survey.ChoiceItem{{ID: 30}, {ID: 31}}},
		4: {ID: 4, Type: survey.TypeRating}, 5: {ID: 5, Type: survey.TypeMatrix, Rows: []survey.NamedItem{{ID: 50}}},
		6: {ID: 6, Type: survey.TypeDropdown},
	}
	c := store.SurveyCollection{Elements: els, Layout: survey.Layout{Questions: []int64{1, 2, 3, 4, 5, 6}}}
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		for id, raw := range formAnswers(form, c) {
			if !json.Valid(raw) {
				t.Fatalf("answer %s is not JSON: %s", id, raw)
			}
			if _, ok := map[string]bool{"1": true, "2": true, "3": true, "4": true, "5": true, "6": true}[id]; !ok {
				t.Fatalf("an answer to %s, no question of the survey", id)
			}
		}
		if _, err := survey.CheckAnswers(c.Layout.QuestionElements(els), c.Layout.Members, formAnswers(form, c)); err != nil && survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("the checks answer %v, want only 400s", err)
		}
	})
}
