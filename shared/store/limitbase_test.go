package store_test

import (
	"context"
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
