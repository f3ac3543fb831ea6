package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestPartialCountAcrossDeployment: a batch of partial records the survey
// item took (as the tally did before the partial count item) and given
// again once the tally writes the partial count item adds only the
// records past the survey item's checkpoint, once, however often it comes;
// the survey item is not written by it.
func TestPartialCountAcrossDeployment(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "deploy", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "half done")
	// A shard created now, as AWS names them: within the hour the partial
	// count item is first written, so its records may have been read before.
	shard := fmt.Sprintf("shardId-%020d-8d1e3e6d", time.Now().UnixMilli())
	if err := st.TallyPartialAsBefore(ctx, sv.ID, shard, "101", 2); err != nil { // records 100 and 101
		t.Fatal(err)
	}
	before, err := st.TallyCheckpoints(ctx, store.SurveyPK(sv.ID), store.SurveySK, shard)
	if err != nil {
		t.Fatal(err)
	}
	recs := []store.TallyRecord{{Seq: "100", Partial: 1}, {Seq: "101", Partial: 1}, {Seq: "102", Partial: 1}, {Seq: "103", Partial: -1}, {Seq: "104", Partial: 1}}
	for i, batch := range [][]store.TallyRecord{recs[:3], recs[:3], recs, recs[1:4], recs} {
		if _, err := st.ApplyTally(ctx, sv.ID, shard, batch); err != nil {
			t.Fatal(err)
		}
		c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(3) // 100, 101 (on the survey item), 102
		if i >= 2 {
			want = 3 // 103 takes one back, 104 adds one
		}
		if c.Survey.PartialResponses != want {
			t.Errorf("batch %d: partial_responses_count %d, want %d", i, c.Survey.PartialResponses, want)
		}
	}
	after, err := st.TallyCheckpoints(ctx, store.SurveyPK(sv.ID), store.SurveySK, shard)
	if err != nil {
		t.Fatal(err)
	}
	if string(after[shard]) != string(before[shard]) {
		t.Errorf("the survey item's checkpoint moved: %x -> %x", before[shard], after[shard])
	}
	if got, _ := st.Survey(ctx, a.ID, sv.ID); got.PartialResponses != 2 {
		t.Errorf("the survey item's own count %d, want the 2 it had", got.PartialResponses)
	}
	// A shard created more than an hour after the count item was first
	// written was never read before it: the survey item's checkpoint of it
	// is not read (here one that would pass the record, which no tally
	// wrote: only this case shows it unread), and the record is added.
	later := fmt.Sprintf("shardId-%020d-8d1e3e6e", time.Now().Add(3*time.Hour).UnixMilli())
	if err := st.TallyPartialAsBefore(ctx, sv.ID, later, "900", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyTally(ctx, sv.ID, later, []store.TallyRecord{{Seq: "200", Partial: 1}}); err != nil {
		t.Fatal(err)
	}
	if c, err := st.SurveyCollection(ctx, a.ID, sv.ID); err != nil || c.Survey.PartialResponses != 4 {
		t.Errorf("a younger shard's record: partial_responses_count %d (%v), want 4", c.Survey.PartialResponses, err)
	}
}

// TestPartialCountFolded: each stream shard's partial records add to an
// item of their own (one checkpoint each, however many shards the table
// has); an item whose checkpoint was written more than a day and an hour
// ago (records past the stream's 24 hours are never handed over:
// store.TallyMaxRecordAge) is folded into the base item when another
// shard's item is created, and the count stays exact, a later record of a
// folded shard included, however often the batches come.
func TestPartialCountFolded(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "fold", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "long lived")
	now := time.Now()
	st.Now = func() time.Time { return now }
	defer func() { st.Now = time.Now }()
	// Shards named as AWS names them, created 30 hours before the first
	// write: a shard's age plays no part.
	created := now.Add(-30 * time.Hour).UnixMilli()
	shard := func(i int) string { return fmt.Sprintf("shardId-%020d-%08x", created, i) }
	all := []string{shard(1), shard(2), shard(3), shard(4)}
	seq, want := 1000, int64(0)
	write := func(sh string) {
		t.Helper()
		seq++
		recs := []store.TallyRecord{{Seq: fmt.Sprint(seq - 1), Partial: 1}, {Seq: fmt.Sprint(seq), Partial: 1}}
		seq++
		want += 2
		for _, batch := range [][]store.TallyRecord{recs[:1], recs, recs, recs[1:]} { // each record once
			if _, err := st.ApplyTally(ctx, sv.ID, sh, batch); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(what string, items ...string) {
		t.Helper()
		_, have, err := st.PartialCountItems(ctx, sv.ID, all...)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(have)
		if fmt.Sprint(have) != fmt.Sprint(items) {
			t.Errorf("%s: the items of shards %v, want %v", what, have, items)
		}
		c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Survey.PartialResponses != want {
			t.Errorf("%s: partial_responses_count %d, want %d", what, c.Survey.PartialResponses, want)
		}
	}
	write(shard(1))
	write(shard(2))
	check("two shards", shard(1), shard(2))
	now = now.Add(store.TallyMaxRecordAge) // a day on: nothing folded
	write(shard(3))
	check("a day on", shard(1), shard(2), shard(3))
	now = now.Add(2 * time.Hour) // 26 hours after the first two
	write(shard(3))
	check("26 hours on, shard 3 again", shard(1), shard(2), shard(3))
	write(shard(4)) // a new shard's item: the first two folded
	check("26 hours on, a new shard", shard(3), shard(4))
	write(shard(1)) // a later record of a folded shard
	check("a folded shard again", shard(1), shard(3), shard(4))
	if base, _, _ := st.PartialCountItems(ctx, sv.ID); !base {
		t.Error("no base item")
	}
}

// TestTallyCheckpointsPruned: a counter item (here the survey item)
// keeps a stream shard's checkpoint for a day and an hour after it was
// last written (records past the stream's 24 hours are never handed over:
// store.TallyMaxRecordAge), whatever the shard's age, then the item's next
// write removes it; a later record of that shard is still applied once.
func TestTallyCheckpointsPruned(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "prune", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "long lived")
	now := time.Now()
	st.Now = func() time.Time { return now }
	defer func() { st.Now = time.Now }()
	created := now.Add(-30 * time.Hour).UnixMilli() // 30 hours old at the first write
	shard := func(i int) string { return fmt.Sprintf("shardId-%020d-%08x", created, i) }
	seq, want := 5000, int64(0)
	write := func(sh string) {
		t.Helper()
		seq++
		want++
		rec := []store.TallyRecord{{Seq: fmt.Sprint(seq)}} // a response
		for range 2 {
			if _, err := st.ApplyTally(ctx, sv.ID, sh, rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(what string, n int) {
		t.Helper()
		have, err := st.TallyCheckpoints(ctx, store.SurveyPK(sv.ID), store.SurveySK, shard(1), shard(2), shard(3))
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Survey(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(have) != n || got.SubmittedResponses != want {
			t.Errorf("%s: checkpoints of %d shards, submitted_responses %d; want %d and %d", what, len(have), got.SubmittedResponses, n, want)
		}
	}
	write(shard(1))
	write(shard(2))
	now = now.Add(store.TallyMaxRecordAge) // a day on (54 hours after the shards' creation): both kept
	write(shard(3))
	check("a day on", 3)
	now = now.Add(2 * time.Hour) // 26 hours after the first two were written
	write(shard(3))
	check("26 hours on", 1)
	write(shard(1)) // a later record of a pruned shard
	check("a pruned shard again", 2)
}
