package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Checkpoints of the tally's earlier designs, which nothing writes any
// more and which the tally still reads, so that a batch applied before a
// deployment and given again after it adds nothing twice.
// TestResponsePagesLegacyCheckpoint: a stream shard's checkpoint of the
// index's first design (RPAGES#<sid> / CP#<stream shard>), read with the
// marks and ROLL by one Query since 30 November 2026 (a GetItem of its
// own before): the tally passes over the records it names and adds the
// ones after it, on both paths (a survey born with its index, and one
// from before it), and another stream shard's checkpoint names none of
// this shard's.
func TestResponsePagesLegacyCheckpoint(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "legacy checkpoint", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pre := range []bool{false, true} {
		t.Run(fmt.Sprintf("from before the index %v", pre), func(t *testing.T) {
			sv := testenv.NewSurvey(t, st, a.ID, f.ID, "legacy checkpoint")
			if pre {
				if err := storetest.PreIndexSurvey(ctx, st, sv.ID); err != nil {
					t.Fatal(err)
				}
			}
			seq := func(n int) string { return fmt.Sprintf("%040d", n) }
			if err := storetest.PutLegacyPagesCheckpoint(ctx, st, sv.ID, "shard-a", seq(500)); err != nil {
				t.Fatal(err)
			}
			if err := storetest.PutLegacyPagesCheckpoint(ctx, st, sv.ID, "shard-b", seq(900)); err != nil {
				t.Fatal(err)
			}
			at := time.Now().UTC().Truncate(time.Second)
			rec := func(n int, rid int64) store.ResponsePageRecord {
				return store.ResponsePageRecord{Seq: fmt.Sprint(n), Shard: store.ResponseShard(rid), Key: store.ResponseTimeSK(at.Add(time.Duration(n)*time.Millisecond), rid)}
			}
			recs := []store.ResponsePageRecord{rec(400, 1), rec(500, 2), rec(600, 3), rec(700, 4)}
			if n, err := st.ApplyResponsePages(ctx, sv.ID, "shard-a", recs); err != nil || n != 2 {
				t.Errorf("shard-a's records 400-700 past its checkpoint at 500: added %d (%v), want 2", n, err)
			}
			if n, err := st.ApplyResponsePages(ctx, sv.ID, "shard-c", []store.ResponsePageRecord{rec(300, 5)}); err != nil || n != 1 {
				t.Errorf("shard-c's record 300, no checkpoint of its own: added %d (%v), want 1", n, err)
			}
		})
	}
}

// TestTallyLegacyCheckpoint: a stream shard's checkpoint of the counts
// from before each counter item held its own (TALLY#<sid> / <stream
// shard>), which nothing writes any more and the tally reads eventually
// consistent since 30 November 2026: the records it names are not counted
// again, those after it are, and another stream shard's is not one of it.
func TestTallyLegacyCheckpoint(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "legacy tally", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "legacy tally")
	if err := storetest.PutLegacyTallyCheckpoint(ctx, st, sv.ID, "shard-a", fmt.Sprintf("%040d", 500)); err != nil {
		t.Fatal(err)
	}
	recs := func(seqs ...int) []store.TallyRecord {
		var out []store.TallyRecord
		for _, n := range seqs {
			out = append(out, store.TallyRecord{Seq: fmt.Sprint(n)})
		}
		return out
	}
	if _, err := st.ApplyTally(ctx, sv.ID, "shard-a", recs(400, 500, 600, 700)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyTally(ctx, sv.ID, "shard-b", recs(300)); err != nil {
		t.Fatal(err)
	}
	got, err := st.Survey(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SubmittedResponses != 3 {
		t.Errorf("submitted_responses %d, want 3 (shard-a's 600 and 700, shard-b's 300)", got.SubmittedResponses)
	}
}
