package store_test

import (
	"context"
	"encoding/json"
	"fmt"
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
			st := testenv.Container(t)
			a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
			f, err := st.CreateFolder(ctx, a.ID, "reopen", nil)
			if err != nil {
				t.Fatal(err)
			}
			sv := testenv.NewSurvey(t, st, a.ID, f.ID, "reopen")
			var ids []int64
			for i := range 3 {
				done, err := st.Submit(ctx, store.Submission{
					Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
						Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}},
					KeyHash: fmt.Sprint("reopen-", i), BodyHash: "b",
				})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, done.ID)
			}
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
