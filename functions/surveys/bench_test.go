package surveys_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// BenchmarkSurveyDetail: the detail is one Query of the survey's item
// collection, with 0 or 200 elements alike; handler-ns/op is the handler's
// own time, the emulator's subtracted.
func BenchmarkSurveyDetail(b *testing.B) {
	for _, n := range []int{0, 200} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
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
			var group int64
			for i := range n {
				t, p := survey.TypeText, survey.Placement{}
				switch {
				case i%20 == 0:
					t = survey.TypeGroup
				case group != 0 && i%20 < 5:
					p.Group = &group
				}
				e := survey.NewElement(t)
				e.Title = fmt.Sprintf("Question %d with a realistic title of some length", i)
				e.Description = "A description that a survey owner would write."
				ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, p)
				if err != nil {
					b.Fatal(err)
				}
				if t == survey.TypeGroup {
					group = ch.Element.ID
				}
			}
			h := testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now}))
			path := fmt.Sprintf("/api/v2/surveys/%d/", sv.ID)
			serve := func() (*awsenv.Calls, time.Duration, int) {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Authorization", "API-Key "+key)
				ctx, calls := awsenv.WithCalls(req.Context())
				rec := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(rec, req.WithContext(ctx))
				if rec.Code != 200 {
					b.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body)
				}
				return calls, time.Since(start) - calls.Elapsed(), rec.Body.Len()
			}
			serve() // warm the key cache
			var dynamo, size int
			var own time.Duration
			b.ReportAllocs()
			for b.Loop() {
				calls, d, n := serve()
				dynamo += calls.DynamoDB()
				own += d
				size = n
			}
			b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
			b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
			b.ReportMetric(float64(size), "response-bytes")
		})
	}
}

// BenchmarkCopySurvey: copying a survey of 50, 200 and 500 elements (with
// conditions, choices, rows and columns; pro settings and variables)
// through POST /api/v2/surveys/{id}/copy/: DynamoDB calls, transactions
// and BatchWriteItem calls per copy (they grow as elements/25); the
// process's CPU time per copy (handler, SDK and JSON: the emulator is
// another process; the copy's writes run four at a time, so wall time
// minus time in calls would undercount); and the whole request's wall
// time on the emulator.
func BenchmarkCopySurvey(b *testing.B) {
	for _, n := range []int{50, 200, 500} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			st := testenv.Store(b)
			ctx := context.Background()
			a, key := testenv.NewAccount(b, survey.PlanPro)
			f, err := st.CreateFolder(ctx, a.ID, "bench", nil)
			if err != nil {
				b.Fatal(err)
			}
			src := makeBigSurvey(b, st, a.ID, f.ID, n)
			h := testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now}))
			path := copyPath(src.id)
			serve := func() (*awsenv.Calls, time.Duration, time.Duration) {
				req := httptest.NewRequest("POST", path, nil)
				req.Header.Set("Authorization", "API-Key "+key)
				ctx, calls := awsenv.WithCalls(req.Context())
				rec := httptest.NewRecorder()
				cpu0 := processCPU()
				start := time.Now()
				h.ServeHTTP(rec, req.WithContext(ctx))
				wall := time.Since(start)
				cpu := processCPU() - cpu0
				if rec.Code != 201 {
					b.Fatalf("POST %s = %d %s", path, rec.Code, rec.Body)
				}
				return calls, cpu, wall
			}
			serve() // warm the key cache and the id leases
			var dynamo, tx, batches int
			var cpu, wall time.Duration
			for b.Loop() {
				calls, c, w := serve()
				dynamo += calls.DynamoDB()
				ops := calls.Ops()
				tx += ops["DynamoDB.TransactWriteItems"]
				batches += ops["DynamoDB.BatchWriteItem"]
				cpu += c
				wall += w
			}
			b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
			b.ReportMetric(float64(tx)/float64(b.N), "transactions/op")
			b.ReportMetric(float64(batches)/float64(b.N), "batch-writes/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "handler-cpu-ns/op")
			b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "request-ms/op")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
