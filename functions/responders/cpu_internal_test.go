package responders

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// fiftyQuestionCollection is a survey as read, with 50 questions of every
// answerable type but file uploads, and answers to all of them.
func fiftyQuestionCollection() (store.SurveyCollection, map[string]any) {
	c := store.SurveyCollection{
		Survey:   survey.Survey{ID: 1, URLSlug: "slug", Created: time.Now()},
		Elements: map[int64]survey.Element{},
		Variables: []survey.Variable{
			{ID: 1, Name: "city", Type: survey.VariableString}, {ID: 2, Name: "age", Type: survey.VariableInteger},
		},
	}
	answers := map[string]any{}
	next := int64(1000)
	id := func() int64 { next++; return next }
	for i := range 50 {
		e := survey.NewElement([]survey.ElementType{survey.TypeText, survey.TypeMultipleChoice, survey.TypeRanking,
			survey.TypeDropdown, survey.TypeOpinionScale, survey.TypeRating, survey.TypeMatrix}[i%7])
		e.ID, e.Title = id(), "Question "+strconv.Itoa(i)
		key := strconv.FormatInt(e.ID, 10)
		switch e.Type {
		case survey.TypeText:
			e.AnswerRequired = true
			answers[key] = strings.Repeat("پاسخ ", 20)
		case survey.TypeMultipleChoice, survey.TypeRanking, survey.TypeDropdown:
			for j := range 5 {
				e.Choices = append(e.Choices, survey.ChoiceItem{ID: id(), Name: "Choice " + strconv.Itoa(j), Order: j + 1})
			}
			switch e.Type {
			case survey.TypeMultipleChoice:
				answers[key] = []int64{e.Choices[2].ID}
			case survey.TypeRanking:
				answers[key] = []int64{e.Choices[4].ID, e.Choices[0].ID, e.Choices[3].ID, e.Choices[1].ID, e.Choices[2].ID}
			default:
				answers[key] = e.Choices[1].ID
			}
		case survey.TypeMatrix:
			row := map[string]int64{}
			for range 3 {
				r, col := survey.NamedItem{ID: id(), Name: "row"}, survey.NamedItem{ID: id(), Name: "col"}
				e.Rows, e.Columns = append(e.Rows, r), append(e.Columns, col)
				row[strconv.FormatInt(r.ID, 10)] = col.ID
			}
			answers[key] = row
		default:
			answers[key] = 3
		}
		c.Elements[e.ID] = e
		c.Layout.Questions = append(c.Layout.Questions, e.ID)
	}
	return c, answers
}

// BenchmarkSubmissionCPU is the CPU of a submission of 50 answers without
// any AWS call: the body decoded, the answers and variables checked against
// the survey as read, the response built (what the handler does between
// its read and its transaction, and the hashes of the key and body).
func BenchmarkSubmissionCPU(b *testing.B) {
	c, answers := fiftyQuestionCollection()
	body, err := json.Marshal(map[string]any{"session": "s", "answers": answers, "variables": map[string]any{"city": "Yazd", "age": 30}})
	if err != nil {
		b.Fatal(err)
	}
	sess := responding.Session{StartedAt: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		req, err := decodeSubmit(body)
		if err != nil {
			b.Fatal(err)
		}
		sub, err := submission(c, sess, req, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if len(sub.Response.Answers) != 50 {
			b.Fatalf("%d answers", len(sub.Response.Answers))
		}
		_, _ = sha256Hex([]byte("key")), sha256Hex(body)
		if _, err := json.Marshal(sub.Response.Answers); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(body)), "body-bytes")
}

// submission builds a response's writes as the handler does
// (responding.Build).
func submission(c store.SurveyCollection, sess responding.Session, req submitRequest, now time.Time) (store.Submission, error) {
	return responding.Build(c, sess, responding.Request{Session: req.session, Answers: req.answers, Variables: req.variables}, now)
}
