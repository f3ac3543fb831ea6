package responders_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/awsenv"
)

// measure serves one request on a warm container and answers its status
// and what it cost: DynamoDB and KMS calls and the handler's own time
// (the emulator's subtracted).
func measure(f fixture, method, path, body string, headers ...string) (code int, dynamo, kms int, own time.Duration, out string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	start := time.Now()
	f.h.ServeHTTP(rec, req.WithContext(ctx))
	return rec.Code, calls.DynamoDB(), calls.KMS(), time.Since(start) - calls.Elapsed(), rec.Body.String()
}

// BenchmarkChallenge is GET challenge/ on a warm container: no DynamoDB
// or KMS call (the slug cached, sealing local).
func BenchmarkChallenge(b *testing.B) {
	f := newFixture(b)
	slug, _ := f.survey(b, map[string]any{"captcha_needed": true})
	f.solved(b, slug) // warm: slug, data key
	var dynamo, kmsCalls, n int
	var own time.Duration
	for b.Loop() {
		code, d, k, o, body := measure(f, "GET", challengePath(slug), "")
		if code != 200 {
			b.Fatalf("%d %s", code, body)
		}
		dynamo, kmsCalls, own, n = dynamo+d, kmsCalls+k, own+o, n+1
	}
	b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
	b.ReportMetric(float64(kmsCalls)/float64(n), "kms-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
}

// BenchmarkCaptchaSession is a session of a captcha_needed survey with a
// solved challenge (solved outside the timer: about 2^18 hashes): the
// verification is one hash, and spending it one conditional PutItem more
// than a session without one.
func BenchmarkCaptchaSession(b *testing.B) {
	f := newFixture(b)
	slug, _ := f.survey(b, map[string]any{"captcha_needed": true})
	f.session(b, slug, map[string]any{"captcha": f.solved(b, slug)}) // warm
	var dynamo, kmsCalls, n int
	var own time.Duration
	for b.Loop() {
		b.StopTimer()
		body := mustJSON(b, map[string]any{"captcha": f.solved(b, slug)})
		b.StartTimer()
		code, d, k, o, out := measure(f, "POST", sessionsPath(slug), body)
		if code != 201 {
			b.Fatalf("%d %s", code, out)
		}
		dynamo, kmsCalls, own, n = dynamo+d, kmsCalls+k, own+o, n+1
	}
	b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
	b.ReportMetric(float64(kmsCalls)/float64(n), "kms-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
}
