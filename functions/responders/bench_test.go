package responders_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// fiftyQuestions makes a survey of 50 questions of every answerable type
// (file uploads aside) and returns its slug, its id and a body of answers
// to all of them.
func fiftyQuestions(b *testing.B, f fixture) (slug string, sid int64, answers map[string]any) {
	b.Helper()
	ctx := context.Background()
	slug, sid = f.survey(b, nil)
	answers = map[string]any{}
	for i := range 50 {
		var e survey.Element
		switch i % 7 {
		case 0:
			id := f.textQuestion(b, sid, fmt.Sprintf("Text %d", i), true)
			answers[strconv.FormatInt(id, 10)] = strings.Repeat("پاسخ ", 20)
			continue
		case 1:
			e = f.choiceQuestion(b, sid, survey.TypeMultipleChoice, -1, "A", "B", "C", "D", "E")
			answers[strconv.FormatInt(e.ID, 10)] = []int64{e.Choices[2].ID}
		case 2:
			e = f.choiceQuestion(b, sid, survey.TypeRanking, -1, "A", "B", "C", "D", "E")
			answers[strconv.FormatInt(e.ID, 10)] = []int64{e.Choices[4].ID, e.Choices[0].ID, e.Choices[3].ID, e.Choices[1].ID, e.Choices[2].ID}
		case 3:
			e = f.choiceQuestion(b, sid, survey.TypeDropdown, -1, "A", "B", "C", "D", "E")
			answers[strconv.FormatInt(e.ID, 10)] = e.Choices[1].ID
		case 4, 5:
			t := map[int]survey.ElementType{4: survey.TypeOpinionScale, 5: survey.TypeRating}[i%7]
			el := survey.NewElement(t)
			el.Title = "Scale"
			ch, err := f.st.CreateElement(ctx, f.aid, sid, el, survey.Placement{})
			if err != nil {
				b.Fatal(err)
			}
			answers[strconv.FormatInt(ch.Element.ID, 10)] = 3
		case 6:
			ids, err := f.st.NewIDs(ctx, "choice", 6)
			if err != nil {
				b.Fatal(err)
			}
			el := survey.NewElement(survey.TypeMatrix)
			el.Title = "Matrix"
			el.Rows = []survey.NamedItem{{ID: ids[0], Name: "r1"}, {ID: ids[1], Name: "r2"}, {ID: ids[2], Name: "r3"}}
			el.Columns = []survey.NamedItem{{ID: ids[3], Name: "c1"}, {ID: ids[4], Name: "c2"}, {ID: ids[5], Name: "c3"}}
			ch, err := f.st.CreateElement(ctx, f.aid, sid, el, survey.Placement{})
			if err != nil {
				b.Fatal(err)
			}
			answers[strconv.FormatInt(ch.Element.ID, 10)] = map[string]int64{
				strconv.FormatInt(ids[0], 10): ids[3], strconv.FormatInt(ids[1], 10): ids[5], strconv.FormatInt(ids[2], 10): ids[4]}
		}
	}
	return slug, sid, answers
}

// sessionBody is a submission's body under a session of its own: a
// session records one response (contract section 11).
func (f fixture) sessionBody(b *testing.B, slug string, answers map[string]any) string {
	b.Helper()
	return mustJSON(b, map[string]any{"session": f.session(b, slug, nil), "answers": answers})
}

// BenchmarkSubmit is one submission of 50 answers on a warm container:
// DynamoDB and KMS calls per submission (target: one Query and one
// TransactWriteItems; the id lease adds 1/256) and the handler's own time
// (the emulator's subtracted).
func BenchmarkSubmit(b *testing.B) {
	f := newFixture(b)
	slug, sid, answers := fiftyQuestions(b, f)
	body := f.sessionBody(b, slug, answers)
	f.submit(b, slug, newKey(), body).submitted(b) // warm: slug, data key, id lease
	var dynamo, kmsCalls, n int
	var own time.Duration
	ops := map[string]int{}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		body = f.sessionBody(b, slug, answers) // a session records one response
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
		kmsCalls += calls.KMS()
		for op, c := range calls.Ops() {
			ops[op] += c
		}
		n++
	}
	b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
	b.ReportMetric(float64(kmsCalls)/float64(n), "kms-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
	b.ReportMetric(float64(len(body)), "body-bytes")
	b.Logf("%d submissions of 50 answers: %v", n, ops)
	if got, _ := f.stored(b, sid); got != n+1 {
		b.Errorf("%d responses stored, want %d", got, n+1)
	}
}

// BenchmarkSubmitConcurrent is 20 clients submitting to one survey at once
// through one container, on the emulator: submissions per second and the
// latency of one, p50 and p99 (loopback, in-process; the emulator takes
// one request at a time).
func BenchmarkSubmitConcurrent(b *testing.B) {
	const clients = 20
	f := newFixture(b)
	slug, sid := f.survey(b, nil)
	q := f.textQuestion(b, sid, "Q", true)
	answers := map[string]any{strconv.FormatInt(q, 10): "concurrent"}
	f.submit(b, slug, newKey(), f.sessionBody(b, slug, answers)).submitted(b)
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  int
	)
	b.SetParallelism(max(1, clients/max(1, runtime.GOMAXPROCS(0))))
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := f.sessionBody(b, slug, answers) // a session records one response
			t0 := time.Now()
			r := f.submit(b, slug, newKey(), body)
			d := time.Since(t0)
			mu.Lock()
			latencies = append(latencies, d)
			if r.code != 201 {
				failures++
			}
			mu.Unlock()
		}
	})
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "submissions/s")
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	if failures > 0 {
		b.Errorf("%d of %d submissions failed", failures, len(latencies))
	}
	if got, count := f.stored(b, sid); got != len(latencies)+1 || count != int64(got) {
		b.Errorf("%d responses stored, count %d, want %d", got, count, len(latencies)+1)
	}
}

// BenchmarkView is the responder's GET of a survey of 50 questions on a
// warm container: one Query and one UpdateItem of the views item.
func BenchmarkView(b *testing.B) {
	f := newFixture(b)
	slug, _, _ := fiftyQuestions(b, f)
	send(b, f.h, "GET", surveyPath(slug), "")
	var dynamo, size int
	var own time.Duration
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", surveyPath(slug), nil)
		ctx, calls := awsenv.WithCalls(req.Context())
		rec := httptest.NewRecorder()
		t0 := time.Now()
		f.h.ServeHTTP(rec, req.WithContext(ctx))
		own += time.Since(t0) - calls.Elapsed()
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		dynamo += calls.DynamoDB()
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(b.N), "handler-ns/op")
	b.ReportMetric(float64(size), "response-bytes")
}

// BenchmarkSession starts a session with a code on a warm container: one
// BatchGetItem of the survey and its settings, one GetItem of the code, no
// KMS call.
func BenchmarkSession(b *testing.B) {
	f := newFixture(b)
	slug, _ := f.survey(b, map[string]any{"code_auth": true}, "BENCH")
	f.session(b, slug, map[string]any{"code": "BENCH"})
	var dynamo, kmsCalls int
	for b.Loop() {
		r := f.startSession(b, slug, map[string]any{"code": "BENCH"})
		if r.code != 201 {
			b.Fatalf("%d %s", r.code, r.body)
		}
		dynamo += r.calls
		kmsCalls += r.ops["KMS.Decrypt"] + r.ops["KMS.GenerateDataKey"]
	}
	b.ReportMetric(float64(dynamo)/float64(b.N), "dynamodb-calls/op")
	b.ReportMetric(float64(kmsCalls)/float64(b.N), "kms-calls/op")
}
