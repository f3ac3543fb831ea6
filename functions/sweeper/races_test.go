package sweeper_test

import (
	"context"
	"sync"
	"testing"

	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestMovedDate is the race of an owner who moves the date just after a run
// read the survey's index entry: the close, conditional on the old date,
// must leave the survey alone.
func TestMovedDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.create(t, "Moved", today)
	entry := func(t *testing.T, sid int64) store.DueSurvey {
		t.Helper()
		due, _, err := f.st.DuePage(t.Context(), int(shardOf(sid)), today, nil, sweeper.PageSize)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.ID == sid {
				return d
			}
		}
		t.Fatalf("survey %d is not among the due entries %+v", sid, due)
		return store.DueSurvey{}
	}

	t.Run("to a later day", func(t *testing.T) {
		old := entry(t, sv.ID)
		if old.ExpirationDate != today {
			t.Fatalf("entry %+v, want date %s", old, today)
		}
		f.expire(t, sv.ID, "2026-06-20")
		closed, err := f.st.CloseExpired(t.Context(), old)
		if err != nil || closed {
			t.Fatalf("CloseExpired(old entry %+v) = %v, %v; want false, nil", old, closed, err)
		}
		f.checkOpen(t, index(t, f.st), sv.ID, now, "2026-06-20")
		// A retry with the same stale entry changes nothing either.
		if closed, err := f.st.CloseExpired(t.Context(), old); err != nil || closed {
			t.Fatalf("second CloseExpired(old entry) = %v, %v; want false, nil", closed, err)
		}
		want(t, "run", run(t, t.Context(), f.st, now), sweeper.Result{Complete: true})
		f.checkOpen(t, index(t, f.st), sv.ID, now, "2026-06-20")
	})

	t.Run("during a run", func(t *testing.T) {
		other := f.create(t, "Moved during a run", today)
		st := &moveAfterRead{Store: f.st, move: func(ctx context.Context) error {
			return f.st.UpdateSettings(ctx, f.aid, other.ID, store.SettingsUpdate{Expire: true, Expiration: "2026-06-21"})
		}}
		want(t, "run", run(t, t.Context(), st, now), sweeper.Result{Closed: 0, Read: 1, Complete: true})
		f.checkOpen(t, index(t, f.st), other.ID, now, "2026-06-21")
	})

	t.Run("to an earlier day", func(t *testing.T) {
		early := f.create(t, "Moved earlier", today)
		old := entry(t, early.ID)
		f.expire(t, early.ID, yesterday)
		if closed, err := f.st.CloseExpired(t.Context(), old); err != nil || closed {
			t.Fatalf("CloseExpired(old entry) = %v, %v; want false, nil", closed, err)
		}
		if got := index(t, f.st)[early.ID]; got != yesterday {
			t.Fatalf("survey indexed under %q, want %s", got, yesterday)
		}
		// The next run takes it under its new date.
		want(t, "run", run(t, t.Context(), f.st, now), sweeper.Result{Closed: 1, Read: 1, Complete: true})
		f.checkClosed(t, index(t, f.st), early.ID)
	})
}

// moveAfterRead is a store whose first DuePage, once it has read the due
// entries, lets the owner move a date before any close runs.
type moveAfterRead struct {
	*store.Store
	once sync.Once
	move func(context.Context) error
}

func (m *moveAfterRead) DuePage(ctx context.Context, shard int, today string, start dynamo.PagingKey, limit int) ([]store.DueSurvey, dynamo.PagingKey, error) {
	due, next, err := m.Store.DuePage(ctx, shard, today, start, limit)
	if err == nil && len(due) > 0 {
		m.once.Do(func() { err = m.move(ctx) })
	}
	return due, next, err
}

func TestClearDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.create(t, "Cleared", tomorrow)
	kept := f.create(t, "Kept", tomorrow)
	if idx := index(t, f.st); idx[sv.ID] != tomorrow {
		t.Fatalf("index %v: want survey %d under %s", idx, sv.ID, tomorrow)
	}
	f.expire(t, sv.ID, "")
	idx := index(t, f.st)
	f.checkOpen(t, idx, sv.ID, now.AddDate(1, 0, 0), "")
	if idx[kept.ID] != tomorrow || len(idx) != 1 {
		t.Errorf("index %v: want only survey %d under %s", idx, kept.ID, tomorrow)
	}
	// Clearing a date that is not set is harmless.
	f.expire(t, sv.ID, "")
	want(t, "run a year later", run(t, t.Context(), f.st, now.AddDate(1, 0, 0)), sweeper.Result{Closed: 1, Read: 1, Complete: true})
	f.checkOpen(t, index(t, f.st), sv.ID, now.AddDate(1, 0, 0), "")
	f.checkClosed(t, index(t, f.st), kept.ID)
}

// TestOverlappingRuns: two runs at once close each due survey exactly once
// in total.
func TestOverlappingRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var due []survey.Survey
	for range 6 {
		due = append(due, f.bulk(t, 10, yesterday)...)
		due = append(due, f.bulk(t, 5, today)...)
	}
	notDue := f.bulk(t, 10, tomorrow)
	t.Logf("due surveys per shard: %v", shards(due))

	for round := range 2 {
		var wg sync.WaitGroup
		results := make([]sweeper.Result, 2)
		errs := make([]error, 2)
		start := make(chan struct{})
		for i := range results {
			wg.Go(func() {
				<-start
				results[i], errs[i] = sweeper.New(sweeper.Deps{Store: f.st}).Run(context.Background(), now)
			})
		}
		close(start)
		wg.Wait()
		total := 0
		for i, res := range results {
			if errs[i] != nil || !res.Complete {
				t.Fatalf("round %d, run %d: %+v, %v", round, i, res, errs[i])
			}
			total += res.Closed
		}
		wantTotal := len(due)
		if round == 1 {
			wantTotal = 0
		}
		t.Logf("round %d: %+v", round, results)
		if total != wantTotal {
			t.Errorf("round %d: the runs closed %d surveys in total (%+v), want %d", round, total, results, wantTotal)
		}
	}
	idx := index(t, f.st)
	for _, sv := range due {
		f.checkClosed(t, idx, sv.ID)
	}
	for _, sv := range notDue {
		f.checkOpen(t, idx, sv.ID, now, tomorrow)
	}
}
