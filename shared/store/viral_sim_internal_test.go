package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"surveyservice/internal/ddbsim"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// On-demand prices, us-east-1, since November 2024: a million write
// request units $0.625, a million read request units $0.125.
const (
	pricePerMillionWRU = 0.625
	pricePerMillionRRU = 0.125
)

// simSurvey is the survey the simulated responders answer.
const simSurvey = 4242

// simStore is a Store whose requests go to a ddbsim.Capture instead of
// DynamoDB, with no SDK retries (the model plays them).
func simStore(c *ddbsim.Capture) *Store {
	cfg := aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("sim", "sim", ""),
		BaseEndpoint: aws.String("http://ddbsim.invalid"),
		HTTPClient:   &http.Client{Transport: c},
		Retryer:      func() aws.Retryer { return aws.NopRetryer{} },
	}
	return New(cfg, "sim")
}

// simSizes are the stored sizes of the items a submission updates or
// checks without carrying them (the request has only their keys): a
// survey item with its settings-era fields, a report shard of a survey of
// 20 questions, the variables, an id counter.
func simSizes(pk, sk string) int {
	switch {
	case sk == SurveySK:
		return 1500
	case strings.HasPrefix(pk, "AGG#"):
		return 2500
	case sk == variablesSK:
		return 400
	case strings.HasPrefix(pk, "COUNTER#"):
		return 60
	}
	return 0
}

// simAnswers is a response to a survey of 12 questions: about 1 KB of answers.
func simAnswers(r *rand.Rand) map[int64]json.RawMessage {
	a := map[int64]json.RawMessage{}
	for q := int64(1); q <= 12; q++ {
		a[q] = json.RawMessage(fmt.Sprintf("%q", strings.Repeat("x", 20+r.IntN(100))))
	}
	return a
}

// recordSubmissions runs the store's real submission code n times against
// the capture and returns the requests of each.
func recordSubmissions(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]ddbsim.Request, n)
	for i := range out {
		key := sha256.Sum256(fmt.Appendf(nil, "key-%d", i))
		body := sha256.Sum256(fmt.Appendf(nil, "body-%d", i))
		_, err := st.Submit(context.Background(), Submission{
			Response: survey.Response{
				SurveyID: simSurvey, StartedAt: time.Now().Add(-time.Minute),
				Answers: simAnswers(r), Variables: map[string]any{"source": "channel"},
			},
			KeyHash: hex.EncodeToString(key[:]), BodyHash: hex.EncodeToString(body[:]),
			ReportAttrs: []string{ChoiceCount(1, int64(1+r.IntN(4))), ChoiceCount(2, int64(1+r.IntN(4))), ScaleCount(3, int64(1+r.IntN(5)))},
		})
		if err != nil {
			tb.Fatalf("submit %d: %v", i, err)
		}
		out[i] = c.Take()
	}
	return out
}

// simAnswer answers the reads the submission path makes: the survey item
// (open) for the fence's GetItem; nothing else is found.
func simAnswer(op string, in map[string]any) string {
	key, _ := in["Key"].(map[string]any)
	sk, _ := key["SK"].(map[string]any)
	if op == "GetItem" && sk["S"] == SurveySK {
		return fmt.Sprintf(`{"Item":{"PK":{"S":%q},"SK":{"S":"SURVEY"},"id":{"N":"%d"},"account_id":{"N":"1"},`+
			`"created":{"S":"2026-11-01T00:00:00.000000Z"},"theme":{"S":"{}"},"deleted":{"BOOL":false},"is_stopped":{"BOOL":false}}}`,
			SurveyPK(simSurvey), simSurvey)
	}
	return ""
}

// recordTally is one pass of the tally function over one stream shard's
// batch of a survey's responses (ApplyTally), as it sends it.
func recordTally(tb testing.TB, st *Store, c *ddbsim.Capture) []ddbsim.Request {
	tb.Helper()
	recs := make([]TallyRecord, 200)
	for i := range recs {
		recs[i] = TallyRecord{Seq: fmt.Sprint(1000 + i), ReportAttrs: []string{ChoiceCount(1, int64(1+i%4)), ScaleCount(3, int64(1+i%5))}}
	}
	if _, err := st.ApplyTally(context.Background(), simSurvey, "shardId-sim", recs); err != nil {
		tb.Fatalf("tally: %v", err)
	}
	return c.Take()
}

// recordOwnerPatch is one owner's settings change, as UpdateSettings sends it.
func recordOwnerPatch(tb testing.TB, st *Store, c *ddbsim.Capture) []ddbsim.Request {
	tb.Helper()
	stopped := false
	if err := st.UpdateSettings(context.Background(), 1, simSurvey, SettingsUpdate{
		Set: map[string]any{"hide_progressbar": true}, IsStopped: &stopped,
	}); err != nil {
		tb.Fatalf("update settings: %v", err)
	}
	return c.Take()
}

// recordViews are counted views, as CountView sends them.
func recordViews(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	out := make([][]ddbsim.Request, n)
	for i := range out {
		if err := st.CountView(context.Background(), 1, 1, simSurvey); err != nil {
			tb.Fatalf("count a view: %v", err)
		}
		out[i] = c.Take()
	}
	return out
}

// BenchmarkViralSubmissions runs the store's real submission, view,
// settings and tally code against DynamoDB's rules (ddbsim) at 100, 1,000 and 5,000
// submissions a second on one survey, with as many views and an owner's
// settings change a second, for 5 s of virtual time each, and prints the
// 503 rate, p50/p99, the hottest partition's write units a second, the
// write units per submission and the cost of a million submissions.
//
//	go test -run '^$' -bench ViralSubmissions -benchtime=1x ./shared/store
func BenchmarkViralSubmissions(b *testing.B) {
	c := &ddbsim.Capture{SizeOf: simSizes, Answer: simAnswer}
	st := simStore(c)
	subs := ddbsim.Pool(recordSubmissions(b, st, c, 512))
	patch := recordOwnerPatch(b, st, c)
	views := ddbsim.Pool(recordViews(b, st, c, 256))
	tallyPass := recordTally(b, st, c)
	retry := ddbsim.Retry{
		TxAttempts:    submitAttempts,
		WriteAttempts: awsenv.MaxAttempts,
		// backoff (elements.go): 2 + [0, 8n+8) ms.
		Backoff: func(n int, r *rand.Rand) time.Duration {
			return time.Duration(r.IntN(8*n+8)+2) * time.Millisecond
		},
	}
	for range b.N {
		fmt.Fprintf(os.Stdout, "\n%-7s %-11s %7s %6s %8s %8s %9s %9s %10s  %s\n",
			"rate/s", "flow", "ops", "503", "503 %", "p50", "p99", "WCU/op", "$/million", "hottest partition (WCU/s)")
		for _, rate := range []float64{100, 1000, 5000} {
			res := ddbsim.Run(ddbsim.DefaultRules, retry, 5*time.Second, 7,
				ddbsim.Flow{Name: "submit", Rate: rate, Next: subs},
				ddbsim.Flow{Name: "view", Rate: rate, Next: views},
				ddbsim.Flow{Name: "owner PATCH", Rate: 1, Next: func(int) []ddbsim.Request { return patch }},
				// The tally: a pass a second per stream shard that carries
				// the survey's responses (~1 shard per 1,000 WCU/s of
				// writes: 8 at 1,000 submissions a second).
				ddbsim.Flow{Name: "tally pass", Rate: max(1, rate/125), Next: func(int) []ddbsim.Request { return tallyPass }},
			)
			for i, f := range res.Flows {
				hot := ""
				if i == 0 {
					hot = fmt.Sprintf("%s (%.0f)", res.HotPartition, res.HotWCU)
					b.ReportMetric(100*float64(f.Busy)/float64(max(f.Ops, 1)), fmt.Sprintf("503%%@%.0f/s", rate))
					b.ReportMetric(f.WCUPerOp, fmt.Sprintf("WCU/submission@%.0f/s", rate))
				}
				fmt.Fprintf(os.Stdout, "%-7.0f %-11s %7d %6d %7.2f%% %8s %9s %9.1f %10.2f  %s\n",
					rate, f.Name, f.Ops, f.Busy, 100*float64(f.Busy)/float64(max(f.Ops, 1)),
					f.P50.Round(time.Millisecond/10), f.P99.Round(time.Millisecond/10), f.WCUPerOp,
					f.WCUPerOp*pricePerMillionWRU, hot)
			}
		}
	}
}
