package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"surveyservice/internal/ddbsim"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// Withdrawals of one instant, by DynamoDB's rules (ddbsim): a response
// limit set, or a survey closed, while submissions are in flight withdraws
// those the fence refuses (fence.go), each in a transaction that takes its
// response off the page index's items every withdrawal of the survey
// writes (here a survey's first hours: every node from the root, the
// most items a withdrawal shares).

// recordWithdrawals are n withdrawals of responses submitted in one
// second, as the fence sends them: the mark on the key's record
// (markWithdrawal), the page index's state read, then the transaction.
func recordWithdrawals(tb testing.TB, st *Store, c *ddbsim.Capture, n int) [][]ddbsim.Request {
	tb.Helper()
	at := time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC)
	out := make([][]ddbsim.Request, n)
	for i := range out {
		sess := sha256.Sum256(fmt.Appendf(nil, "session-%d", i))
		r := survey.Response{ID: int64(5000 + i), SurveyID: simSurvey, SubmittedAt: at.Add(time.Duration(i) * time.Millisecond)}
		sub := Submission{Response: r, KeyHash: hex.EncodeToString(sess[:]), Session: hex.EncodeToString(sess[:]), KeyOnClaim: true}
		w := sub.withdrawal(r, false)
		if _, err := st.markWithdrawal(context.Background(), w); err != nil {
			tb.Fatalf("mark withdrawal %d: %v", i, err)
		}
		if err := st.withdraw(context.Background(), w); err != nil {
			tb.Fatalf("withdraw %d: %v", i, err)
		}
		out[i] = c.Take()
	}
	return out
}

// withdrawalPolicies are the withdrawal's retries before 30 November 2026
// (5 tries, backoff's 2-40 ms) and now (waitTurn's 10-200 ms, until
// withdrawReserve before a 10 s deadline the submission has used 1 s of).
func withdrawalPolicies() map[string]ddbsim.Retry {
	return map[string]ddbsim.Retry{
		"before": {TxAttempts: submitAttempts, WriteAttempts: awsenv.MaxAttempts,
			Backoff: func(n int, r *rand.Rand) time.Duration { return time.Duration(r.IntN(8*n+8)+2) * time.Millisecond }},
		"now": {For: 9*time.Second - withdrawReserve, Backoff: ownerBackoffSim, WriteAttempts: awsenv.MaxAttempts},
	}
}

// withdrawalSim withdraws about burst responses arriving within 50 ms,
// beside 1,000 submissions a second and the tally's passes, under policy.
func withdrawalSim(tb testing.TB, burst int, policy ddbsim.Retry) ddbsim.FlowResult {
	c := &ddbsim.Capture{SizeOf: simSizes, Answer: simAnswer}
	st := simStore(c)
	subs := ddbsim.Pool(recordSubmissions(tb, st, c, 256))
	withdrawals := ddbsim.Pool(recordWithdrawals(tb, st, c, burst))
	tallyPass := recordTally(tb, st, c)
	window := 50 * time.Millisecond
	flows := []ddbsim.Flow{
		{Name: "withdrawal", Rate: float64(burst) / window.Seconds(), Retry: &policy, Next: withdrawals},
		{Name: "submit", Rate: 1000, Next: subs},
		{Name: "tally pass", Rate: 8, Next: func(int) []ddbsim.Request { return tallyPass }},
	}
	retry := ddbsim.Retry{TxAttempts: submitAttempts, WriteAttempts: awsenv.MaxAttempts,
		Backoff: func(n int, r *rand.Rand) time.Duration { return time.Duration(r.IntN(8*n+8)+2) * time.Millisecond }}
	return ddbsim.Run(ddbsim.DefaultRules, retry, window, 7, flows...).Flows[0]
}

// TestWithdrawalsTakeTurnsSim: 25, 50 and 100 withdrawals within 50 ms
// (a limit set or a close at 1,000 responses a second withdraws the few
// dozen in flight) all land by DynamoDB's rules, none 503, with today's
// retries; with the 5 tries of before, some gave up (their responses
// stayed recorded past the limit, or in a closed survey).
func TestWithdrawalsTakeTurnsSim(t *testing.T) {
	t.Parallel()
	policies := withdrawalPolicies()
	for _, burst := range []int{25, 50, 100} {
		now := withdrawalSim(t, burst, policies["now"])
		before := withdrawalSim(t, burst, policies["before"])
		t.Logf("%3d withdrawals at once: now %d × 503 of %d, %d conflicts, p99 %v; before %d × 503 of %d",
			burst, now.Busy, now.Ops, now.Conflicts, now.P99.Round(time.Millisecond), before.Busy, before.Ops)
		if now.Busy > 0 || now.OK != now.Ops {
			t.Errorf("%d withdrawals at once: %d of %d answered 503; want none", burst, now.Busy, now.Ops)
		}
		if burst >= 50 && before.Busy == 0 {
			t.Errorf("%d withdrawals at once with 5 tries: none gave up; the model no longer shows what the retries fixed", burst)
		}
	}
}

// BenchmarkWithdrawalsAtOnce prints how withdrawals of one instant fare
// (503s, conflicts, p50/p99, write units each), from 10 to 400 at once,
// with the retries of before and now.
//
//	go test -run '^$' -bench WithdrawalsAtOnce -benchtime=1x ./shared/store
func BenchmarkWithdrawalsAtOnce(b *testing.B) {
	for range b.N {
		fmt.Fprintf(os.Stdout, "\n%-7s %6s %6s %5s %9s %8s %8s %7s\n", "policy", "burst", "ops", "503", "conflicts", "p50", "p99", "WCU/op")
		for _, name := range []string{"before", "now"} {
			for _, burst := range []int{10, 25, 50, 100, 200, 400} {
				f := withdrawalSim(b, burst, withdrawalPolicies()[name])
				fmt.Fprintf(os.Stdout, "%-7s %6d %6d %5d %9d %8s %8s %7.1f\n", name, burst, f.Ops, f.Busy, f.Conflicts,
					f.P50.Round(time.Millisecond), f.P99.Round(time.Millisecond), f.WCUPerOp)
			}
		}
	}
}
