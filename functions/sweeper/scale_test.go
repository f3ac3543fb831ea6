package sweeper_test

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestPaging: 900 due surveys (about 112 a shard, so more than a page of
// PageSize 100 in some) are all closed by one run.
func TestPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The index hashes survey ids over its shards: 900 due surveys fill
	// some shard past a page.
	due := f.bulk(t, 450, yesterday)
	due = append(due, f.bulk(t, 450, today)...)
	notDue := f.bulk(t, 30, tomorrow)
	per := shards(due)
	t.Logf("due surveys per shard: %v", per)
	if slices.Max(slices.Collect(maps.Values(per))) <= sweeper.PageSize {
		t.Fatalf("no shard holds more than a page of due surveys: %v", per)
	}

	st := &countingStore{Store: f.st}
	want(t, "run", run(t, t.Context(), st, now), sweeper.Result{Closed: 900, Read: 900, Complete: true})
	t.Logf("DuePage calls: %d", st.pages.Load())
	// Every shard is read once, and a shard of more than a page in pages
	// (a full last page costs one more, empty, read).
	pages := int64(0)
	for shard := range int64(store.ExpiryShards) {
		pages += int64(per[shard]/sweeper.PageSize + 1)
	}
	if n := st.pages.Load(); n != pages {
		t.Errorf("%d DuePage calls, want %d", n, pages)
	}
	if n := st.maxLimit.Load(); n != sweeper.PageSize {
		t.Errorf("largest page asked %d, want %d", n, sweeper.PageSize)
	}
	idx := index(t, f.st)
	for _, sv := range due {
		f.checkClosed(t, idx, sv.ID)
	}
	for _, sv := range notDue {
		f.checkOpen(t, idx, sv.ID, now, tomorrow)
	}
	want(t, "second run", run(t, t.Context(), f.st, now), sweeper.Result{Complete: true})
}

// countingStore counts the pages a run reads.
type countingStore struct {
	*store.Store
	pages, maxLimit atomic.Int64
}

func (c *countingStore) DuePage(ctx context.Context, shard int, today string, start dynamo.PagingKey, limit int) ([]store.DueSurvey, dynamo.PagingKey, error) {
	c.pages.Add(1)
	if int64(limit) > c.maxLimit.Load() {
		c.maxLimit.Store(int64(limit))
	}
	return c.Store.DuePage(ctx, shard, today, start, limit)
}

// TestDeadline: a run whose deadline is within Margin stops at once,
// incomplete and without a call; the next run does the work.
func TestDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	due := f.bulk(t, 12, yesterday)

	ctx, cancel := context.WithTimeout(t.Context(), sweeper.Margin/2)
	defer cancel()
	ctx, calls := awsenv.WithCalls(ctx)
	res, err := sweeper.New(sweeper.Deps{Store: f.st}).Run(ctx, now)
	if err != nil {
		t.Fatalf("Run near its deadline: %v", err)
	}
	want(t, "run near its deadline", res, sweeper.Result{Closed: 0, Read: 0, Complete: false})
	if n := calls.DynamoDB(); n != 0 {
		t.Errorf("run near its deadline made %d DynamoDB calls (%v), want 0", n, calls.Ops())
	}
	idx := index(t, f.st)
	for _, sv := range due {
		f.checkOpen(t, idx, sv.ID, now.AddDate(0, 0, -2), yesterday)
	}

	// A later run with time to spare finishes the work.
	ctx2, cancel2 := context.WithTimeout(t.Context(), sweeper.Margin+time.Minute)
	defer cancel2()
	want(t, "later run", run(t, ctx2, f.st, now), sweeper.Result{Closed: 12, Read: 12, Complete: true})
	idx = index(t, f.st)
	for _, sv := range due {
		f.checkClosed(t, idx, sv.ID)
	}
}

// TestReadsProportional: with 500 surveys of which 20 are due, a run reads
// the 20 entries and nothing else: one Query per shard, one UpdateItem per
// due survey.
func TestReadsProportional(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var due, notDue []survey.Survey
	for range 4 {
		due = append(due, f.bulk(t, 3, yesterday)...)
		due = append(due, f.bulk(t, 2, today)...)
	}
	for range 4 {
		notDue = append(notDue, f.bulk(t, 60, tomorrow)...)
		notDue = append(notDue, f.bulk(t, 60, later)...)
	}
	none := f.bulk(t, 500-len(due)-len(notDue), "")
	if len(due) != 20 || len(due)+len(notDue)+len(none) != 500 {
		t.Fatalf("fixture: %d due, %d not due, %d without a date", len(due), len(notDue), len(none))
	}
	if idx := index(t, f.st); len(idx) != 500-len(none) {
		t.Fatalf("sweep index holds %d entries, want %d", len(idx), 500-len(none))
	}

	ctx, calls := awsenv.WithCalls(t.Context())
	want(t, "run", run(t, ctx, f.st, now), sweeper.Result{Closed: 20, Read: 20, Complete: true})
	ops := calls.Ops()
	t.Logf("DynamoDB calls: %d %v", calls.DynamoDB(), ops)
	// Each shard of the sweep index, and of the dead copies' markers, once.
	queries := store.ExpiryShards + store.PendingCopyShards
	wantOps := map[string]int{"DynamoDB.Query": queries, "DynamoDB.UpdateItem": 20}
	if !maps.Equal(ops, wantOps) || calls.DynamoDB() != queries+20 {
		t.Errorf("calls %v (%d), want %v (%d)", ops, calls.DynamoDB(), wantOps, queries+20)
	}

	idx := index(t, f.st)
	for _, sv := range due {
		f.checkClosed(t, idx, sv.ID)
	}
	for _, sv := range notDue {
		if idx[sv.ID] != sv.ExpirationDate {
			t.Errorf("survey %d indexed under %q, want %s", sv.ID, idx[sv.ID], sv.ExpirationDate)
		}
	}

	// Nothing due: the run costs the Queries of the shards and nothing more.
	calls.Reset()
	want(t, "second run", run(t, ctx, f.st, now), sweeper.Result{Complete: true})
	if got := calls.Ops(); !maps.Equal(got, map[string]int{"DynamoDB.Query": queries}) {
		t.Errorf("second run calls %v, want %d Queries", got, queries)
	}
}
