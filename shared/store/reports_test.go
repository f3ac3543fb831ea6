package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
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
		Scales:  map[int64]map[int64]int64{8: {4: 1, 2: 1}},
		Matrix:  map[int64]map[int64]map[int64]int64{}, Ranks: map[int64]map[int64]store.RankTotal{}}
	testenv.Tally(t)
	if got, err := st.Aggregates(ctx, sv.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Aggregates = %+v, %v; want %+v", got, err, want)
	}
	if err := st.DeleteResponse(ctx, a.ID, sv.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	want = store.Aggregate{Responses: 1,
		Choices: map[int64]map[int64]int64{7: {3: 1, 5: 1}},
		Scales:  map[int64]map[int64]int64{8: {4: 0, 2: 1}}}
	testenv.Tally(t)
	if got, err := st.Aggregates(ctx, sv.ID); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a delete: Aggregates = %+v, %v; want %+v", got, err, want)
	}
}

// matrixRanking is a response's report attributes for a matrix (element
// 20: row -> column) and a ranking (element 30: choices in rank order).
func matrixRanking(rows map[int64]int64, ranked ...int64) []string {
	var out []string
	for r, c := range rows {
		out = append(out, store.MatrixCount(20, r, c))
	}
	for i, c := range ranked {
		out = append(out, store.RankCount(30, c), store.RankSum(30, c, int64(i+1)))
	}
	return out
}

// TestMatrixRankingCounts: a matrix's column counts per row and a
// ranking's rankings and rank sums are added by a submission, moved by an
// edit, taken back by a delete, and neither a submission the close fence
// withdraws nor an edit it reverts leaves a trace; every count applied by
// the tally from the stream (inserts, edits and removals), exactly.
func TestMatrixRankingCounts(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "charts", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "matrix and ranking")
	answers := map[int64]json.RawMessage{20: json.RawMessage(`{"1":10}`)}
	submit := func(key string, attrs []string) (store.Submitted, error) {
		return st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: answers},
			KeyHash:  key, BodyHash: "b", ReportAttrs: attrs,
		})
	}
	type counts struct {
		n      int64
		matrix map[int64]map[int64]int64
		ranks  map[int64]store.RankTotal
	}
	check := func(what string, want counts) {
		t.Helper()
		testenv.Tally(t)
		agg, err := st.Aggregates(ctx, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Survey(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Zero counts are counts taken back: not a difference.
		matrix := map[int64]map[int64]int64{}
		for r, cols := range agg.Matrix[20] {
			for c, n := range cols {
				if n != 0 {
					if matrix[r] == nil {
						matrix[r] = map[int64]int64{}
					}
					matrix[r][c] = n
				}
			}
		}
		if agg.Responses != want.n || got.SubmittedResponses != want.n || !reflect.DeepEqual(matrix, want.matrix) ||
			!reflect.DeepEqual(agg.Ranks[30], want.ranks) {
			t.Errorf("%s: report %d, submitted_responses %d, matrix %v, ranks %v; want %d, %v, %v",
				what, agg.Responses, got.SubmittedResponses, matrix, agg.Ranks[30], want.n, want.matrix, want.ranks)
		}
	}
	r1, err := submit("k1", matrixRanking(map[int64]int64{1: 10, 2: 11}, 5, 6, 7))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := submit("k2", matrixRanking(map[int64]int64{1: 11}, 7, 5, 6))
	if err != nil {
		t.Fatal(err)
	}
	check("after two submissions", counts{2,
		map[int64]map[int64]int64{1: {10: 1, 11: 1}, 2: {11: 1}},
		map[int64]store.RankTotal{5: {2, 3}, 6: {2, 5}, 7: {2, 4}}})
	if got := (store.RankTotal{2, 3}).Mean(); got != 1.5 {
		t.Errorf("mean rank %v, want 1.5", got)
	}

	edit := func(attrs []string) error {
		_, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: r1.ID, Answers: answers, ReportAttrs: attrs})
		return err
	}
	if err := edit(matrixRanking(map[int64]int64{1: 11, 2: 10}, 6, 5, 7)); err != nil {
		t.Fatal(err)
	}
	afterEdit := counts{2,
		map[int64]map[int64]int64{1: {11: 2}, 2: {10: 1}},
		map[int64]store.RankTotal{5: {2, 4}, 6: {2, 4}, 7: {2, 4}}}
	check("after an edit", afterEdit)
	// The same edit again moves nothing.
	if err := edit(matrixRanking(map[int64]int64{1: 11, 2: 10}, 6, 5, 7)); err != nil {
		t.Fatal(err)
	}
	check("after the same edit again", afterEdit)

	if err := st.DeleteResponse(ctx, a.ID, sv.ID, r2.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteResponse(ctx, a.ID, sv.ID, r2.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("a second delete: %v, want ENOTFOUND", err)
	}
	afterDelete := counts{1,
		map[int64]map[int64]int64{1: {11: 1}, 2: {10: 1}},
		map[int64]store.RankTotal{5: {1, 2}, 6: {1, 1}, 7: {1, 3}}}
	check("after a delete", afterDelete)

	// Closed between the check before and the fence after: the submission
	// is withdrawn and the edit reverted, and the counts are as before.
	before, err := st.StoredResponse(ctx, sv.ID, r1.ID)
	if err != nil {
		t.Fatal(err)
	}
	stop := true
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	if _, err := submit("k3", matrixRanking(map[int64]int64{2: 11}, 5, 6, 7)); survey.ErrorCode(err) != survey.ErrorCode(survey.ErrSurveyClosed) {
		t.Fatalf("a submission to a stopped survey: %v, want closed", err)
	}
	if err := edit(matrixRanking(map[int64]int64{1: 10}, 7, 6, 5)); survey.ErrorCode(err) != survey.ErrorCode(survey.ErrSurveyClosed) {
		t.Fatalf("an edit on a stopped survey: %v, want closed", err)
	}
	check("after a withdrawn submission and a reverted edit", afterDelete)
	// The reverted edit left the response as the edit before made it, and
	// lifted its guard: an edit once the survey reopens goes through.
	if kept, err := st.StoredResponse(ctx, sv.ID, r1.ID); err != nil || !kept.EditedAt.Equal(before.EditedAt) || !reflect.DeepEqual(kept, before) {
		t.Errorf("after the reverted edit: %+v, %v; want %+v", kept, err, before)
	}
	if _, err := st.StoredResponse(ctx, sv.ID, r2.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the deleted response: %v", err)
	}
	stop = false
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	if err := edit(matrixRanking(map[int64]int64{1: 10}, 5, 6, 7)); err != nil {
		t.Fatalf("an edit after the reopening: %v", err)
	}
	check("after an edit once reopened", counts{1,
		map[int64]map[int64]int64{1: {10: 1}},
		map[int64]store.RankTotal{5: {1, 1}, 6: {1, 2}, 7: {1, 3}}})
}

// TestRacingEditsKeepCountsExact: edits of one response racing each other
// (a double click, two tabs) each answer the edit or a busy 503, never
// lose or double a count: once the tally has read them, the report counts
// exactly the answers the response holds.
func TestRacingEditsKeepCountsExact(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "race", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "racing edits")
	answers := func(c int64) map[int64]json.RawMessage {
		return map[int64]json.RawMessage{7: json.RawMessage(fmt.Sprintf("[%d]", c))}
	}
	done, err := st.Submit(ctx, store.Submission{
		Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: answers(0)},
		KeyHash:  "race", BodyHash: "b", ReportAttrs: []string{store.ChoiceCount(7, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	const racers = 6
	errs := make(chan error, racers)
	for i := range int64(racers) {
		go func() {
			_, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: done.ID,
				Answers: answers(i + 1), ReportAttrs: []string{store.ChoiceCount(7, i+1), store.RankSum(9, 1, i+1)}})
			errs <- err
		}()
	}
	won := 0
	for range racers {
		switch err := <-errs; {
		case err == nil:
			won++
		case survey.ErrorCode(err) != survey.EUNAVAILABLE:
			t.Errorf("a racing edit: %v", err)
		}
	}
	if won == 0 {
		t.Fatal("no racing edit went through")
	}
	r, err := st.StoredResponse(ctx, sv.ID, done.ID)
	if err != nil {
		t.Fatal(err)
	}
	var picked []int64
	if err := json.Unmarshal(r.Answers[7], &picked); err != nil || len(picked) != 1 {
		t.Fatalf("stored answers %s: %v", r.Answers[7], err)
	}
	testenv.Tally(t)
	agg, err := st.Aggregates(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for c := int64(0); c <= racers; c++ {
		want := int64(0)
		if c == picked[0] {
			want = 1
		}
		if agg.Choices[7][c] != want {
			t.Errorf("choice %d counted %d, want %d (the response holds %d; %d edits won)", c, agg.Choices[7][c], want, picked[0], won)
		}
	}
	if agg.Responses != 1 || agg.Ranks[9][1].Sum != picked[0] {
		t.Errorf("report %d responses, rank sum %d; want 1 and %d", agg.Responses, agg.Ranks[9][1].Sum, picked[0])
	}
	t.Logf("%d of %d racing edits went through", won, racers)
}

// TestTallyFullShardUpdate: a record whose attributes all live in one
// report shard, more of them than one update may carry, is applied in
// transactions whose update of that shard stays within DynamoDB's 4 KB
// expression (DynamoDB Local refuses a longer one), each counted once.
func TestTallyFullShardUpdate(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "wide", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "wide")
	shard := func(name string) uint32 { // the store's attribute shard: FNV-1a mod 8
		h := fnv.New32a()
		h.Write([]byte(name))
		return h.Sum32() % store.AggShards
	}
	var attrs []string
	for c := int64(100000); len(attrs) < 450; c++ {
		if a := store.ChoiceCount(123456789, c); shard(a) == 0 {
			attrs = append(attrs, a)
		}
	}
	for range 2 { // and again: nothing twice
		if _, err := st.ApplyTally(ctx, sv.ID, "wide-shard", []store.TallyRecord{{Seq: "7", ReportAttrs: attrs}}); err != nil {
			t.Fatal(err)
		}
	}
	agg, err := st.Aggregates(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(agg.Choices[123456789]); n != 450 || agg.Responses != 1 {
		t.Errorf("%d choices counted, %d responses; want 450, 1", n, agg.Responses)
	}
}
