package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// TestResponsePages: passing over n responses (a results-table page's
// start) through the page index lands exactly where reading every key
// would, newest or oldest first, with bounds, after deletions, and with
// submissions the tally has not yet applied; and a middle page reads
// about the index's nodes and a second's responses, not the pages before
// it.
func TestResponsePages(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "pages", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "pages")
	// 3,000 imported responses over about three hours (several a second
	// at times), a few hours before now.
	t0 := time.Now().UTC().Add(-6 * time.Hour).Truncate(time.Hour)
	rs := make([]survey.Response, 3000)
	for i := range rs {
		at := t0.Add(time.Duration(i*3700) * time.Millisecond)
		if i%7 == 0 && i > 0 {
			at = rs[i-1].SubmittedAt // the same microsecond as the one before
		}
		rs[i] = survey.Response{SurveyID: sv.ID, SubmittedAt: at, StartedAt: at.Add(-time.Minute)}
	}
	rs, err = storetest.ImportResponses(ctx, st, rs)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(i int) {
		t.Helper()
		_, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{}},
			KeyHash: fmt.Sprintf("%064x", i), BodyHash: "b",
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Submissions through the stream: applied by the tally...
	for i := range 20 {
		submit(i)
	}
	testenv.Tally(t)
	// ...and some it has not applied yet.
	for i := range 5 {
		submit(100 + i)
	}
	// Deletions: of imported (counted) responses, some in the middle.
	for _, r := range rs[1000:1010] {
		if err := st.DeleteResponse(ctx, a.ID, sv.ID, r.ID); err != nil {
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
	check := func(t *testing.T) {
		t.Helper()
		asc := all(t)
		if len(asc) != 3000-10+25 {
			t.Fatalf("%d responses, want %d", len(asc), 3000-10+25)
		}
		in := func(after, before time.Time) []store.ResponsePosition {
			var out []store.ResponsePosition
			for _, p := range asc {
				if (after.IsZero() || p.SubmittedAt.After(after)) && (before.IsZero() || p.SubmittedAt.Before(before)) {
					out = append(out, p)
				}
			}
			return out
		}
		desc := func(s []store.ResponsePosition) []store.ResponsePosition { return reversed(s) }
		mid := t0.Add(90 * time.Minute)
		cases := []struct {
			name string
			q    store.ResponseQuery
			want []store.ResponsePosition
		}{
			{"newest first", store.ResponseQuery{}, desc(asc)},
			{"oldest first", store.ResponseQuery{Ascending: true}, asc},
			{"newest first, before the middle", store.ResponseQuery{Before: mid}, desc(in(time.Time{}, mid))},
			{"oldest first, after 20 minutes, before the middle", store.ResponseQuery{Ascending: true, After: t0.Add(20*time.Minute + 300*time.Millisecond), Before: mid},
				in(t0.Add(20*time.Minute+300*time.Millisecond), mid)},
		}
		for _, c := range cases {
			// CountResponses counts what SkipResponses passes over.
			if n, err := st.CountResponses(ctx, sv.ID, c.q); err != nil || n != int64(len(c.want)) {
				t.Errorf("%s: CountResponses = %d, %v; want %d", c.name, n, err, len(c.want))
			}
			for _, n := range []int{1, 24, 25, 26, 100, 777, 1500, 2000, len(c.want) - 1, len(c.want), len(c.want) + 1} {
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
				}
				if n == 1500 && read > 400 {
					t.Errorf("%s: passing over 1,500 read %d items, want at most 400 (the index, a second's responses, the last minute's)", c.name, read)
				}
			}
		}
	}
	t.Run("before the tally", check)
	testenv.Tally(t)
	t.Run("after the tally", check)
}

// TestResponsePagesExactlyOnce: the page index's tally adds a stream
// shard's records once however they are handed over again (whole, in
// part, from the middle), as the counts' tally does.
func TestResponsePagesExactlyOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "once", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "once")
	// A survey from before the page index, not backfilled: the transaction
	// path (TestResponsePagesByItemExactlyOnce has the other).
	if err := storetest.PreIndexSurvey(ctx, st, sv.ID); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	var recs []store.ResponsePageRecord
	for i := range 150 { // over two transactions' worth of nodes: a second each
		rid := int64(1000 + i)
		recs = append(recs, store.ResponsePageRecord{Seq: fmt.Sprint(100 + i), Shard: store.ResponseShard(rid),
			Key: store.ResponseTimeSK(at.Add(time.Duration(i)*time.Minute), rid)})
	}
	apply := func(rs []store.ResponsePageRecord, want int) {
		t.Helper()
		n, err := st.ApplyResponsePages(ctx, sv.ID, "shard-1", rs)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("applied %d, want %d", n, want)
		}
	}
	apply(recs[:40], 40)
	apply(recs[:40], 0)
	apply(recs[20:90], 50)
	apply(recs, 60)
	apply(recs, 0)
	// Another stream shard has a checkpoint of its own.
	n, err := st.ApplyResponsePages(ctx, sv.ID, "shard-2", recs[:3])
	if err != nil || n != 3 {
		t.Errorf("another shard applied %d (%v), want 3", n, err)
	}
}

// TestNewSurveysIndexFromTheStart: a survey created now (created, copied,
// as a template start is, or imported) begins with its page index whole:
// its backfill has nothing to do (no round, no response read), its tally
// writes each minute leaf by UpdateItem with the leaf's own checkpoint
// (the cheap path, no transaction; the roll-up adds the rest), its marks carry no first keys and stay
// under 1 KB, and passing over n responses lands where reading every key
// does.
func TestNewSurveysIndexFromTheStart(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "new", nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Minute)
	clock := t0
	st.Now = func() time.Time { return clock }
	created := testenv.NewSurvey(t, st, a.ID, f.ID, "created")
	src, err := st.CopySource(ctx, a.ID, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := st.CopySurvey(ctx, src, store.CopySpec{AccountID: a.ID, FolderID: f.ID, Name: "copied", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	imported, err := st.ImportSurveys(ctx, []survey.Survey{{AccountID: a.ID, FolderID: f.ID, Name: "imported", Language: 1, Theme: survey.DefaultTheme()}})
	if err != nil {
		t.Fatal(err)
	}
	surveys := map[string]int64{"created": created.ID, "copied": copied.Survey.ID, "imported": imported[0].ID}
	const n = 40
	for name, sid := range surveys {
		for i := range n {
			clock = t0.Add(time.Minute + time.Duration(i)*25*time.Second)
			_, err := st.Submit(ctx, store.Submission{
				Response: survey.Response{SurveyID: sid, StartedAt: clock.Add(-time.Minute), Answers: map[int64]json.RawMessage{}},
				KeyHash:  fmt.Sprintf("%060x%04d", sid, i), BodyHash: "b",
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	clock = time.Now().UTC()
	testenv.Tally(t)
	item := func(sid int64, sk string) map[string]dtypes.AttributeValue {
		t.Helper()
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st.TableName()), ConsistentRead: aws.Bool(true),
			Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.ResponsePagesPK(sid)},
				store.AttrSK: &dtypes.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	for name, sid := range surveys {
		r, err := st.BackfillResponsePages(ctx, sid)
		if err != nil || !r.Complete || r.Rounds != 0 || r.Responses != 0 {
			t.Errorf("%s: the backfill did %+v (%v), want nothing: complete from the start", name, r, err)
		}
		meta := item(sid, store.ResponsePagesMetaSK)
		size := 0
		for k, v := range meta {
			size += len(k)
			if s, ok := v.(*dtypes.AttributeValueMemberS); ok {
				size += len(s.Value)
			} else {
				size += 20
			}
			if strings.HasPrefix(k, "f") {
				t.Errorf("%s: the marks carry a first key %s, which an index born with its survey does not need", name, k)
			}
		}
		if size >= 1024 {
			t.Errorf("%s: the marks item is about %d bytes, want under 1 KB (a write unit)", name, size)
		}
		checkpoint := false
		for k := range item(sid, "N#"+t0.Add(time.Minute).Format("2006-01-02T15:04")) {
			checkpoint = checkpoint || strings.HasPrefix(k, "ck")
		}
		if !checkpoint {
			t.Errorf("%s: the index's first minute carries no checkpoint of its own: written by transaction, not by UpdateItem", name)
		}
		var asc []store.ResponsePosition
		page, err := st.ResponsesPage(ctx, sid, store.ResponseQuery{Limit: 1000, Ascending: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Responses {
			asc = append(asc, store.ResponsePosition{SubmittedAt: r.SubmittedAt, ID: r.ID})
		}
		if len(asc) != n {
			t.Fatalf("%s: %d responses, want %d", name, len(asc), n)
		}
		for _, q := range []store.ResponseQuery{{Ascending: true}, {}} {
			want := asc
			if !q.Ascending {
				want = reversed(asc)
			}
			for _, k := range []int{1, 2, 17, 25, n - 1, n} {
				pos, _, err := st.SkipResponses(ctx, sid, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if pos == nil || !pos.SubmittedAt.Equal(want[k-1].SubmittedAt) || pos.ID != want[k-1].ID {
					t.Errorf("%s, ascending %v: the %d-th is %+v, want %+v", name, q.Ascending, k, pos, want[k-1])
				}
			}
			if pos, _, err := st.SkipResponses(ctx, sid, q, n+1); err != nil || pos != nil {
				t.Errorf("%s: passing %d of %d answered %+v (%v), want none", name, n+1, n, pos, err)
			}
		}
	}
}
