package pages

import (
	"encoding/json"
	"net/url"
	"strconv"
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

// FuzzStepFields: a plain form's step reads only the fields of the
// questions its page showed, whatever else the body holds, and the
// answers it keeps write back as fields that read as the same answers.
func FuzzStepFields(f *testing.F) {
	f.Add("a1=hello&a2=10&a2=11&r3_30=2&r3_31=1&a4=5&m5_50=60&a6=x&a7=y&r77_1=1&m_=&a=")
	f.Add("a1_2=x&r3=1&m5_50_1=2&a%00=1")
	els := map[int64]survey.Element{
		1: {ID: 1, Type: survey.TypeText}, 2: {ID: 2, Type: survey.TypeMultipleChoice, Choices: []survey.ChoiceItem{{ID: 10}, {ID: 11}}},
		3: {ID: 3, Type: survey.TypeRanking, Choices: []survey.ChoiceItem{{ID: 30}, {ID: 31}}},
		4: {ID: 4, Type: survey.TypeRating, RatingMax: 5}, 5: {ID: 5, Type: survey.TypeMatrix, Rows: []survey.NamedItem{{ID: 50}}, Columns: []survey.NamedItem{{ID: 60}}},
		6: {ID: 6, Type: survey.TypeDropdown, Choices: []survey.ChoiceItem{{ID: 61}}},
	}
	c := store.SurveyCollection{Elements: els, Layout: survey.Layout{Questions: []int64{1, 2, 3, 4, 5, 6}}}
	questions := c.Layout.QuestionElements(els)
	asked := map[int64]bool{1: true, 3: true, 5: true}
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		got := formAnswers(onPage(form, asked), c)
		for id := range got {
			if id != "1" && id != "3" && id != "5" {
				t.Fatalf("an answer to %s, a question the page did not show", id)
			}
		}
		kept, _, err := survey.CheckAsked(questions, nil, got, asked)
		if err != nil {
			if survey.ErrorCode(err) != survey.EINVALID {
				t.Fatalf("the checks answer %v, want only 400s", err)
			}
			return
		}
		byKey := map[string]json.RawMessage{}
		for id, v := range kept {
			byKey[strconv.FormatInt(id, 10)] = v
		}
		again, _, err := survey.CheckAsked(questions, nil, formAnswers(answersForm(questions, byKey), c), asked)
		if err != nil {
			t.Fatalf("kept answers written back do not read: %v", err)
		}
		a, _ := json.Marshal(kept)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("kept %s, written back and read %s", a, b)
		}
	})
}
