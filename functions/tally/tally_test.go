package tally_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	h := &tally.Tally{Store: st, Now: time.Now}
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

// TestMatches: only the insertion of a submitted response is counted.
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
		{"a modified response", events.DynamoDBEventRecord{EventName: "MODIFY", Change: events.DynamoDBStreamRecord{Keys: keys("RESPONSE#1"), NewImage: img(true)}}, false},
		{"an Idempotency-Key", events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{Keys: keys("IDEM#ab"), NewImage: img(true)}}, false},
	} {
		if got := tally.Matches(tc.rec); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}
