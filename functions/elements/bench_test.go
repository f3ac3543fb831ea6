package elements_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/elements"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// benchSurvey makes a survey holding n questions and a warm handler.
func benchSurvey(b *testing.B, n int) (h http.Handler, key string, sid int64, ids []int64) {
	b.Helper()
	st := testenv.Store(b)
	ctx := context.Background()
	a, key := testenv.NewAccount(b, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "bench", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		e := survey.NewElement(survey.TypeText)
		e.Title = fmt.Sprintf("Question %d", i)
		ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, ch.Element.ID)
	}
	h = testenv.Conform(elements.New(elements.Deps{Auth: api.NewAuthenticator(st), Store: st}))
	benchDo(b, h, key, "GET", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.ID), "", 200) // warm the key cache
	return h, key, sv.ID, ids
}

func benchDo(b *testing.B, h http.Handler, key, method, path, body string, want int) (*awsenv.Calls, time.Duration) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "API-Key "+key)
	req.Header.Set("Content-Type", "application/json")
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req.WithContext(ctx))
	own := time.Since(start) - calls.Elapsed()
	if rec.Code != want {
		b.Fatalf("%s %s = %d %s", method, path, rec.Code, rec.Body)
	}
	return calls, own
}

// BenchmarkCreateElement: the calls of one insert into a survey of 200
// elements, at the end and after a prior question. The count is one read of
// the layout and one transaction (plus, once per 16 creates, an id lease).
func BenchmarkCreateElement(b *testing.B) {
	for _, where := range []string{"end", "after-prior"} {
		b.Run("survey=200/"+where, func(b *testing.B) {
			h, key, sid, ids := benchSurvey(b, 200)
			path := fmt.Sprintf("/api/v2/surveys/%d/questions/", sid)
			body := `{"title": "New", "type": 2}`
			if where == "after-prior" {
				body = fmt.Sprintf(`{"title": "New", "type": 2, "prior_question": %d}`, ids[10])
			}
			var dynamo int
			var own time.Duration
			for b.Loop() {
				calls, d := benchDo(b, h, key, "POST", path, body, 201)
				dynamo += calls.DynamoDB()
				own += d
			}
			b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
			b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
		})
	}
}

// BenchmarkChoices: the calls of creating a multiple choice element with
// 200 choices (one read of the layout, one transaction, and one id
// allocation for the 200 choice ids), and of a PATCH that keeps all 200
// and renames them (one read, one transaction: no new ids). A fresh survey
// is taken every 100 creates, so the survey's size bound is never reached.
func BenchmarkChoices(b *testing.B) {
	var items strings.Builder
	for i := range 200 {
		if i > 0 {
			items.WriteByte(',')
		}
		fmt.Fprintf(&items, `{"name":"Choice number %03d","alt_name":"گزینه %03d"}`, i, i)
	}
	create := `{"title":"Pick","type":3,"allow_multiple_select":true,"choices":[` + items.String() + `]}`
	ctx := context.Background()
	st := testenv.Store(b)
	a, key := testenv.NewAccount(b, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	newSurvey := func() int64 {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "bench", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			b.Fatal(err)
		}
		return sv.ID
	}
	h := testenv.Conform(elements.New(elements.Deps{Auth: api.NewAuthenticator(st), Store: st}))
	sid := newSurvey()
	benchDo(b, h, key, "GET", fmt.Sprintf("/api/v2/surveys/%d/questions/", sid), "", 200) // warm the key cache
	b.Run("create-200", func(b *testing.B) {
		var dynamo, n int
		var own time.Duration
		for b.Loop() {
			if n > 0 && n%100 == 0 {
				sid = newSurvey()
			}
			n++
			calls, d := benchDo(b, h, key, "POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sid), create, 201)
			dynamo += calls.DynamoDB()
			own += d
		}
		b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
		b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
	})
	b.Run("patch-200-kept", func(b *testing.B) {
		sid := newSurvey()
		ch, err := st.CreateElement(ctx, a.ID, sid, pick(b, create), survey.Placement{})
		if err != nil {
			b.Fatal(err)
		}
		path := fmt.Sprintf("/api/v2/surveys/%d/questions/%d/", sid, ch.Element.ID)
		var kept strings.Builder
		var dynamo, round int
		var own time.Duration
		for b.Loop() {
			round++
			kept.Reset()
			for i, c := range ch.Element.Choices {
				if i > 0 {
					kept.WriteByte(',')
				}
				fmt.Fprintf(&kept, `{"id":%d,"name":"Choice %03d, round %d"}`, c.ID, i, round)
			}
			calls, d := benchDo(b, h, key, "PATCH", path, `{"choices":[`+kept.String()+`]}`, 200)
			dynamo += calls.DynamoDB()
			own += d
		}
		b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
		b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
	})
}

// pick is the element a create body describes (its choices without ids).
func pick(b *testing.B, body string) survey.Element {
	var in struct {
		Title   string              `json:"title"`
		Type    survey.ElementType  `json:"type"`
		Choices []survey.ChoiceItem `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		b.Fatal(err)
	}
	e := survey.NewElement(in.Type)
	e.Title, e.Choices = in.Title, in.Choices
	return e
}
