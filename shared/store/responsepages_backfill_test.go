package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestResponsePagesBackfill: a survey whose responses were written before
// the page index (seeded around the submission: the tally never sees
// them) is backfilled while responders submit, the tally runs and the
// owner deletes old responses; then passing over n responses lands
// exactly where reading every key does, and a middle page reads about the
// index, not the pages before it. The tally adds nothing below the
// backfill's bound, and a second run is a no-op.
func TestResponsePagesBackfill(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "pages", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "old responses")
	// Its responses were written before the page index: a survey from before it.
	if err := storetest.PreIndexSurvey(ctx, st, sv.ID); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Add(-5 * time.Hour).Truncate(time.Hour)
	ids, err := st.NewIDs(ctx, store.KindResponse, 2000)
	if err != nil {
		t.Fatal(err)
	}
	old := make([]survey.Response, len(ids))
	for i := range old {
		at := t0.Add(time.Duration(i*3300) * time.Millisecond)
		if i%9 == 0 && i > 0 {
			at = old[i-1].SubmittedAt
		}
		old[i] = survey.Response{ID: ids[i], SurveyID: sv.ID, SubmittedAt: at, StartedAt: at.Add(-time.Minute)}
	}
	if err := storetest.SeedResponses(ctx, st, old); err != nil {
		t.Fatal(err)
	}
	submitted := 0
	submit := func(i int) error {
		_, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: map[int64]json.RawMessage{}},
			KeyHash:  fmt.Sprintf("%064x", 7000+i), BodyHash: "b",
		})
		return err
	}
	for i := range 8 {
		if err := submit(i); err != nil {
			t.Fatal(err)
		}
		submitted++
	}
	testenv.Tally(t)
	deleted := 0
	del := func(r survey.Response) error {
		deleted++
		return st.DeleteResponse(ctx, a.ID, sv.ID, r.ID)
	}
	// Deleting a response the index never counted takes it off anyway.
	for _, r := range old[300:305] {
		if err := del(r); err != nil {
			t.Fatal(err)
		}
	}
	all := func(t *testing.T) []store.ResponsePosition {
		t.Helper()
		var out []store.ResponsePosition
		q := store.ResponseQuery{Limit: 1000, Ascending: true}
		for {
			page, err := st.ResponsesPage(ctx, sv.ID, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page.Responses {
				out = append(out, store.ResponsePosition{SubmittedAt: r.SubmittedAt, ID: r.ID})
			}
			if !page.More {
				return out
			}
			q.From = page.Last()
		}
	}
	check := func(t *testing.T, maxRead int) {
		t.Helper()
		asc := all(t)
		if want := len(old) + submitted - deleted; len(asc) != want {
			t.Fatalf("%d responses, want %d", len(asc), want)
		}
		mid := t0.Add(70 * time.Minute)
		var before []store.ResponsePosition
		for _, p := range asc {
			if p.SubmittedAt.Before(mid) {
				before = append(before, p)
			}
		}
		cases := []struct {
			name string
			q    store.ResponseQuery
			want []store.ResponsePosition
		}{
			{"newest first", store.ResponseQuery{}, reversed(asc)},
			{"oldest first", store.ResponseQuery{Ascending: true}, asc},
			{"newest first, before 70 minutes in", store.ResponseQuery{Before: mid}, reversed(before)},
		}
		for _, c := range cases {
			for _, n := range []int{1, 2, 100, 777, 1500, len(c.want) - 1, len(c.want), len(c.want) + 1} {
				if n < 1 {
					continue
				}
				pos, read, err := st.SkipResponses(ctx, sv.ID, c.q, n)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case n > len(c.want):
					if pos != nil {
						t.Errorf("%s: passing %d of %d answered %+v, want none", c.name, n, len(c.want), pos)
					}
				case pos == nil || !pos.SubmittedAt.Equal(c.want[n-1].SubmittedAt) || pos.ID != c.want[n-1].ID:
					t.Errorf("%s: the %d-th is %+v, want %+v", c.name, n, pos, c.want[n-1])
				}
				if n == 1500 {
					t.Logf("%s: passing over 1,500 read %d items", c.name, read)
					if maxRead > 0 && read > maxRead {
						t.Errorf("%s: passing over 1,500 read %d items, want at most %d", c.name, read, maxRead)
					}
					if maxRead < 0 && read < 1000 {
						t.Errorf("%s: passing over 1,500 read %d items: unindexed, it should read the keys before", c.name, read)
					}
				}
			}
		}
	}
	t.Run("before the backfill (read the old way)", func(t *testing.T) { check(t, -1) })

	// The backfill, with submissions, the tally and deletions at once.
	var wg sync.WaitGroup
	var res store.ResponsePagesBackfill
	var mu sync.Mutex
	wg.Go(func() {
		r, err := st.BackfillResponsePages(ctx, sv.ID)
		if err != nil {
			t.Error(err)
		}
		res = r
	})
	wg.Go(func() {
		for i := range 6 {
			if err := submit(100 + i); err != nil {
				t.Error(err)
			}
			mu.Lock()
			submitted++
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for _, r := range slices.Concat(old[10:14], old[900:904], old[1990:1992]) {
			mu.Lock()
			err := del(r)
			mu.Unlock()
			if err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() { testenv.Tally(t) })
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("backfill with concurrent writes: %+v", res)
	if !res.Complete {
		r, err := st.BackfillResponsePages(ctx, sv.ID)
		if err != nil || !r.Complete {
			t.Fatalf("second backfill: %+v, %v", r, err)
		}
	}
	t.Run("after the backfill, before the tally", func(t *testing.T) { check(t, 400) })
	testenv.Tally(t)
	t.Run("after the backfill and the tally", func(t *testing.T) { check(t, 400) })

	// The tally adds no key below the bound: a record of an old response
	// (as if the stream gave it late) is left out.
	k := old[1000]
	n, err := st.ApplyResponsePages(ctx, sv.ID, "test-late-shard", []store.ResponsePageRecord{
		{Seq: "900000000000000000001", Shard: store.ResponseShard(k.ID), Key: store.ResponseTimeSK(k.SubmittedAt, k.ID)},
	})
	if err != nil || n != 0 {
		t.Fatalf("a late record below the bound: added %d (%v), want 0", n, err)
	}
	// Deletions after keep it exact; a second run is a no-op.
	for _, r := range old[1500:1503] {
		if err := del(r); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := st.BackfillResponsePages(ctx, sv.ID); err != nil || !r.Complete || r.Rounds != 0 {
		t.Fatalf("backfill again: %+v, %v", r, err)
	}
	t.Run("after more deletions", func(t *testing.T) { check(t, 400) })
}

// TestResponsePagesBackfillBoundMinute: the minute that holds the bound is
// the backfill's below it and the tally's from it on: a second the tally
// counted after the bound keeps its count.
func TestResponsePagesBackfillBoundMinute(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "bound", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "bound minute")
	// A survey from before the page index, whose backfill sets the bound.
	if err := storetest.PreIndexSurvey(ctx, st, sv.ID); err != nil {
		t.Fatal(err)
	}
	minute := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Minute)
	st.Now = func() time.Time { return minute.Add(80 * time.Second) } // the bound: minute + 20 s
	ids, err := st.NewIDs(ctx, store.KindResponse, 2)
	if err != nil {
		t.Fatal(err)
	}
	rs := []survey.Response{
		{ID: ids[0], SurveyID: sv.ID, SubmittedAt: minute.Add(15 * time.Second), StartedAt: minute},
		{ID: ids[1], SurveyID: sv.ID, SubmittedAt: minute.Add(25 * time.Second), StartedAt: minute},
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	// The later one as the tally counts it.
	if n, err := st.ApplyResponsePages(ctx, sv.ID, "bound-shard", []store.ResponsePageRecord{
		{Seq: "1", Shard: store.ResponseShard(ids[1]), Key: store.ResponseTimeSK(rs[1].SubmittedAt, ids[1])},
	}); err != nil || n != 1 {
		t.Fatalf("tally: %d, %v", n, err)
	}
	r, err := st.BackfillResponsePages(ctx, sv.ID)
	if err != nil || !r.Complete || r.Responses != 1 || r.Bound != minute.Add(20*time.Second).Format(survey.TimestampLayout) {
		t.Fatalf("backfill: %+v, %v", r, err)
	}
	node := func(sk string) map[string]dtypes.AttributeValue {
		t.Helper()
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st.TableName()), ConsistentRead: aws.Bool(true),
			Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.ResponsePagesPK(sv.ID)},
				store.AttrSK: &dtypes.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	num := func(v dtypes.AttributeValue) string {
		if n, ok := v.(*dtypes.AttributeValueMemberN); ok {
			return n.Value
		}
		return "none"
	}
	leaf := node("N#" + minute.Format("2006-01-02T15:04"))
	if num(leaf["c15"]) != "1" || num(leaf["c25"]) != "1" {
		t.Errorf("the bound's minute counts second 15: %s (the backfill's), 25: %s (the tally's); want 1 and 1", num(leaf["c15"]), num(leaf["c25"]))
	}
	hour := node("N#" + minute.Format("2006-01-02T15"))
	if got := num(hour["c"+minute.Format("04")]); got != "2" {
		t.Errorf("the hour counts %s in the minute, want 2", got)
	}
}

// TestResponsePagesByItemExactlyOnce: once a survey's backfill is complete
// the tally writes each node of the page index with one UpdateItem of its
// own checkpoint (no transaction); handed the same records again, in
// overlapping parts, from the middle and by another stream shard, every
// node still counts each response once, below the bound nothing is
// added, and a node the page index had before (from a transaction, before
// the backfill finished) keeps its counts.
func TestResponsePagesByItemExactlyOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "by item", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "by item")
	// A survey from before the page index: the transaction path until its backfill.
	if err := storetest.PreIndexSurvey(ctx, st, sv.ID); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Hour)
	st.Now = func() time.Time { return start.Add(time.Hour) } // the bound: start + 59 min
	// One response the tally indexed before the backfill (a transaction).
	rec := func(seq, i int, at time.Time) store.ResponsePageRecord {
		rid := int64(5000 + i)
		return store.ResponsePageRecord{Seq: fmt.Sprint(seq), Shard: store.ResponseShard(rid), Key: store.ResponseTimeSK(at, rid)}
	}
	if _, err := st.ApplyResponsePages(ctx, sv.ID, "old-shard", []store.ResponsePageRecord{rec(1, 0, start.Add(90*time.Minute))}); err != nil {
		t.Fatal(err)
	}
	seeded := []survey.Response{{ID: 5000, SurveyID: sv.ID, SubmittedAt: start.Add(90 * time.Minute), StartedAt: start}}
	if err := storetest.SeedResponses(ctx, st, seeded); err != nil {
		t.Fatal(err)
	}
	if r, err := st.BackfillResponsePages(ctx, sv.ID); err != nil || !r.Complete {
		t.Fatalf("backfill: %+v, %v", r, err)
	}
	var recs []store.ResponsePageRecord
	for i := range 40 { // 40 responses 40 s apart from start + 60 min on: minutes and an hour apart
		recs = append(recs, rec(100+i, 1+i, start.Add(60*time.Minute+time.Duration(i)*40*time.Second)))
	}
	below := rec(99, 99, start.Add(10*time.Minute)) // the backfill's
	apply := func(shard string, rs []store.ResponsePageRecord, want int) {
		t.Helper()
		n, err := st.ApplyResponsePages(ctx, sv.ID, shard, rs)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("applied %d, want %d", n, want)
		}
	}
	node := func(sk string) map[string]dtypes.AttributeValue {
		t.Helper()
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st.TableName()), ConsistentRead: aws.Bool(true),
			Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.ResponsePagesPK(sv.ID)},
				store.AttrSK: &dtypes.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	apply("shard-1", append([]store.ResponsePageRecord{below}, recs[:15]...), 15)
	apply("shard-1", recs[:15], 0)
	// A pass that wrote its nodes and stopped before the marks: the marks
	// lose their checkpoints, and the records come again.
	meta := node("META")
	var names []string
	for k := range meta {
		if strings.HasPrefix(k, "ck") {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		t.Fatal("the marks carry no checkpoint")
	}
	for _, k := range names {
		if _, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(st.TableName()),
			Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.ResponsePagesPK(sv.ID)},
				store.AttrSK: &dtypes.AttributeValueMemberS{Value: "META"}},
			UpdateExpression: aws.String("REMOVE #k"), ExpressionAttributeNames: map[string]string{"#k": k}}); err != nil {
			t.Fatal(err)
		}
	}
	apply("shard-1", recs[:20], 20) // the marks take 20 again; the nodes only the last 5
	apply("shard-1", recs[5:30], 10)
	apply("shard-1", recs, 10)
	apply("shard-1", recs[39:], 0)
	apply("shard-2", []store.ResponsePageRecord{rec(7, 77, start.Add(100*time.Minute))}, 1)
	sum := func(item map[string]dtypes.AttributeValue) (n int) {
		for k, v := range item {
			if nv, ok := v.(*dtypes.AttributeValueMemberN); ok && len(k) > 1 && k[0] == 'c' {
				var x int
				fmt.Sscan(nv.Value, &x)
				n += x
			}
		}
		return n
	}
	// 40 of shard-1, 1 of shard-2, 1 from before the backfill.
	if got := sum(node("N#")); got != 42 {
		t.Errorf("the root counts %d responses, want 42", got)
	}
	// The day of the hour they are in (start is 3 hours back: from 02:00
	// to 03:00 UTC it is the day before theirs).
	if got := sum(node("N#" + start.Add(time.Hour).Format("2006-01-02"))); got != 42 {
		t.Errorf("the day counts %d responses, want 42", got)
	}
	hours := sum(node("N#"+start.Add(time.Hour).Format("2006-01-02T15"))) + sum(node("N#"+start.Add(2*time.Hour).Format("2006-01-02T15")))
	if hours != 42 {
		t.Errorf("the hours count %d responses, want 42", hours)
	}
	if got := sum(node("N#" + start.Add(10*time.Minute).Format("2006-01-02T15:04"))); got != 0 {
		t.Errorf("the minute below the bound counts %d, want 0 (the backfill's)", got)
	}
}
