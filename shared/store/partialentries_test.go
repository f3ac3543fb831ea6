package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// entriesFixture is a survey with partials on, a clock the test moves,
// and the raw table.
type entriesFixture struct {
	st    *store.Store
	sid   int64
	now   time.Time
	table dynamo.Table
}

func newEntriesFixture(t *testing.T) *entriesFixture {
	t.Helper()
	st := testenv.Store(t)
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(context.Background(), a.ID, "entries", nil)
	if err != nil {
		t.Fatal(err)
	}
	fx := &entriesFixture{st: st, sid: testenv.NewSurvey(t, st, a.ID, f.ID, "entries").ID, now: time.Now().UTC().Truncate(time.Second)}
	st.Now = func() time.Time { return fx.now }
	fx.table = dynamo.NewFromIface(st.Client()).Table(st.TableName())
	return fx
}

func entrySession(n int) string { return fmt.Sprintf("%02x%062x", n, n) }

func (fx *entriesFixture) save(t *testing.T, n int, answers map[int64]string, page int) {
	t.Helper()
	a := map[int64]json.RawMessage{}
	for q, v := range answers {
		a[q] = json.RawMessage(`"` + v + `"`)
	}
	if _, _, err := fx.st.SavePartial(context.Background(), store.PartialWrite{SurveyID: fx.sid, Session: entrySession(n), StartedAt: fx.now.Add(-time.Hour),
		Answers: a, Page: page}); err != nil {
		t.Fatal(err)
	}
}

// entries are the items of one session's entry shard.
func (fx *entriesFixture) entries(t *testing.T, n int) []map[string]any {
	t.Helper()
	var items []map[string]any
	if err := fx.table.Get(store.AttrPK, store.PartialEntryPK(fx.sid, store.PartialShard(entrySession(n)))).Consistent(true).
		All(context.Background(), &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// listed is the owner's list, whole.
func (fx *entriesFixture) listed(t *testing.T) []store.Partial {
	t.Helper()
	page, err := fx.st.PartialsPage(context.Background(), fx.sid, store.PartialQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Partials
}

// TestPartialSaveCutShort: a save is three writes (its entry, then its
// header or delta, then the delete of its entry before); one cut short
// after any of them leaves the partial listed once, as it was or as it
// became, never twice and never missing, and the next save mends it.
func TestPartialSaveCutShort(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		long   bool   // the save that is cut short writes a delta
		cutAt  string // "entry": only its entry written; "state": its entry and its state, not the delete
		listed string // the answer listed after the cut
	}{
		{"header, entry alone", false, "entry", "before"},
		{"header, before the delete", false, "state", "after"},
		{"delta, entry alone", true, "entry", "before"},
		{"delta, before the delete", true, "state", "after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newEntriesFixture(t)
			fx.save(t, 1, map[int64]string{7: "before"}, 0)
			fx.now = fx.now.Add(10 * time.Second)
			was := fx.entries(t, 1)
			if len(was) != 1 {
				t.Fatalf("%d entries after one save", len(was))
			}
			var headBefore map[string]any
			if err := fx.table.Get(store.AttrPK, store.SessionPK(fx.sid, entrySession(1))).Range(store.AttrSK, dynamo.Equal, store.SessionSK(entrySession(1))).
				Consistent(true).One(ctx, &headBefore); err != nil {
				t.Fatal(err)
			}
			after := "after"
			if tc.long {
				after += strings.Repeat(" and more", 50)
			}
			fx.save(t, 1, map[int64]string{7: after}, 1)
			now := fx.entries(t, 1)
			if len(now) != 1 || now[0][store.AttrSK] == was[0][store.AttrSK] {
				t.Fatalf("entries after the second save: %v", now)
			}
			switch tc.cutAt {
			case "entry":
				// Its entry written, its state not: the state is put back
				// as it was (the header, and no delta).
				if err := fx.table.Put(headBefore).Run(ctx); err != nil {
					t.Fatal(err)
				}
				if err := fx.table.Delete(store.AttrPK, store.SessionPK(fx.sid, entrySession(1))).Range(store.AttrSK, store.PartialDeltaSK(entrySession(1), 0)).
					Run(ctx); err != nil {
					t.Fatal(err)
				}
				fallthrough
			case "state":
				if err := fx.table.Put(was[0]).Run(ctx); err != nil { // the entry before, not deleted
					t.Fatal(err)
				}
			}
			got := fx.listed(t)
			want := tc.listed
			if want == "after" {
				want = after
			}
			if len(got) != 1 || string(got[0].Answers[7]) != `"`+want+`"` {
				t.Fatalf("listed after the cut: %+v, want one partial answering %q", got, want)
			}
			fx.now = fx.now.Add(10 * time.Second)
			fx.save(t, 1, map[int64]string{7: "mended"}, 2)
			if got := fx.listed(t); len(got) != 1 || string(got[0].Answers[7]) != `"mended"` || got[0].LastPage != 2 {
				t.Fatalf("listed after the next save: %+v", got)
			}
		})
	}
}

// TestPartialDeltaKeepsItsThirtyDays: a partial whose last save wrote a
// delta (its header left as it was) is kept 30 days after that save, not
// after the header's: the header's TTL is a day past its own 30 days, and
// a delta's turn later than that writes the header too (three writes
// still: the entry before is left to its TTL, and not listed).
func TestPartialDeltaKeepsItsThirtyDays(t *testing.T) {
	ctx := context.Background()
	fx := newEntriesFixture(t)
	start := fx.now
	long := func(s string) string { return s + strings.Repeat(" and more", 50) }
	fx.save(t, 1, map[int64]string{7: "first"}, 0)
	fx.now = start.Add(20 * time.Hour)
	fx.save(t, 1, map[int64]string{7: long("a delta")}, 1)
	head := func() (exp int64, updated string) {
		t.Helper()
		var h struct {
			Exp     int64  `dynamo:"expires_at"`
			Updated string `dynamo:"updated_at"`
		}
		if err := fx.table.Get(store.AttrPK, store.SessionPK(fx.sid, entrySession(1))).Range(store.AttrSK, dynamo.Equal, store.SessionSK(entrySession(1))).
			Consistent(true).One(ctx, &h); err != nil {
			t.Fatal(err)
		}
		return h.Exp, h.Updated
	}
	exp, updated := head()
	if updated != start.Format(survey.TimestampLayout) {
		t.Fatalf("the header was written by the delta's turn: updated_at %s", updated)
	}
	if last := start.Add(20 * time.Hour).Add(store.PartialTTL); exp < last.Unix() {
		t.Errorf("the header's TTL %v is before the partial's end %v", time.Unix(exp, 0).UTC(), last)
	}
	read := func(at time.Time) bool {
		t.Helper()
		fx.now = at
		_, found, err := fx.st.SessionPartial(ctx, fx.sid, entrySession(1), false)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	end := start.Add(20 * time.Hour).Add(store.PartialTTL)
	if !read(end.Add(-time.Minute)) || read(end.Add(time.Second)) {
		t.Errorf("the partial is not kept exactly 30 days after its last save")
	}
	// A delta's turn over a day after the header's last write writes the
	// header too.
	fx.now = start.Add(26 * time.Hour)
	fx.save(t, 1, map[int64]string{7: long("another delta")}, 2)
	if exp, updated := head(); updated != fx.now.Format(survey.TimestampLayout) || exp < fx.now.Add(store.PartialTTL).Unix() {
		t.Errorf("a delta's turn a day on: header updated %s, TTL %v", updated, time.Unix(exp, 0).UTC())
	}
	if got := fx.listed(t); len(got) != 1 || string(got[0].Answers[7]) != `"`+long("another delta")+`"` || got[0].LastPage != 2 {
		t.Errorf("listed: %+v", got)
	}
	if n := len(fx.entries(t, 1)); n != 2 {
		t.Errorf("%d entries, want 2 (the one before left to its TTL)", n)
	}
}
