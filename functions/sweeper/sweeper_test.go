package sweeper_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
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
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(tb), "AWS_SECRET_ACCESS_KEY": "test",
	}
	name := fmt.Sprintf("sweep-%s-%d", strings.NewReplacer("/", "-", " ", "-").Replace(tb.Name()), tableSeq.Add(1))
	ctx := context.Background()
	st, err := store.Open(ctx, awsenv.FromEnv(func(k string) string { return env[k] }), name)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	if err := localaws.EnsureTable(ctx, st.Client(), name); err != nil {
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
	res, err := sweeper.New(sweeper.Deps{Store: st}).Run(ctx, at)
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
