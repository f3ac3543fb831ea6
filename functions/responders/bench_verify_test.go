package responders_test

import (
	"fmt"
	"testing"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/sending"
)

// BenchmarkSolveChallenge is what a solved challenge costs a client on
// this machine (contract sections 16 and 18): one proof of work at the
// service's difficulty, in Go (a browser's worker is slower). Every code
// sent spends one, so a script that solves them one after another can ask
// for at most 3600 s / this cost codes an hour from one core, before the
// budgets: client-codes/h-per-core reports it.
func BenchmarkSolveChallenge(b *testing.B) {
	salt := make([]string, 64)
	for i := range salt {
		salt[i] = fmt.Sprintf("%032x", i+1)
	}
	i := 0
	start := time.Now()
	for b.Loop() {
		challenge.Solve(salt[i%len(salt)], challenge.Difficulty)
		i++
	}
	per := time.Since(start) / time.Duration(i)
	b.ReportMetric(float64(per.Milliseconds()), "solve-ms/op")
	b.ReportMetric(float64(time.Hour/per), "client-codes/h-per-core")
}

// BenchmarkSendCode is POST verifications/ on a warm container, to a
// fresh address each time, with a solved challenge (solved outside the timer). It reports
// the DynamoDB calls of one send (the survey and guard, the challenge,
// the verification, the four budgets) and, from the budgets, the most
// messages an hour one client, one survey and one account can cause.
func BenchmarkSendCode(b *testing.B) {
	// The loop sends more than a client's or a survey's budget from one
	// address: its verifier's budgets are wider than the defaults, whose
	// figures it reports.
	wide := sending.DefaultLimits
	wide.Client.N, wide.Survey.N, wide.Account.N = 1<<30, 1<<30, 1<<30
	v := newVerifier(b, wide)
	slug, _ := v.survey(b, map[string]any{"service_auth": true})
	sess := v.session(b, slug, nil)
	var dynamo, n int
	var own time.Duration
	for b.Loop() {
		b.StopTimer()
		body := mustJSON(b, map[string]any{"session": sess, "channel": "email", "address": fmt.Sprintf("bench%d@example.com", n),
			"captcha": v.solved(b, slug)})
		b.StartTimer()
		code, d, _, o, out := measure(v.fixture, "POST", verifyPath(slug), body)
		if code != 202 {
			b.Fatalf("%d %s", code, out)
		}
		dynamo, own, n = dynamo+d, own+o, n+1
	}
	l := sending.DefaultLimits
	b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
	b.ReportMetric(float64(l.Client.N)*float64(time.Hour)/float64(l.Client.Per), "client-msgs/h")
	b.ReportMetric(float64(l.Survey.N)*float64(time.Hour)/float64(l.Survey.Per), "survey-msgs/h")
	b.ReportMetric(float64(l.Account.N), "account-msgs/day")
}
