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
// 20 questions (an eighth of its 2.5 KB of counts: each attribute lives in
// the shard its name hashes to), the variables, an id counter.
func simSizes(pk, sk string) int {
	switch {
	case sk == SurveySK:
		return 1500
	case strings.HasPrefix(pk, "AGG#"):
		return 2500 / AggShards
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
// the capture and returns the requests of each. The handlers' own requests,
// recorded on DynamoDB Local, drive functions/responders'
// BenchmarkViralResponders, whose TestSimReplaysWhatTheStoreWrites fails
// when a write escapes the model; this one keeps the store-level flows
// (edits, the owner's PATCH) beside a submission built as the handler
// builds it.
func recordSubmissions(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]ddbsim.Request, n)
	for i := range out {
		key := sha256.Sum256(fmt.Appendf(nil, "key-%d", i))
		body := sha256.Sum256(fmt.Appendf(nil, "body-%d", i))
		sess := sha256.Sum256(fmt.Appendf(nil, "session-%d", i))
		_, err := st.Submit(context.Background(), Submission{
			Response: survey.Response{
				SurveyID: simSurvey, StartedAt: time.Now().Add(-time.Minute),
				Answers: simAnswers(r), Variables: map[string]any{"source": "channel"},
			},
			KeyHash: hex.EncodeToString(key[:]), BodyHash: hex.EncodeToString(body[:]),
			// A session records one response (its claim): every submission has one.
			Session:     hex.EncodeToString(sess[:]),
			ReportAttrs: []string{ChoiceCount(1, int64(1+r.IntN(4))), ChoiceCount(2, int64(1+r.IntN(4))), ScaleCount(3, int64(1+r.IntN(5)))},
		})
		if err != nil {
			tb.Fatalf("submit %d: %v", i, err)
		}
		out[i] = c.Take()
	}
	return out
}

// simAnswer answers the reads the submission and edit paths make: the
// survey item (open) for the fence's GetItem, and a response for the
// edit's BatchGetItem; nothing else is found.
func simAnswer(op string, in map[string]any) string {
	if op == "BatchGetItem" {
		req, _ := in["RequestItems"].(map[string]any)
		keys, _ := req["sim"].(map[string]any)["Keys"].([]any)
		if len(keys) == 0 {
			return ""
		}
		k := keys[0].(map[string]any)
		pk, sk := k["PK"].(map[string]any)["S"].(string), k["SK"].(map[string]any)["S"].(string)
		rid := strings.TrimLeft(strings.TrimPrefix(sk, "RESPONSE#"), "0")
		return fmt.Sprintf(`{"Responses":{"sim":[{"PK":{"S":%q},"SK":{"S":%q},"id":{"N":"%s"},"survey_id":{"N":"%d"},`+
			`"submitted_at":{"S":"2026-11-01T00:00:00.000000Z"},"started_at":{"S":"2026-11-01T00:00:00.000000Z"},`+
			`"answers":{"S":"{\"1\":[1]}"},"variables":{"S":"{}"},"agg_shard":{"N":"3"},"agg":{"SS":["c_1_1"]},"tally":{"BOOL":true}}]}}`,
			pk, sk, rid, simSurvey)
	}
	key, _ := in["Key"].(map[string]any)
	sk, _ := key["SK"].(map[string]any)
	if op == "GetItem" && sk["S"] == SurveySK {
		return fmt.Sprintf(`{"Item":{"PK":{"S":%q},"SK":{"S":"SURVEY"},"id":{"N":"%d"},"account_id":{"N":"1"},`+
			`"created":{"S":"2026-11-01T00:00:00.000000Z"},"theme":{"S":"{}"},"deleted":{"BOOL":false},"is_stopped":{"BOOL":false}}}`,
			SurveyPK(simSurvey), simSurvey)
	}
	if pk, _ := key["PK"].(map[string]any); op == "GetItem" && sk["S"] == SurveyStateSK {
		// A whole copy of the survey's state (surveystate.go), as every
		// copy is after its first reader.
		return fmt.Sprintf(`{"Item":{"PK":{"S":%q},"SK":{"S":"STATE"},"deleted":{"BOOL":false},"is_stopped":{"BOOL":false},"cv":{"N":"0"},"whole":{"BOOL":true}}}`, pk["S"])
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

// recordEdits are edits of n responses (section 16), as EditResponse
// sends them: the response and its guard, the fence's read, the guard
// lifted.
func recordEdits(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	out := make([][]ddbsim.Request, n)
	for i := range out {
		_, err := st.EditResponse(context.Background(), ResponseEdit{SurveyID: simSurvey, ResponseID: int64(1000 + i),
			Answers: map[int64]json.RawMessage{1: json.RawMessage(`[2]`)}, ReportAttrs: []string{ChoiceCount(1, 2)}})
		if err != nil {
			tb.Fatalf("edit %d: %v", i, err)
		}
		out[i] = c.Take()
	}
	return out
}

// editOpenCondition is the survey item's condition the edit's transaction
// had before: live, not stopped, not closed, not expired.
const editOpenCondition = "attribute_exists(PK) AND deleted = ? AND is_stopped = ? AND (attribute_not_exists(closed) OR closed = ?) AND (attribute_not_exists(expiration_date) OR expiration_date > ?)"

// recordEditsBefore are the same edits as the edit sent them before it
// left the shared items: one transaction of the response, a
// ConditionCheck of the survey item (open) and its report shard moved.
func recordEditsBefore(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	out := make([][]ddbsim.Request, n)
	for i := range out {
		rid := int64(1000 + i)
		if _, _, err := st.editedResponse(context.Background(), simSurvey, rid); err != nil {
			tb.Fatal(err)
		}
		upd := st.table.Update(AttrPK, ResponsesShardPK(simSurvey, ResponseShard(rid))).Range(AttrSK, ResponseSK(rid)).
			Set("answers", `{"1":[2]}`).Set("edited_at", "2026-11-02T00:00:00.000000Z").SetSet("agg", []string{ChoiceCount(1, 2)}).
			If("attribute_exists(PK) AND attribute_not_exists(edited_at)")
		err := st.db.WriteTx().Update(upd).
			Check(st.table.Check(AttrPK, SurveyPK(simSurvey)).Range(AttrSK, SurveySK).If(editOpenCondition, false, false, false, "2026-11-02")).
			Update(st.table.Update(AttrPK, AggPK(simSurvey)).Range(AttrSK, AggSK(int(rid%AggShards))).Add(ChoiceCount(1, 1), -1).Add(ChoiceCount(1, 2), 1)).
			Run(context.Background())
		if err != nil {
			tb.Fatalf("edit %d (before): %v", i, err)
		}
		out[i] = c.Take()
	}
	return out
}

// recordViews are counted views, as CountView sends them at the rates
// these simulations run (hundreds a second and more): records, the views
// item's set of the minute being full and the container told so (at one
// a minute a view adds itself to the views item: functions/responders'
// BenchmarkViralResponders records both).
func recordViews(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	st.viewHints.off.Store(true)
	defer st.viewHints.off.Store(false)
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
// settings, tally and edit code against DynamoDB's rules (ddbsim) at 100, 1,000 and 5,000
// submissions a second on one survey, with as many views, an owner's
// settings change a second and edits at 1 % of the rate (as they are and
// as they were before they left the shared items), for 5 s of virtual time each, and prints the
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
	edits := ddbsim.Pool(recordEdits(b, st, c, 64))
	editsBefore := ddbsim.Pool(recordEditsBefore(b, st, c, 64))
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
			// Section 16's edits, 1 % of the rate: as they are, and, in a
			// run of their own, as they were (a ConditionCheck of the
			// survey item and a report shard moved in the edit's
			// transaction), of which only the edits are printed.
			for _, edit := range []ddbsim.Flow{{Name: "edit", Rate: rate / 100, Next: edits}, {Name: "edit before", Rate: rate / 100, Next: editsBefore}} {
				res := ddbsim.Run(ddbsim.DefaultRules, retry, 5*time.Second, 7,
					ddbsim.Flow{Name: "submit", Rate: rate, Next: subs},
					ddbsim.Flow{Name: "view", Rate: rate, Next: views},
					ddbsim.Flow{Name: "owner PATCH", Rate: 1, Next: func(int) []ddbsim.Request { return patch }},
					// The tally: a pass a second per stream shard that carries
					// the survey's responses (~1 shard per 1,000 WCU/s of
					// writes: 8 at 1,000 submissions a second).
					ddbsim.Flow{Name: "tally pass", Rate: max(1, rate/125), Next: func(int) []ddbsim.Request { return tallyPass }},
					edit,
				)
				for i, f := range res.Flows {
					if edit.Name == "edit before" && f.Name != edit.Name {
						continue
					}
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
}
