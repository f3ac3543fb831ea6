package survey_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"surveyservice/shared/survey"
)

// mixedSurvey is 50 questions of the answerable types in turn, each choice
// element with 10 choices, each matrix 5 rows by 5 columns, with an answer
// for every one.
func mixedSurvey() ([]survey.Element, map[string]json.RawMessage) {
	types := []survey.ElementType{2, 3, 4, 5, 6, 7, 10, 12}
	var qs []survey.Element
	answers := map[string]json.RawMessage{}
	next := int64(1000)
	for i := range 50 {
		e := survey.NewElement(types[i%len(types)])
		e.ID = int64(i + 1)
		e.AnswerRequired = i%2 == 0
		var choices []int64
		if e.Type == 3 || e.Type == 4 || e.Type == 5 || e.Type == 10 {
			for j := range 10 {
				next++
				e.Choices = append(e.Choices, survey.ChoiceItem{ID: next, Name: fmt.Sprintf("Choice %d", j), Order: j + 1})
				choices = append(choices, next)
			}
		}
		var a string
		switch e.Type {
		case 2:
			a = `"  A fairly ordinary answer of a responder, with some words in it: سلام دنیا  "`
		case 3:
			e.AllowMultipleSelect, e.MaxSelectableChoices = true, 3
			a = fmt.Sprintf("[%d,%d,%d]", choices[7], choices[2], choices[5])
		case 4:
			a = fmt.Sprintf("[%d]", choices[4])
		case 5:
			b, _ := json.Marshal(choices)
			a = string(b)
		case 6:
			a = "7"
		case 7:
			a = "4"
		case 10:
			a = fmt.Sprint(choices[9])
		case 12:
			m := map[string]int64{}
			for j := range 5 {
				next++
				e.Rows = append(e.Rows, survey.NamedItem{ID: next, Name: fmt.Sprintf("Row %d", j)})
			}
			for j := range 5 {
				next++
				e.Columns = append(e.Columns, survey.NamedItem{ID: next, Name: fmt.Sprintf("Column %d", j)})
			}
			for j, r := range e.Rows {
				m[fmt.Sprint(r.ID)] = e.Columns[j].ID
			}
			b, _ := json.Marshal(m)
			a = string(b)
		}
		qs = append(qs, e)
		answers[fmt.Sprint(e.ID)] = json.RawMessage(a)
	}
	return qs, answers
}

// BenchmarkCheckAnswers: the handler CPU of validating one submission of
// 50 answers of mixed types (the part of a submission that is not I/O).
func BenchmarkCheckAnswers(b *testing.B) {
	qs, answers := mixedSurvey()
	if _, err := survey.CheckAnswers(qs, nil, answers); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := survey.CheckAnswers(qs, nil, answers); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50, "ns/answer")
}

// BenchmarkAnswerText: rendering the 50 answers of one response for a CSV
// row or a results-table row.
func BenchmarkAnswerText(b *testing.B) {
	qs, answers := mixedSurvey()
	canon, err := survey.CheckAnswers(qs, nil, answers)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range qs {
			_ = e.AnswerText(canon[e.ID])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50, "ns/answer")
}
