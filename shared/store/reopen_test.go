package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestDeletionReopensALimitWithoutPlaces (contract section 25, "Deleting
// a response frees its place"): a response limit set at or under the
// responses recorded before it has no places and no allowance a share of
// it; the deletion of one of those responses gives the allowances shares
// of their own, frozen first (their counts) and then planned: room for
// exactly the limit less the responses left, none while they are still
// over it. Before, the reopen planned from shares never written and gave
// up (logged "caps not reopened"); only a submission's heal of the lease
// it left behind gave the room later.
//
// The same holds for a limit left pending: its owner's PATCH cut short
// while its base was counted (a client that hung up on make run, a
// function that timed out) leaves the settings item pending until the
// owner's next write of the limit, and the base is counted by the first
// request that needs it. Before, the reopen took such a limit for none
// (limitWithoutPlaces read it pending), so no deletion ever reopened it:
// outside, on make run, a limit of 3 over 3 responses set by a PATCH cut
// short, 2 of them deleted: 1 recorded and every submission 410 "full".
func TestDeletionReopensALimitWithoutPlaces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit   int64
		dels    int
		room    int64 // the room left; < 0: closed
		pending bool  // the limit's PATCH cut short while its base was counted
	}{
		{3, 1, 1, false},
		{3, 2, 2, false},
		{2, 2, 1, false},
		{2, 1, 0, false},
		{1, 1, -1, false},
		{3, 1, 1, true},
		{3, 2, 2, true},
		{2, 1, 0, true},
		{1, 1, -1, true},
	} {
		name := fmt.Sprintf("limit %d over 3, %d deleted", tc.limit, tc.dels)
		if tc.pending {
			name += ", left pending"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, a, sv := capsSurvey(t, "reopen")
			ids := submitN(t, st, sv.ID, 3)
			gen := time.Now().UnixNano()
			if tc.pending {
				// Older than limitHealAfter: the deletion's wait for the
				// base counts it itself, as it would 10 s on.
				gen = time.Now().Add(-time.Minute).UnixNano()
			}
			set := map[string]any{"response_limit": tc.limit, "response_limit_gen": gen}
			if !tc.pending {
				if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: set}); err != nil {
					t.Fatal(err)
				}
			} else {
				setLimitCutShort(t, st, a.ID, sv.ID, set)
			}
			for _, id := range ids[:tc.dels] {
				if err := st.DeleteResponse(ctx, a.ID, sv.ID, id); err != nil {
					t.Fatal(err)
				}
			}
			attr := store.LimitAttr(gen)
			// Reopened by the deletions already: again, nothing to do.
			if err := st.ReopenCaps(ctx, sv.ID, []string{attr}); err != nil {
				t.Fatalf("ReopenCaps: %v", err)
			}
			room, shared, err := st.CapRoom(ctx, sv.ID, attr)
			switch {
			case err != nil:
				t.Fatal(err)
			case !shared:
				t.Fatalf("the allowances have no shares of the limit after %d of its base were deleted", tc.dels)
			case tc.room < 0 && room >= 0, tc.room >= 0 && room != tc.room:
				t.Errorf("room %d after %d of a base of 3 were deleted under a limit of %d; want %d (< 0: closed)", room, tc.dels, tc.limit, tc.room)
			}
		})
	}
}

// setLimitCutShort sets a response limit where there was none with a
// request cut short once the limit is written, while its base is counted:
// the limit stays pending.
func setLimitCutShort(t *testing.T, st *store.Store, aid, sid int64, set map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- st.UpdateSettings(ctx, aid, sid, store.SettingsUpdate{Set: set}) }()
	for {
		_, got, err := st.SurveySettings(context.Background(), aid, sid)
		if err != nil {
			t.Fatal(err)
		}
		if got.ResponseLimitPending {
			cancel()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the limit's PATCH returned (%v) before it was seen pending", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := <-done; err == nil {
		t.Fatal("the limit's PATCH cut short returned no error")
	}
	if _, got, err := st.SurveySettings(context.Background(), aid, sid); err != nil || !got.ResponseLimitPending {
		t.Fatalf("the limit is not left pending (%v)", err)
	}
}

// TestDeletionsDuringAChangeReopen (contract section 25: "Deleting a
// response frees its place in the limit and in each quota it matched"):
// a limit of 10 filled, lowered under its count (closed), while
// deletions give places back after the change read the allowances and
// planned them closed. A deletion does not wait for the change's lease,
// and its reopen read no closed cap (the change records it at its
// release; a first change records nothing before): it left the cap to
// the change, which wrote its closed plan, so the cap stayed closed under
// its limit. Outside, on make run (hostile8), a quota of 10 filled and
// lowered to 4 while 8 of its responses were deleted: 2 recorded, and
// every submission of its answers 410 "full for answers like yours", 35 s
// later too. Now the change reads the count again after a closed plan,
// and a deletion that finds a change of the cap in flight plans it again
// once that is done.
func TestDeletionsDuringAChangeReopen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lower int64
		dels  int
		room  int64 // < 0: closed
	}{
		{4, 8, 2},
		{6, 8, 4},
		{4, 5, -1},
	} {
		t.Run(fmt.Sprintf("10 lowered to %d, %d deleted", tc.lower, tc.dels), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, a, sv := capsSurvey(t, "change")
			gen := time.Now().UnixNano()
			if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": int64(10), "response_limit_gen": gen}}); err != nil {
				t.Fatal(err)
			}
			_, set, err := st.SurveySettings(ctx, a.ID, sv.ID)
			if err != nil {
				t.Fatal(err)
			}
			ids := submitN(t, st, sv.ID, 10, store.LimitCap(set))
			attr := store.LimitAttr(gen)
			count := func() int64 {
				n, err := st.CapCount(ctx, sv.ID, attr)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := count(); n != 10 {
				t.Fatalf("%d places taken, want 10", n)
			}
			var once sync.Once
			var dels sync.WaitGroup
			st.OnCapPlan(func() {
				once.Do(func() {
					// The deletions give their places back now; their
					// reopens run on (they may wait for the lease).
					for _, id := range ids[:tc.dels] {
						dels.Add(1)
						go func() {
							defer dels.Done()
							if err := st.DeleteResponse(ctx, a.ID, sv.ID, id); err != nil {
								t.Error(err)
							}
						}()
					}
					for count() > 10-int64(tc.dels) {
						time.Sleep(20 * time.Millisecond)
					}
				})
			})
			if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"response_limit": tc.lower}}); err != nil {
				t.Fatal(err)
			}
			dels.Wait()
			room, shared, err := st.CapRoom(ctx, sv.ID, attr)
			switch {
			case err != nil:
				t.Fatal(err)
			case !shared:
				t.Fatal("the allowances have no shares of the limit after its change")
			case tc.room < 0 && room >= 0, tc.room >= 0 && room != tc.room:
				t.Errorf("room %d after the limit of 10 was lowered to %d while %d were deleted; want %d (< 0: closed)", room, tc.lower, tc.dels, tc.room)
			}
		})
	}
}

// capsSurvey is a new survey of a new enterprise account, on its own
// Store (a test's hooks are its own).
func capsSurvey(t *testing.T, name string) (*store.Store, survey.Account, survey.Survey) {
	t.Helper()
	st := testenv.Container(t)
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(context.Background(), a.ID, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, a, testenv.NewSurvey(t, st, a.ID, f.ID, name)
}

// submitN records n responses of survey sid, each taking a place of caps:
// their ids.
func submitN(t *testing.T, st *store.Store, sid int64, n int, caps ...store.Cap) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		done, err := st.Submit(context.Background(), store.Submission{
			Response: survey.Response{SurveyID: sid, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}},
			KeyHash: fmt.Sprint("caps-", sid, "-", i), BodyHash: "b", Caps: caps,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, done.ID)
	}
	return ids
}
