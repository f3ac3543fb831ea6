package elements_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/elements"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/testenv"
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
	h = elements.New(api.NewAuthenticator(st), st)
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
