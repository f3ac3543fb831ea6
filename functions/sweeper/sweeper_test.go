package sweeper_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The sweeps of these tests run as of noon UTC on 2026-06-15.
var now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

const (
	yesterday = "2026-06-14"
	today     = "2026-06-15"
	tomorrow  = "2026-06-16"
	later     = "2026-07-01"
	// everything is the "today" of an index read that sees every entry.
	everything = "9999-12-31"
)

// fixture is one account with a folder, in the table of the top-level
// test. The sweep reads the whole table's index, so every test that runs it
// is a top-level test of its own (a table of its own).
type fixture struct {
	st  *store.Store
	aid int64
	fid int64
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	st := freshStore(t)
	a, err := st.CreateAccount(t.Context(), survey.Account{Email: fmt.Sprintf("sweep-%d@example.com", tableSeq.Add(1)), Plan: survey.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	fo, err := st.CreateFolder(t.Context(), a.ID, "Sweep", nil)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{st: st, aid: a.ID, fid: fo.ID}
}

var tableSeq atomic.Int64

// freshStore opens a new table on the emulator: the sweep reads a whole
// table's index, so each test (and each -count repetition of it) needs a
// table whose index holds only its own surveys. testenv.Store's table is
// per top-level test name, which -count=N would share.
func freshStore(tb testing.TB) *store.Store {
	tb.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(tb), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
	}
	name := fmt.Sprintf("sweep-%s-%d", strings.NewReplacer("/", "-", " ", "-").Replace(tb.Name()), tableSeq.Add(1))
	ctx := context.Background()
	st, err := store.Open(ctx, awsenv.FromEnv(func(k string) string { return env[k] }), name)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	if err := store.EnsureTable(ctx, st.Client(), name); err != nil {
		tb.Fatalf("create table %s: %v", name, err)
	}
	return st
}

// create makes a survey through the store and, when date is not empty,
// sets its expiration date as the settings PATCH does.
func (f fixture) create(t *testing.T, name, date string) survey.Survey {
	t.Helper()
	sv, err := f.st.CreateSurvey(t.Context(), survey.Survey{AccountID: f.aid, FolderID: f.fid, Name: name, Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatalf("create survey %q: %v", name, err)
	}
	if date != "" {
		f.expire(t, sv.ID, date)
	}
	return sv
}

// expire sets (or, with "", clears) a survey's expiration date.
func (f fixture) expire(t *testing.T, sid int64, date string) {
	t.Helper()
	if err := f.st.UpdateSettings(t.Context(), f.aid, sid, store.SettingsUpdate{Expire: true, Expiration: date}); err != nil {
		t.Fatalf("set expiration %q of survey %d: %v", date, sid, err)
	}
}

// bulk imports n surveys with the given expiration date ("" for none) in
// one ImportSurveys call.
func (f fixture) bulk(tb testing.TB, n int, date string) []survey.Survey {
	tb.Helper()
	return importSurveys(tb, f.st, f.aid, f.fid, n, date)
}

func importSurveys(tb testing.TB, st *store.Store, aid, fid int64, n int, date string) []survey.Survey {
	tb.Helper()
	in := make([]survey.Survey, n)
	for i := range in {
		in[i] = survey.Survey{AccountID: aid, FolderID: fid, Name: fmt.Sprintf("Bulk %d", i), Language: 1,
			Theme: survey.DefaultTheme(), ExpirationDate: date}
	}
	out, err := st.ImportSurveys(context.Background(), in)
	if err != nil {
		tb.Fatalf("import %d surveys: %v", n, err)
	}
	return out
}

// read reads a survey back, strongly consistent.
func (f fixture) read(t *testing.T, sid int64) survey.Survey {
	t.Helper()
	sv, err := f.st.Survey(t.Context(), f.aid, sid)
	if err != nil {
		t.Fatalf("read survey %d: %v", sid, err)
	}
	return sv
}

// checkClosed asserts that the sweep closed the survey: closed at now,
// inactive, out of the sweep index.
func (f fixture) checkClosed(t *testing.T, idx map[int64]string, sid int64) {
	t.Helper()
	sv := f.read(t, sid)
	if !sv.ClosedBySweep || !sv.Closed(now) || sv.Active(now) {
		t.Errorf("survey %d (expires %s): ClosedBySweep %v, Closed(now) %v, Active(now) %v; want true, true, false",
			sid, sv.ExpirationDate, sv.ClosedBySweep, sv.Closed(now), sv.Active(now))
	}
	if d, ok := idx[sid]; ok {
		t.Errorf("closed survey %d is still in the sweep index under %s", sid, d)
	}
}

// checkOpen asserts that the survey is open at at, and indexed under date
// (or not indexed at all when date is "").
func (f fixture) checkOpen(t *testing.T, idx map[int64]string, sid int64, at time.Time, date string) {
	t.Helper()
	sv := f.read(t, sid)
	if sv.ClosedBySweep || sv.Closed(at) || !sv.Active(at) || sv.ExpirationDate != date {
		t.Errorf("survey %d: ExpirationDate %q ClosedBySweep %v, Closed %v, Active %v at %s; want %q, false, false, true",
			sid, sv.ExpirationDate, sv.ClosedBySweep, sv.Closed(at), sv.Active(at), at.Format(time.RFC3339), date)
	}
	got, ok := idx[sid]
	switch {
	case date == "" && ok:
		t.Errorf("survey %d without a date is in the sweep index under %s", sid, got)
	case date != "" && got != date:
		t.Errorf("survey %d is indexed under %q (present %v), want %q", sid, got, ok, date)
	}
}

// index reads the whole sweep index through DuePage: survey id -> the
// date it is indexed under.
func index(t testing.TB, st *store.Store) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	for shard := range store.ExpiryShards {
		var start dynamo.PagingKey
		for {
			due, next, err := st.DuePage(context.Background(), shard, everything, start, 1000)
			if err != nil {
				t.Fatalf("DuePage(shard %d): %v", shard, err)
			}
			for _, d := range due {
				if shardOf(d.ID) != int64(shard) {
					t.Errorf("survey %d is indexed in shard %d", d.ID, shard)
				}
				if prev, dup := out[d.ID]; dup {
					t.Errorf("survey %d is indexed twice (%s and %s)", d.ID, prev, d.ExpirationDate)
				}
				out[d.ID] = d.ExpirationDate
			}
			if next == nil {
				break
			}
			start = next
		}
	}
	return out
}

func run(t *testing.T, ctx context.Context, st sweeper.Store, at time.Time) sweeper.Result {
	t.Helper()
	res, err := sweeper.Run(ctx, st, at)
	if err != nil {
		t.Fatalf("Run(%s): %+v, %v", at.Format(time.RFC3339), res, err)
	}
	return res
}

func want(t *testing.T, what string, got, want sweeper.Result) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// shardOf is the sweep-index shard the store puts a survey in.
func shardOf(sid int64) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(store.ExpiryKey(sid), "EXPIRY#"), 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

func shards(svs []survey.Survey) map[int64]int {
	out := map[int64]int{}
	for _, sv := range svs {
		out[shardOf(sv.ID)]++
	}
	return out
}

func TestRunClosesDue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	past := f.create(t, "Due yesterday", yesterday)
	due := f.create(t, "Due today", today)
	next := f.create(t, "Due tomorrow", tomorrow)
	none := f.create(t, "No date", "")

	idx := index(t, f.st)
	if len(idx) != 3 || idx[past.ID] != yesterday || idx[due.ID] != today || idx[next.ID] != tomorrow {
		t.Fatalf("sweep index before the run %v; want the three dated surveys", idx)
	}
	// A read shows the surveys due closed before the sweep has run.
	if sv := f.read(t, due.ID); !sv.Closed(now) || sv.Active(now) || sv.ClosedBySweep {
		t.Errorf("due survey before the sweep: Closed %v Active %v ClosedBySweep %v; want true false false",
			sv.Closed(now), sv.Active(now), sv.ClosedBySweep)
	}

	want(t, "first run", run(t, t.Context(), f.st, now), sweeper.Result{Closed: 2, Read: 2, Complete: true})

	idx = index(t, f.st)
	f.checkClosed(t, idx, past.ID)
	f.checkClosed(t, idx, due.ID)
	f.checkOpen(t, idx, next.ID, now, tomorrow)
	f.checkOpen(t, idx, none.ID, now, "")

	// Idempotent: the closed surveys left the index, so a second run reads
	// nothing and closes nothing.
	want(t, "second run", run(t, t.Context(), f.st, now), sweeper.Result{Closed: 0, Read: 0, Complete: true})
	// Late in the day (still the 15th in UTC) nothing more is due either.
	lateToday := time.Date(2026, 6, 15, 23, 59, 59, 0, time.UTC)
	want(t, "run at 23:59:59", run(t, t.Context(), f.st, lateToday), sweeper.Result{Complete: true})
	// The day is UTC's: 00:30 on the 16th in UTC+02:00 is still the 15th.
	tz := time.FixedZone("UTC+2", 2*3600)
	want(t, "run at 00:30+02:00", run(t, t.Context(), f.st, time.Date(2026, 6, 16, 0, 30, 0, 0, tz)), sweeper.Result{Complete: true})

	// The next day, the survey due tomorrow closes.
	want(t, "next day", run(t, t.Context(), f.st, now.Add(24*time.Hour)), sweeper.Result{Closed: 1, Read: 1, Complete: true})
	idx = index(t, f.st)
	f.checkClosed(t, idx, next.ID)
	if len(idx) != 0 {
		t.Errorf("sweep index after every survey closed: %v, want empty", idx)
	}

	t.Run("moving the date later reopens a closed survey", func(t *testing.T) {
		f.expire(t, past.ID, later)
		idx := index(t, f.st)
		f.checkOpen(t, idx, past.ID, now, later)
		want(t, "run", run(t, t.Context(), f.st, now), sweeper.Result{Complete: true})
		f.checkOpen(t, index(t, f.st), past.ID, now, later)
	})
	t.Run("clearing the date reopens a closed survey", func(t *testing.T) {
		f.expire(t, due.ID, "")
		f.checkOpen(t, index(t, f.st), due.ID, now, "")
		want(t, "run far ahead", run(t, t.Context(), f.st, now.AddDate(1, 0, 0)), sweeper.Result{Closed: 1, Read: 1, Complete: true})
		// Only the survey moved to July was due a year on.
		f.checkOpen(t, index(t, f.st), due.ID, now.AddDate(1, 0, 0), "")
	})
}

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
				results[i], errs[i] = sweeper.Run(context.Background(), f.st, now)
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
	res, err := sweeper.Run(ctx, f.st, now)
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

func TestEmitMetric(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 15, 12, 5, 0, 123e6, time.UTC)
	var buf bytes.Buffer
	if err := sweeper.EmitMetric(&buf, sweeper.Result{Closed: 7, Read: 9, Complete: true}, at); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("EmitMetric wrote %q, want one line", line)
	}
	var got struct {
		AWS struct {
			Timestamp         *int64 `json:"Timestamp"`
			CloudWatchMetrics []struct {
				Namespace  string     `json:"Namespace"`
				Dimensions [][]string `json:"Dimensions"`
				Metrics    []struct {
					Name string `json:"Name"`
					Unit string `json:"Unit"`
				} `json:"Metrics"`
			} `json:"CloudWatchMetrics"`
		} `json:"_aws"`
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("EmitMetric wrote %q: %v", line, err)
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		t.Fatal(err)
	}
	if got.AWS.Timestamp == nil || *got.AWS.Timestamp != at.UnixMilli() {
		t.Errorf("_aws.Timestamp %v, want %d", got.AWS.Timestamp, at.UnixMilli())
	}
	if len(got.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("_aws.CloudWatchMetrics %+v, want one directive", got.AWS.CloudWatchMetrics)
	}
	d := got.AWS.CloudWatchMetrics[0]
	if d.Namespace != "SurveyService" {
		t.Errorf("Namespace %q, want SurveyService", d.Namespace)
	}
	found := false
	for _, m := range d.Metrics {
		// EMF: every metric named is a top-level number of the line.
		if _, ok := top[m.Name].(float64); !ok {
			t.Errorf("metric %s has no numeric top-level value in %s", m.Name, line)
		}
		if m.Name == "SurveysClosed" {
			found = true
			if m.Unit != "Count" {
				t.Errorf("SurveysClosed unit %q, want Count", m.Unit)
			}
		}
	}
	if !found {
		t.Errorf("metrics %+v lack SurveysClosed", d.Metrics)
	}
	if top["SurveysClosed"] != float64(7) {
		t.Errorf("SurveysClosed = %v, want 7", top["SurveysClosed"])
	}
	// EMF: every dimension key is a top-level string of the line.
	for _, set := range d.Dimensions {
		for _, k := range set {
			if _, ok := top[k].(string); !ok {
				t.Errorf("dimension %s has no string value in %s", k, line)
			}
		}
	}
}
