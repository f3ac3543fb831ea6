package templates_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"surveyservice/shared/awsenv"
)

// benchRoute serves one path repeatedly and reports, besides ns/op (which
// includes the emulator), the handler's own time with the time spent waiting
// on DynamoDB subtracted, and the DynamoDB calls per request.
func benchRoute(b *testing.B, path string) {
	h := setup(b)
	var own time.Duration
	var calls int
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		ctx, c := awsenv.WithCalls(req.Context())
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req.WithContext(ctx))
		own += time.Since(start) - c.Elapsed()
		calls += c.DynamoDB()
		if rec.Code != 200 {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
	}
	b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
	b.ReportMetric(float64(calls)/float64(b.N), "dynamodb-calls/op")
}

func BenchmarkTemplateDetail(b *testing.B) {
	setup(b)
	benchRoute(b, detailPath(bySlugWithSimilar(b, true).URLSlug))
}

func BenchmarkTemplateList(b *testing.B) {
	benchRoute(b, "/api/templates/?page_size=10&language=1")
}
