package tally_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/tally"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestTallyExactlyOnce: a survey's counts equal its responses however the
// stream hands the records over: once, the same batch again, in halves,
// from the middle on, or with the records of other surveys and other
// items between; records that are not submitted responses add nothing.
func TestTallyExactlyOnce(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "tally", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "viral")
	other := testenv.NewSurvey(t, st, a.ID, f.ID, "quiet")
	submit := func(sid int64, i int, attrs ...string) {
		t.Helper()
		_, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sid, StartedAt: time.Now().Add(-time.Minute),
				Answers: map[int64]json.RawMessage{7: json.RawMessage(`[3]`)}},
			KeyHash: fmt.Sprintf("%064x", i), BodyHash: "b", ReportAttrs: attrs,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		submit(sv.ID, i, store.ChoiceCount(7, 3))
	}
	submit(other.ID, 100)
	h := tally.New(tally.Deps{Store: st, Now: time.Now})
	hand := func(shard string, recs []events.DynamoDBEventRecord) {
		t.Helper()
		ev := events.DynamoDBTimeWindowEvent{DynamoDBEvent: events.DynamoDBEvent{Records: recs},
			TimeWindowProperties: events.TimeWindowProperties{ShardID: shard}}
		if _, err := h.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, sid, n int64) {
		t.Helper()
		got, err := st.Survey(ctx, a.ID, sid)
		if err != nil {
			t.Fatal(err)
		}
		agg, err := st.Aggregates(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if got.SubmittedResponses != n || agg.Responses != n || (sid == sv.ID && agg.Choices[7][3] != n) {
			t.Errorf("%s: submitted_responses %d, report %d (choice %d), want %d", what, got.SubmittedResponses, agg.Responses, agg.Choices[7][3], n)
		}
	}
	for shard, recs := range testenv.StreamRecords(t) {
		half := len(recs) / 2
		hand(shard, recs[:half])
		hand(shard, recs[:half])       // the same batch again
		hand(shard, recs[half/2:])     // from the middle of the first, past it
		hand(shard, recs)              // all of it again
		hand(shard, recs[half:half+1]) // one already applied
	}
	want("after every retry", sv.ID, 12)
	want("the other survey", other.ID, 1)
}

// TestTallyEditsAndRemovalsExactlyOnce: insertions, edits (MODIFY, old
// and new images), owner deletes and fence withdrawals (REMOVE) land in
// the counts exactly once however the stream hands them over, including a
// response naming more report attributes than one transaction can carry
// (applied in parts, each under the checkpoint).
func TestTallyEditsAndRemovalsExactlyOnce(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "tally", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "edits")
	answers := map[int64]json.RawMessage{7: json.RawMessage(`[3]`)}
	submit := func(key string, attrs ...string) (store.Submitted, error) {
		return st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: answers},
			KeyHash:  key, BodyHash: "b", ReportAttrs: attrs,
		})
	}
	rank := func(first, second int64) []string {
		return []string{store.RankCount(9, first), store.RankSum(9, first, 1), store.RankCount(9, second), store.RankSum(9, second, 2)}
	}
	var ids []int64
	for i := range 6 {
		done, err := submit(fmt.Sprint("k", i), append(rank(1, 2), store.MatrixCount(8, 1, int64(10+i%2)))...)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, done.ID)
	}
	// A response naming 1,000 attributes: five parts.
	var many []string
	for c := range int64(1000) {
		many = append(many, store.ChoiceCount(7, c))
	}
	big, err := submit("big", many...)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:2] { // two edits: 2 ranked first, the matrix row to column 12
		if _, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: id, Answers: answers,
			ReportAttrs: append(rank(2, 1), store.MatrixCount(8, 1, 12))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{ids[2], big.ID} { // two deletes
		if err := st.DeleteResponse(ctx, a.ID, sv.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	stop := true // one withdrawal
	if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	if _, err := submit("late", rank(2, 1)...); survey.ErrorCode(err) != survey.ErrorCode(survey.ErrSurveyClosed) {
		t.Fatalf("late submission: %v", err)
	}

	h := tally.New(tally.Deps{Store: st, Now: time.Now})
	hand := func(shard string, recs []events.DynamoDBEventRecord) {
		t.Helper()
		ev := events.DynamoDBTimeWindowEvent{DynamoDBEvent: events.DynamoDBEvent{Records: recs},
			TimeWindowProperties: events.TimeWindowProperties{ShardID: shard}}
		if _, err := h.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string) {
		t.Helper()
		got, err := st.Survey(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		agg, err := st.Aggregates(ctx, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		// 5 responses stand (7 submitted, 2 deleted; the late one withdrawn):
		// 2 edited (2 first, column 12), 3 not (1 first; columns 11, 10, 11).
		wantRanks := map[int64]store.RankTotal{1: {Count: 5, Sum: 3*1 + 2*2}, 2: {Count: 5, Sum: 3*2 + 2*1}}
		wantMatrix := map[int64]int64{10: 1, 11: 2, 12: 2}
		choices := int64(0)
		for _, n := range agg.Choices[7] {
			choices += n
		}
		if got.SubmittedResponses != 5 || agg.Responses != 5 || !reflect.DeepEqual(agg.Ranks[9], wantRanks) ||
			!reflect.DeepEqual(agg.Matrix[8][1], wantMatrix) || choices != 0 {
			t.Errorf("%s: submitted_responses %d, report %d, ranks %v, matrix %v, choices %d; want 5, 5, %v, %v, 0",
				what, got.SubmittedResponses, agg.Responses, agg.Ranks[9], agg.Matrix[8][1], choices, wantRanks, wantMatrix)
		}
	}
	kinds := map[string]int{}
	for shard, recs := range testenv.StreamRecords(t) {
		for _, r := range recs {
			if tally.Matches(r) {
				kinds[r.EventName]++
			}
		}
		for i := range recs { // one record at a time, each retried
			hand(shard, recs[i:i+1])
			hand(shard, recs[max(0, i-1):i+1])
		}
		hand(shard, recs) // all of it again
		half := len(recs) / 2
		hand(shard, recs[half:])
	}
	if kinds["INSERT"] < 8 || kinds["MODIFY"] < 2 || kinds["REMOVE"] != 3 {
		t.Errorf("records counted: %v; want 8 insertions, the edits and 3 removals", kinds)
	}
	check("after every retry")
	testenv.Tally(t) // the same records once more, in whole batches
	check("after the batches again")
}

// TestMatches: the insertion, edit and removal of a submitted response
// are counted (and views' insertions); nothing else.
func TestMatches(t *testing.T) {
	t.Parallel()
	img := func(tallied bool) map[string]events.DynamoDBAttributeValue {
		return map[string]events.DynamoDBAttributeValue{"tally": events.NewBooleanAttribute(tallied)}
	}
	keys := func(sk string) map[string]events.DynamoDBAttributeValue {
		return map[string]events.DynamoDBAttributeValue{"SK": events.NewStringAttribute(sk)}
	}
	for _, tc := range []struct {
		name string
		rec  events.DynamoDBEventRecord
		want bool
	}{
		{"a submitted response", events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(true)}}, true},
		{"an imported response", events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(false)}}, false},
		{"an edited response", events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(true), OldImage: img(true)}}, true},
		{"a modified response without its old image", events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(true)}}, false},
		{"an edited imported response", events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(false), OldImage: img(false)}}, false},
		{"a removed response", events.DynamoDBEventRecord{EventName: "REMOVE", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), OldImage: img(true)}}, true},
		{"a removed imported response", events.DynamoDBEventRecord{EventName: "REMOVE", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), OldImage: img(false)}}, false},
		{"a removed view record", events.DynamoDBEventRecord{EventName: "REMOVE", Change: events.DynamoDBStreamRecord{Keys: keys("VIEW#1"), OldImage: img(true)}}, false},
		{"an edit guard", events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{Keys: keys("EDITING#1"), NewImage: img(true)}}, false},
		{"an Idempotency-Key", events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{Keys: keys("IDEM#ab"), NewImage: img(true)}}, false},
	} {
		if got := tally.Matches(tc.rec); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}
