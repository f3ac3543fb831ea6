package ddbsim

import (
	"os"
	"testing"
	"time"
)

// capRun is section 25's viral case: a response_limit of 100,000 receiving
// 120,000 submissions at 1,000 a second, served by 60 containers, the
// tally's count 1.5 s behind, a submission racing for at most 9 s (the
// store's ownerRetryFor: until 1 s before a 10 s deadline).
func capRun(quotas []int64) CapRun {
	return CapRun{Rules: DefaultRules, Allowances: 256, Containers: 60, Rate: 1000, Submissions: 120_000,
		Limit: 100_000, Quotas: quotas, QuotaShare: 0.04, ResponseWCU: 8, TallyLag: 1500 * time.Millisecond,
		RaceFor: 9 * time.Second, Seed: 1}
}

// BenchmarkViralCaps (make sim-caps; docs/scale.md, "Exact caps"): the limit records exactly 100,000 of
// 120,000 submissions, none answers 503; with 10 quotas of 3,000 (each
// matched by 4 % of the submissions: 4,800 each), every quota records
// exactly its 3,000 and the limit still exactly 100,000, none answers 503.
//
// Full size it runs for a minute or more, so only `make sim-caps` runs it so
// (SIM_CAPS=full); `make bench-once` (in `make test`) runs it at a hundredth,
// as TestCapsExact does.
func BenchmarkViralCaps(b *testing.B) {
	run := capRun
	if os.Getenv("SIM_CAPS") != "full" {
		run = hundredth
	}
	for range b.N {
		viralCaps(b, run)
	}
}

// hundredth is capRun at a hundredth of its places and submissions.
func hundredth(quotas []int64) CapRun {
	c := capRun(nil)
	c.Submissions, c.Limit, c.Quotas = 1300, 1000, nil
	for _, q := range quotas {
		c.Quotas = append(c.Quotas, q/100)
	}
	return c
}

// TestCapsExact is BenchmarkViralCaps at a hundredth of its places: 1,300
// submissions for 1,000 places (and 10 quotas of 30), at 1,000 a second.
func TestCapsExact(t *testing.T) {
	t.Parallel()
	viralCaps(t, hundredth)
}

func viralCaps(t testing.TB, run func([]int64) CapRun) {
	quotas := make([]int64, 10)
	for i := range quotas {
		quotas[i] = 3000
	}
	for _, c := range []struct {
		name   string
		quotas []int64
	}{{"limit 100,000", nil}, {"limit 100,000 and 10 quotas of 3,000", quotas}} {
		r := RunCaps(run(c.quotas))
		limit := run(nil).Limit
		t.Logf("%s: recorded %d, 410 %d, 503 %d; quotas %v; allowance WCU per recorded response %.2f; transactions per recorded %.3f "+
			"(conflicts %d, full allowances met %d, full reads %d); hottest allowance %.1f WCU/s; p99 %v; last 1 %% of places: p99 %v, %.2f transactions each",
			c.name, r.Recorded, r.Refused, r.Busy, r.QuotaRecorded, r.CapWCUPerSubmission, r.TxPerRecorded, r.Conflicts, r.CondFailed,
			r.Verifications, r.HotAllowanceWCU, r.P99, r.LastPlacesP99, r.LastPlacesTx)
		if r.Recorded != limit || r.Busy != 0 {
			t.Errorf("%s: recorded %d with %d × 503, want exactly %d and none", c.name, r.Recorded, r.Busy, limit)
		}
		for i, n := range r.QuotaRecorded {
			if want := run(c.quotas).Quotas[i]; n != want {
				t.Errorf("%s: quota %d recorded %d, want exactly its %d", c.name, i, n, want)
			}
		}
		// A quota of 30 over 256 allowances (a hundredth) has no place in
		// most of them, so a submission under it and the limit may write
		// two; at full size one allowance holds both.
		if r.CapWCUPerSubmission > 2.0001 && (c.quotas == nil || limit >= 100_000) {
			t.Errorf("%s: %.2f write units per submission for its place, want at most 2", c.name, r.CapWCUPerSubmission)
		}
	}
}
