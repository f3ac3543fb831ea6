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
func TestDeletionReopensALimitWithoutPlaces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit int64
		dels  int
		room  int64 // the room left; < 0: closed
	}{
		{3, 1, 1},
		{3, 2, 2},
		{2, 2, 1},
		{2, 1, 0},
		{1, 1, -1},
	} {
		t.Run(fmt.Sprintf("limit %d over 3, %d deleted", tc.limit, tc.dels), func(t *testing.T) {
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
			set := map[string]any{"response_limit": tc.limit, "response_limit_gen": gen}
			if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: set}); err != nil {
				t.Fatal(err)
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
