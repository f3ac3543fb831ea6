package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestLimitBaseSettledAndCopied (contract section 25; store/limitbase.go):
// a limit of 5 set on a survey with 3 responses is written pending, then
// settles with base 3 (2 places) and no pending mark; a copy of that
// survey has no responses, so its limit's places are all 5 (it carried
// the source's base, 3, before: a copy of a survey with a limit took 2
// responses). Removing the limit clears its generation from the survey's
// state, and setting one again counts a new base.
func TestLimitBaseSettledAndCopied(t *testing.T) {
	t.Parallel()
	st := testenv.Container(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "limits", nil)
	if err != nil {
		t.Fatal(err)
	}
	src := testenv.NewSurvey(t, st, a.ID, f.ID, "limited")
	t0 := time.Now().UTC().Add(-time.Minute).Truncate(time.Microsecond)
	var rs []survey.Response
	for i := range 3 {
		id, err := st.NewID(ctx, store.KindResponse)
		if err != nil {
			t.Fatal(err)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		rs = append(rs, survey.Response{ID: id, SurveyID: src.ID, SubmittedAt: at, StartedAt: at.Add(-time.Second)})
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	setLimit := func(n int64) {
		t.Helper()
		set := map[string]any{"response_limit": n, "response_limit_gen": time.Now().UnixNano()}
		if err := st.UpdateSettings(ctx, a.ID, src.ID, store.SettingsUpdate{Set: set}); err != nil {
			t.Fatal(err)
		}
	}
	settings := func(sid int64) survey.Settings {
		t.Helper()
		_, set, err := st.SurveySettings(ctx, a.ID, sid)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	setLimit(5)
	if set := settings(src.ID); set.ResponseLimitPending || set.ResponseLimitBase != 3 || set.LimitPlaces() != 2 {
		t.Errorf("a limit of 5 over 3 responses: pending %v base %d places %d, want settled, base 3, 2 places",
			set.ResponseLimitPending, set.ResponseLimitBase, set.LimitPlaces())
	}
	cs, err := st.CopySource(ctx, a.ID, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := st.CopySurvey(ctx, cs, store.CopySpec{AccountID: a.ID, FolderID: f.ID, Name: "copied", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	if set := settings(copied.Survey.ID); set.ResponseLimit == nil || *set.ResponseLimit != 5 || set.ResponseLimitBase != 0 || set.LimitPlaces() != 5 {
		t.Errorf("the copy's limit: %v base %d places %d, want 5, base 0, 5 places", set.ResponseLimit, set.ResponseLimitBase, set.LimitPlaces())
	}
	if err := st.UpdateSettings(ctx, a.ID, src.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": nil}}); err != nil {
		t.Fatal(err)
	}
	if set := settings(src.ID); set.ResponseLimit != nil || set.ResponseLimitPending {
		t.Errorf("limit removed: %v pending %v", set.ResponseLimit, set.ResponseLimitPending)
	}
	setLimit(4)
	if set := settings(src.ID); set.ResponseLimitPending || set.ResponseLimitBase != 3 || set.LimitPlaces() != 1 {
		t.Errorf("a limit of 4 set again: pending %v base %d places %d, want settled, base 3, 1 place",
			set.ResponseLimitPending, set.ResponseLimitBase, set.LimitPlaces())
	}
}

// TestLimitSetWhileTransactionsReturnLate (contract section 25: "never
// one response more than the limit, under any race", and a limit's places
// all usable): a limit of 1 is set while two submissions that read the
// survey without a limit are in flight, both stamped before the limit's
// time. A committed before the count read the responses but its
// transaction returns after it (a busy container reads its answer
// seconds late); B's transaction is sent only after the limit has
// settled. The count read A, so A stands (201) and B, which the count did
// not read, is withdrawn and finds no place left (410): exactly one
// recorded. Before the count kept the ids it read, A's late return had it
// withdrawn while the base still counted it: both refused, none recorded
// for a limit of 1.
func TestLimitSetWhileTransactionsReturnLate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner := testenv.Container(t)
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := owner.CreateFolder(ctx, a.ID, "late", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, owner, a.ID, f.ID, "late returns")
	sub := func(key string) store.Submission {
		return store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}},
			KeyHash: key, BodyHash: "b",
		}
	}
	type reply struct {
		done store.Submitted
		err  error
	}
	committed, sending, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	stA, stB := testenv.Container(t), testenv.Container(t)
	var onceA, onceB sync.Once
	stA.HoldSubmissions(nil, func() { onceA.Do(func() { close(committed); <-release }) })
	stB.HoldSubmissions(func() { onceB.Do(func() { close(sending); <-release }) }, nil)
	ra, rb := make(chan reply, 1), make(chan reply, 1)
	go func() { d, err := stA.Submit(ctx, sub("late-a")); ra <- reply{d, err} }()
	go func() { d, err := stB.Submit(ctx, sub("late-b")); rb <- reply{d, err} }()
	<-committed
	<-sending
	set := map[string]any{"response_limit": int64(1), "response_limit_gen": time.Now().UnixNano()}
	if err := owner.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: set}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if got := <-ra; got.err != nil || got.done.ID == 0 {
		t.Errorf("A, counted in the limit's base, returned late: %+v, %v; want its response (201)", got.done, got.err)
	}
	if got := <-rb; !errors.Is(got.err, survey.ErrSurveyFull) {
		t.Errorf("B, sent after the limit settled: %+v, %v; want ErrSurveyFull (410)", got.done, got.err)
	}
	if n, err := owner.CountResponses(ctx, sv.ID, store.ResponseQuery{}); err != nil || n != 1 {
		t.Errorf("%d responses recorded (%v), want 1", n, err)
	}
	_, settings, err := owner.SurveySettings(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if settings.ResponseLimitBase != 1 || settings.LimitPlaces() != 0 {
		t.Errorf("the limit's base %d, places %d; want 1 and 0", settings.ResponseLimitBase, settings.LimitPlaces())
	}
}

// TestLimitBaseKeepsWhatItCounted: the count of a limit's base keeps the
// ids of the responses stamped in its last seconds (limitSeenFor), over
// as many items as they need (2 ids an item here, 4 items), and finds
// each one; the older ones are counted by number and not kept; an id it
// did not read is not found, below and above the kept ones.
func TestLimitBaseKeepsWhatItCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Container(t)
	st.KeepSeenIDsBy(2)
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "seen", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "seen")
	now := time.Now().UTC().Truncate(time.Microsecond)
	var old, recent []survey.Response
	for i := range 9 {
		id, err := st.NewID(ctx, store.KindResponse)
		if err != nil {
			t.Fatal(err)
		}
		r := survey.Response{ID: id, SurveyID: sv.ID, SubmittedAt: now.Add(-time.Duration(i) * 500 * time.Millisecond)}
		if i < 2 {
			r.SubmittedAt = now.Add(-30*time.Second + time.Duration(i)*10*time.Second)
		}
		r.StartedAt = r.SubmittedAt.Add(-time.Second)
		if i < 2 {
			old = append(old, r)
		} else {
			recent = append(recent, r)
		}
	}
	if err := storetest.SeedResponses(ctx, st, append(slices.Clone(old), recent...)); err != nil {
		t.Fatal(err)
	}
	gen := time.Now().UnixNano()
	set := map[string]any{"response_limit": int64(20), "response_limit_gen": gen}
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: set}); err != nil {
		t.Fatal(err)
	}
	_, settings, err := st.SurveySettings(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if settings.ResponseLimitBase != 9 {
		t.Errorf("base %d, want 9", settings.ResponseLimitBase)
	}
	seen := func(id int64) bool {
		t.Helper()
		ok, err := st.SeenByBase(ctx, sv.ID, gen, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, r := range recent {
		if !seen(r.ID) {
			t.Errorf("response %d, stamped %s before the limit, not kept", r.ID, now.Sub(r.SubmittedAt))
		}
	}
	for _, r := range old {
		if seen(r.ID) {
			t.Errorf("response %d, stamped %s before the limit, kept", r.ID, now.Sub(r.SubmittedAt))
		}
	}
	ids := make([]int64, 0, len(recent))
	for _, r := range recent {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	for _, id := range []int64{ids[0] - 1, ids[len(ids)-1] + 1, 1} {
		if seen(id) {
			t.Errorf("id %d, not read in the last seconds, kept", id)
		}
	}
}
