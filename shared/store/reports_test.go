package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestReportCounts: the report code finds its survey; each submission adds
// its counts to the aggregate (a replay adds nothing), and deleting a
// response takes them back.
func TestReportCounts(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "report", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if sid, err := st.SurveyIDByReportCode(ctx, sv.ReportCode); err != nil || sid != sv.ID {
		t.Fatalf("SurveyIDByReportCode = %d, %v; want %d", sid, err, sv.ID)
	}
	if _, err := st.SurveyIDByReportCode(ctx, "nope"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("an unknown code: %v, want ENOTFOUND", err)
	}
	submit := func(key string, counts ...string) store.Submitted {
		t.Helper()
		done, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{7: json.RawMessage(`[3]`)}},
			KeyHash: key, BodyHash: "b", ReportAttrs: counts,
		})
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	first := submit("k1", store.ChoiceCount(7, 3), store.ScaleCount(8, 4))
	submit("k1", store.ChoiceCount(7, 3), store.ScaleCount(8, 4)) // a replay
	submit("k2", store.ChoiceCount(7, 3), store.ChoiceCount(7, 5), store.ScaleCount(8, 2))
	want := store.Aggregate{Responses: 2,
		Choices: map[int64]map[int64]int64{7: {3: 2, 5: 1}},
		Scales:  map[int64]map[int64]int64{8: {4: 1, 2: 1}}}
	if got, err := st.Aggregates(ctx, sv.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Aggregates = %+v, %v; want %+v", got, err, want)
	}
	if err := st.DeleteResponse(ctx, a.ID, sv.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	want = store.Aggregate{Responses: 1,
		Choices: map[int64]map[int64]int64{7: {3: 1, 5: 1}},
		Scales:  map[int64]map[int64]int64{8: {4: 0, 2: 1}}}
	if got, err := st.Aggregates(ctx, sv.ID); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a delete: Aggregates = %+v, %v; want %+v", got, err, want)
	}
}
