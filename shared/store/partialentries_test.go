package store_test

import (
	"context"
	"encoding/json"
	"errors"
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
// after the header's: the header's TTL is a day past its own 30 days,
// and a delta's turn later than that writes the header too (three writes
// still: the entry before is left to its TTL, and not listed). A delta's
// turn that notifies marks its delta, and leaves the header as it was.
func TestPartialDeltaKeepsItsThirtyDays(t *testing.T) {
	ctx := context.Background()
	fx := newEntriesFixture(t)
	start := fx.now
	long := func(s string) string { return s + strings.Repeat(" and more", 50) }
	fx.save(t, 1, map[int64]string{7: "first"}, 0)
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
	// 20 hours on, the session's first save in the minute: it notifies
	// (its delta carries the mark), and its delta's turn leaves the
	// header as it was.
	notified := start.Add(20 * time.Hour)
	fx.now = notified
	fx.save(t, 1, map[int64]string{7: long("a notified delta")}, 1)
	// Within its minute: a delta again.
	last := notified.Add(30 * time.Second)
	fx.now = last
	fx.save(t, 1, map[int64]string{7: long("a delta")}, 2)
	exp, updated := head()
	if updated != start.Format(survey.TimestampLayout) {
		t.Fatalf("the header was written by a delta's turn: updated_at %s", updated)
	}
	if end := last.Add(store.PartialTTL); exp < end.Unix() {
		t.Errorf("the header's TTL %v is before the partial's end %v", time.Unix(exp, 0).UTC(), end)
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
	end := last.Add(store.PartialTTL)
	if !read(end.Add(-time.Minute)) || read(end.Add(time.Second)) {
		t.Errorf("the partial is not kept exactly 30 days after its last save")
	}
	// A delta's turn a day on writes the header too.
	fx.now = start.Add(26 * time.Hour)
	fx.save(t, 1, map[int64]string{7: long("another delta")}, 3)
	if exp, updated := head(); updated != fx.now.Format(survey.TimestampLayout) || exp < fx.now.Add(store.PartialTTL).Unix() {
		t.Errorf("a delta's turn a day on: header updated %s, TTL %v", updated, time.Unix(exp, 0).UTC())
	}
	if got := fx.listed(t); len(got) != 1 || string(got[0].Answers[7]) != `"`+long("another delta")+`"` || got[0].LastPage != 3 {
		t.Errorf("listed: %+v", got)
	}
	// The third save's entry left to its TTL (the save after it wrote a
	// delta and the header), and the last's.
	if n := len(fx.entries(t, 1)); n != 2 {
		t.Errorf("%d entries, want 2 (one before left to its TTL)", n)
	}
}

// TestPartialListFirstSaveCutShort: a session's first save cut short
// after its entry (no header yet, nothing of the session's written) is
// not listed, and the list answers: a batch of such entries alone read
// nothing, which BatchGetItem's reader took for an error (500 to the
// owner while responders started; hostile11).
func TestPartialListFirstSaveCutShort(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		other bool // another session's partial listed beside it
		limit int
	}{
		{"alone", false, 0},
		{"alone, a page of one", false, 1},
		{"after another's partial, a page of one", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newEntriesFixture(t)
			if tc.other {
				fx.save(t, 2, map[int64]string{7: "other"}, 0)
				fx.now = fx.now.Add(time.Second)
			}
			fx.save(t, 1, map[int64]string{7: "first"}, 0)
			// Cut short after its entry: its header and deltas not written.
			var items []map[string]any
			if err := fx.table.Get(store.AttrPK, store.SessionPK(fx.sid, entrySession(1))).Consistent(true).All(ctx, &items); err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if err := fx.table.Delete(store.AttrPK, it[store.AttrPK]).Range(store.AttrSK, it[store.AttrSK]).Run(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var got []store.Partial
			for cursor := ""; ; {
				page, err := fx.st.PartialsPage(ctx, fx.sid, store.PartialQuery{Limit: tc.limit, Cursor: cursor})
				if err != nil {
					t.Fatalf("the list: %v", err)
				}
				got = append(got, page.Partials...)
				if cursor = page.Next; cursor == "" {
					break
				}
			}
			want := 0
			if tc.other {
				want = 1
			}
			if len(got) != want {
				t.Errorf("listed %+v, want %d partials", got, want)
			}
		})
	}
}

// TestPartialListAfterTabsRaced: two tabs of one session saving at once
// can leave a delta of a newer state below one of an older (a save that
// read the header before another's delta rewrites the delta that lost to
// the header, while a slower save, which read that delta as the state,
// writes the next one): the partial is listed once, as its state (the
// newest), which SessionPartial reads; the older state's entry is not
// listed (hostile11: the list showed both, the count one).
func TestPartialListAfterTabsRaced(t *testing.T) {
	ctx := context.Background()
	fx := newEntriesFixture(t)
	long := func(s string) string { return s + strings.Repeat(" و بیشتر", 40) }
	start := fx.now
	hk := dynamo.Keys{store.SessionPK(fx.sid, entrySession(1)), store.SessionSK(entrySession(1))}
	item := func(sk string) map[string]any {
		t.Helper()
		var it map[string]any
		if err := fx.table.Get(store.AttrPK, hk[0]).Range(store.AttrSK, dynamo.Equal, sk).Consistent(true).One(ctx, &it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	// H0: the first save (the header, no delta).
	fx.save(t, 1, map[int64]string{7: "tab a"}, 0)
	h0 := item(hk[1].(string))
	// Tab b reads H0 and writes delta 0 at t1; tab c reads that state and
	// writes delta 1 at t3 (its write held back, below).
	fx.now = start.Add(1 * time.Second)
	fx.save(t, 1, map[int64]string{7: long("tab b")}, 1)
	fx.now = start.Add(3 * time.Second)
	fx.save(t, 1, map[int64]string{7: long("tab c")}, 2)
	d1 := item(store.PartialDeltaSK(entrySession(1), 1))
	if err := fx.table.Delete(store.AttrPK, hk[0]).Range(store.AttrSK, d1[store.AttrSK]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	// Tab d read H0 before delta 0 was written, at t2: its header (the
	// delta left behind, older than it).
	h2 := map[string]any{}
	for k, v := range h0 {
		h2[k] = v
	}
	h2["updated_at"] = start.Add(2 * time.Second).Format(survey.TimestampLayout)
	h2["answers"] = `{"7":"tab d"}`
	h2["last_page"] = 3
	if err := fx.table.Put(h2).If("updated_at = ?", h0["updated_at"]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	// Tab e reads H2 (the state: delta 0 lost to it) and rewrites delta 0
	// at t4; then tab c's delta 1 lands.
	fx.now = start.Add(4 * time.Second)
	fx.save(t, 1, map[int64]string{7: long("tab e")}, 4)
	if err := fx.table.Put(d1).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		t.Fatal(err)
	}
	p, found, err := fx.st.SessionPartial(ctx, fx.sid, entrySession(1), false)
	if err != nil || !found {
		t.Fatalf("SessionPartial: %v %v", found, err)
	}
	if got := fx.listed(t); len(got) != 1 || got[0].LastPage != p.LastPage || string(got[0].Answers[7]) != string(p.Answers[7]) {
		for _, g := range got {
			t.Logf("listed: page %d, updated %s", g.LastPage, g.UpdatedAt.Format(survey.TimestampLayout))
		}
		t.Errorf("listed %d partials, want the one the session reads (page %d)", len(got), p.LastPage)
	}
}

// TestPartialDeltaAfterTheResponse: a save that writes a delta instead
// of the header cannot make it conditional on the session's claim, so a
// response recorded between the save's read and its delta finds the
// delta written: the save reads the claim after it, answers 409, and
// takes its entry and its delta back, so that neither the owner's list
// nor response.partial (a notifying save marks its delta) shows a partial
// of a session that has responded (contract section 20: "after its
// session's response 409 ... and nothing written").
func TestPartialDeltaAfterTheResponse(t *testing.T) {
	ctx := context.Background()
	fx := newEntriesFixture(t)
	fx.save(t, 1, map[int64]string{7: "first"}, 0)
	fx.now = fx.now.Add(2 * time.Minute) // the next save notifies
	fx.st.BeforePartialState(func() {
		fx.st.BeforePartialState(nil)
		if _, err := fx.st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: fx.sid, StartedAt: fx.now.Add(-time.Hour),
			Answers: map[int64]json.RawMessage{}}, KeyHash: entrySession(90), BodyHash: "b", Session: entrySession(1)}); err != nil {
			t.Error(err)
		}
	})
	_, _, err := fx.st.SavePartial(ctx, store.PartialWrite{SurveyID: fx.sid, Session: entrySession(1), StartedAt: fx.now.Add(-time.Hour), Page: 1,
		Answers: map[int64]json.RawMessage{7: json.RawMessage(`"` + strings.Repeat("long answer ", 40) + `"`)}})
	if !errors.Is(err, survey.ErrSessionResponded) {
		t.Fatalf("a delta's save after the response: %v, want %v", err, survey.ErrSessionResponded)
	}
	var deltas []map[string]any
	if err := fx.table.Get(store.AttrPK, store.SessionPK(fx.sid, entrySession(1))).Range(store.AttrSK, dynamo.BeginsWith, store.PartialDeltaSK(entrySession(1), 0)[:80]).
		Consistent(true).All(ctx, &deltas); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		t.Fatal(err)
	}
	if len(deltas) != 0 {
		t.Errorf("the refused save's delta is left: %v", deltas)
	}
	if _, found, err := fx.st.PartialAtDelta(ctx, store.SessionPK(fx.sid, entrySession(1)), entrySession(1), 0, fx.now.UTC().Format(survey.TimestampLayout)); err != nil || found {
		t.Errorf("response.partial's reader finds the refused save's delta: %v %v", found, err)
	}
	if got := fx.listed(t); len(got) != 0 {
		t.Errorf("listed after the response: %+v", got)
	}
	// Its entry is gone, and the first save's, which it deleted with its
	// claim's read (the tally's delete finds nothing).
	if n := len(fx.entries(t, 1)); n != 0 {
		t.Errorf("%d entries left, want none", n)
	}
}
