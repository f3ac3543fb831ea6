package folders_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"surveyservice/functions/folders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// benchAccount makes an account with the given folders and surveys (spread
// evenly), and a warm handler for it.
func benchAccount(b *testing.B, nFolders, nSurveys int) (http.Handler, string) {
	b.Helper()
	st := testenv.Store(b)
	ctx := context.Background()
	a, key := testenv.NewAccount(b, survey.PlanPro)
	var fids []int64
	for i := range nFolders {
		f, err := st.CreateFolder(ctx, a.ID, fmt.Sprintf("Folder %d", i), nil)
		if err != nil {
			b.Fatal(err)
		}
		fids = append(fids, f.ID)
	}
	svs := make([]survey.Survey, nSurveys)
	for i := range svs {
		svs[i] = survey.Survey{AccountID: a.ID, FolderID: fids[i%len(fids)], Name: fmt.Sprintf("Survey %d", i), Language: 1, Theme: survey.DefaultTheme()}
	}
	for start := 0; start < len(svs); start += 500 {
		if _, err := st.ImportSurveys(ctx, svs[start:min(start+500, len(svs))]); err != nil {
			b.Fatal(err)
		}
	}
	h := testenv.Conform(folders.New(folders.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now}))
	benchServe(b, h, key) // warm the key cache: the figures are the route's own
	return h, key
}

func benchServe(b *testing.B, h http.Handler, key string) (*httptest.ResponseRecorder, *awsenv.Calls, time.Duration) {
	req := httptest.NewRequest("GET", "/api/folders/", nil)
	req.Header.Set("Authorization", "API-Key "+key)
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req.WithContext(ctx))
	own := time.Since(start) - calls.Elapsed()
	if rec.Code != 200 {
		b.Fatalf("GET /api/folders/ = %d %s", rec.Code, rec.Body)
	}
	return rec, calls, own
}

// BenchmarkFolderList: the DynamoDB calls of the list stay one Query (plus
// 1 MB paging) however many folders and surveys, up to the 1,500 live
// surveys an account may hold (survey.DefaultAccountLimits); handler-ns/op
// is the handler's own time, the emulator's subtracted.
func BenchmarkFolderList(b *testing.B) {
	for _, size := range []struct{ folders, surveys int }{{1, 1}, {50, 1500}} {
		b.Run(fmt.Sprintf("folders=%d/surveys=%d", size.folders, size.surveys), func(b *testing.B) {
			h, key := benchAccount(b, size.folders, size.surveys)
			var own time.Duration
			var dynamo, bytes int
			b.ReportAllocs()
			for b.Loop() {
				rec, calls, d := benchServe(b, h, key)
				own += d
				dynamo += calls.DynamoDB()
				bytes = rec.Body.Len()
			}
			b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
			b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
			b.ReportMetric(float64(bytes), "response-bytes")
		})
	}
}
