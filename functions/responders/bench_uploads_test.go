package responders_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
)

// uploadsBenchFixture is a warm container with the uploads bucket, a
// survey with a text question and a file-upload question, and a session.
func uploadsBenchFixture(b *testing.B) (f fixture, slug string, text, file int64, session string) {
	f = newFixture(b)
	now := f.st.Now
	f.h = testenv.Conform(responders.New(responders.Deps{Store: f.st, Sealer: f.sealer, Now: now, Uploads: testenv.Uploads(b)}))
	slug, sid := f.survey(b, nil)
	text = f.textQuestion(b, sid, "Say", false)
	file = f.fileQuestion(b, sid, 0, nil, false)
	return f, slug, text, file, f.session(b, slug, nil)
}

// s3Calls counts the S3 requests among a request's calls (a presign is
// signed locally and sends none).
func s3Calls(ops map[string]int) int {
	n := 0
	for op, c := range ops {
		if strings.HasPrefix(op, "S3.") && !strings.Contains(op, "$") {
			n += c
		}
	}
	return n
}

// BenchmarkUploadRoute is POST .../uploads/ on a warm container: the
// handler's own time (the emulator's subtracted) and its calls (target:
// the survey's one Query; the presign and the seal are local).
func BenchmarkUploadRoute(b *testing.B) {
	f, slug, _, file, session := uploadsBenchFixture(b)
	body := mustJSON(b, map[string]any{"session": session, "element": file, "file_name": "cv.pdf", "content_type": "application/pdf", "size": 123456})
	var dynamo, s3, n int
	var own time.Duration
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", uploadsPath(slug), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		ctx, calls := awsenv.WithCalls(req.Context())
		rec := httptest.NewRecorder()
		start := time.Now()
		f.h.ServeHTTP(rec, req.WithContext(ctx))
		own += time.Since(start) - calls.Elapsed()
		if rec.Code != 201 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		dynamo += calls.DynamoDB()
		s3 += s3Calls(calls.Ops())
		n++
	}
	b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
	b.ReportMetric(float64(s3)/float64(n), "s3-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
}

// BenchmarkSubmitUpload is a submission on a warm container without and
// with an upload answer: DynamoDB and S3 calls per submission (the upload
// answer adds one HeadObject and nothing else: the dispatch keeps the file
// from the stream) and the handler's own time.
func BenchmarkSubmitUpload(b *testing.B) {
	f, slug, text, file, _ := uploadsBenchFixture(b)
	// body is a submission under a session of its own (a session records
	// one response), with a file of its own when withFile (a file belongs
	// to the first response that carries it).
	body := func(b *testing.B, withFile bool) string {
		session := f.session(b, slug, nil)
		answers := map[string]any{strconv.FormatInt(text, 10): "hello"}
		if withFile {
			content := []byte("%PDF-1.4 bench")
			r, id, post := presign(b, f, slug, map[string]any{"session": session, "element": file, "file_name": "cv.pdf", "content_type": "application/pdf", "size": len(content)})
			if r.code != 201 {
				b.Fatalf("presign: %d %s", r.code, r.body)
			}
			if code := testenv.PostFile(b, post, content); code/100 != 2 {
				b.Fatalf("POST: %d", code)
			}
			answers[strconv.FormatInt(file, 10)] = id
		}
		return mustJSON(b, map[string]any{"session": session, "answers": answers})
	}
	for _, tc := range []struct {
		name     string
		withFile bool
	}{{"without", false}, {"with", true}} {
		b.Run(tc.name, func(b *testing.B) {
			f.submit(b, slug, newKey(), body(b, tc.withFile)).submitted(b) // warm
			var dynamo, s3, n int
			var own time.Duration
			ops := map[string]int{}
			for b.Loop() {
				b.StopTimer()
				body := body(b, tc.withFile)
				b.StartTimer()
				req := httptest.NewRequest("POST", responsesPath(slug), strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", newKey())
				ctx, calls := awsenv.WithCalls(req.Context())
				rec := httptest.NewRecorder()
				start := time.Now()
				f.h.ServeHTTP(rec, req.WithContext(ctx))
				own += time.Since(start) - calls.Elapsed()
				if rec.Code != 201 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
				dynamo += calls.DynamoDB()
				s3 += s3Calls(calls.Ops())
				for op, c := range calls.Ops() {
					ops[op] += c
				}
				n++
			}
			b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
			b.ReportMetric(float64(s3)/float64(n), "s3-calls/op")
			b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
			b.Logf("%d submissions %s an upload answer: %v", n, tc.name, ops)
		})
	}
}
