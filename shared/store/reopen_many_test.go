package store_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestDeletionsAtOnceReopen (contract section 25, "Deleting a response
// frees its place"): a limit set under its base (closed), then 12 of the
// base deleted at once: the room is exactly the limit less the responses
// left, and the deletions plan the cap a few times, not once each: one
// that finds the caps' lease held stops waiting once a lease taken after
// its place was given back will plan it (before, each took the lease and
// planned in turn: 13 leases, 8.7-9 s a DELETE on the emulators).
func TestDeletionsAtOnceReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, a, sv := capsSurvey(t, "reopen at once")
	ids := submitN(t, st, sv.ID, 16)
	gen := time.Now().UnixNano()
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": 8, "response_limit_gen": gen}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	start := time.Now()
	for _, id := range ids[:12] {
		wg.Go(func() {
			if err := st.DeleteResponse(ctx, a.ID, sv.ID, id); err != nil {
				t.Errorf("delete %d: %v", id, err)
			}
		})
	}
	wg.Wait()
	t.Logf("12 deletions at once: %v", time.Since(start))
	room, shared, err := st.CapRoom(ctx, sv.ID, store.LimitAttr(gen))
	if err != nil || !shared || room != 4 {
		t.Errorf("room %d (shared %v, %v) after 12 of 16 deleted under a limit of 8; want 4", room, shared, err)
	}
	leases, err := st.CapLeasesTaken(ctx, sv.ID, store.LimitAttr(gen))
	if err != nil || leases > 7 {
		t.Errorf("%d leases taken for the cap (%v); want at most 7 for 12 deletions at once (each took its own before)", leases, err)
	}
	t.Logf("%d leases taken", leases)
}

// TestReopenThatRanOutOfTimeIsNotLost: a deletion whose reopen finds the
// caps' lease held past its request's time (other deletions, or a
// change, planning the caps) gives its place back all the same: the next
// submission that finds the limit full plans it from the places as they
// are then and takes the place. Before, the reopen gave up ("caps not
// reopened", logged) and the survey answered 410 "full" under its limit
// until some later change or deletion planned the caps again.
func TestReopenThatRanOutOfTimeIsNotLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, a, sv := capsSurvey(t, "reopen out of time")
	ids := submitN(t, st, sv.ID, 4)
	gen := time.Now().UnixNano()
	// At its base: no places, closed.
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": 4, "response_limit_gen": gen}}); err != nil {
		t.Fatal(err)
	}
	release, err := st.HoldCapsLease(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if err := st.DeleteResponse(dctx, a.ID, sv.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	release()
	_, set, err := st.SurveySettings(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(key string) error {
		_, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}},
			KeyHash: key, BodyHash: "b", Caps: []store.Cap{store.LimitCap(set)},
		})
		return err
	}
	if err := submit("after the deletion"); err != nil {
		t.Fatalf("a submission after one of 4 was deleted under a limit of 4: %v; want its response", err)
	}
	if err := submit("one over"); survey.ErrorCode(err) == "" {
		t.Fatal("a second submission was recorded: 5 under a limit of 4")
	}
	if n, err := st.CountResponses(ctx, sv.ID, store.ResponseQuery{}); err != nil || n != 4 {
		t.Errorf("%d responses recorded (%v), want 4", n, err)
	}
}

// TestReopenAfterAChangeKeepsItsPlan: a deletion's reopen reads the
// caps' state, and before it takes the lease the owner raises the limit
// (a whole change, planned from the allowances after the place was given
// back). The reopen then must not plan the cap again from the places it
// read before the change: a limit of 4 set over 4 responses (no places),
// one deleted, raised to 10 meanwhile: room for 7, not 1.
func TestReopenAfterAChangeKeepsItsPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, a, sv := capsSurvey(t, "reopen after a change")
	ids := submitN(t, st, sv.ID, 4)
	gen := time.Now().UnixNano()
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": 4, "response_limit_gen": gen}}); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	st.BeforeReopenLease(func() {
		once.Do(func() {
			if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": 10}}); err != nil {
				t.Errorf("raise the limit: %v", err)
			}
		})
	})
	if err := st.DeleteResponse(ctx, a.ID, sv.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	room, shared, err := st.CapRoom(ctx, sv.ID, store.LimitAttr(gen))
	if err != nil || !shared || room != 7 {
		t.Errorf("room %d (shared %v, %v) with 3 recorded under a limit raised to 10 while one of 4 was deleted; want 7", room, shared, err)
	}
}
