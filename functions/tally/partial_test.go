package tally_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/tally"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestPartialCount: a survey's partial_responses_count follows its
// partials exactly (contract section 20): a new partial adds one, a PUT
// that replaces it nothing, the response that replaces it takes one, and
// so does its removal (the TTL's delete).
func TestPartialCount(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, sv := proSurvey(t, st, "half done")
	session := func(n int) string { return fmt.Sprintf("%064x", n) }
	save := func(n int) {
		t.Helper()
		if _, _, err := st.SavePartial(ctx, store.PartialWrite{SurveyID: sv.ID, Session: session(n), StartedAt: time.Now(),
			Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}}); err != nil {
			t.Fatal(err)
		}
	}
	want := func(step string, n int64) {
		t.Helper()
		testenv.Tally(t)
		c, err := st.SurveyCollection(ctx, a.ID, sv.ID) // the detail's read
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Survey; got.PartialResponses != n || got.SubmittedResponses < 0 {
			t.Errorf("after %s: partial_responses_count %d, want %d", step, got.PartialResponses, n)
		}
	}
	save(1)
	want("a first partial", 1)
	save(1)
	save(1)
	want("the same partial replaced", 1)
	save(2)
	want("a second session's", 2)
	if _, err := st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
		Answers: map[int64]json.RawMessage{}}, KeyHash: session(50), BodyHash: "b", Session: session(1)}); err != nil {
		t.Fatal(err)
	}
	want("the first session's response", 1)
	// The TTL's delete of the second.
	if err := dynamo.NewFromIface(st.Client()).Table(st.TableName()).Delete(store.AttrPK, store.SessionPK(sv.ID, session(2))).
		Range(store.AttrSK, store.SessionSK(session(2))).Run(ctx); err != nil {
		t.Fatal(err)
	}
	want("the TTL's delete", 0)
	if got, _ := st.Survey(ctx, a.ID, sv.ID); got.SubmittedResponses != 1 {
		t.Errorf("submitted_responses %d, want 1", got.SubmittedResponses)
	}
}

// TestPartialCountOffTheSurveyItem: partial saves, a replaced partial,
// submissions and the TTL's delete, handed to the tally as the stream
// hands them (once, again, in halves, from the middle), leave the survey
// item and its GSI1 copy as they were (the partials' records write the
// partial count item alone), and the detail's partial_responses_count is
// exact, including on a survey whose item holds a count from before.
func TestPartialCountOffTheSurveyItem(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "partials", nil)
	if err != nil {
		t.Fatal(err)
	}
	table := dynamo.NewFromIface(st.Client()).Table(st.TableName())
	fresh := testenv.NewSurvey(t, st, a.ID, f.ID, "fresh")
	legacy := testenv.NewSurvey(t, st, a.ID, f.ID, "counted before")
	// What the tally added to the survey item before the count item.
	if err := table.Update(store.AttrPK, store.SurveyPK(legacy.ID)).Range(store.AttrSK, store.SurveySK).Add(store.AttrPartialCount, 5).Run(ctx); err != nil {
		t.Fatal(err)
	}
	surveyItem := func(sid int64) map[string]any {
		t.Helper()
		var item map[string]any
		if err := table.Get(store.AttrPK, store.SurveyPK(sid)).Range(store.AttrSK, dynamo.Equal, store.SurveySK).Consistent(true).One(ctx, &item); err != nil {
			t.Fatal(err)
		}
		return item
	}
	ownerCopy := func(sid int64) map[string]any {
		t.Helper()
		var items []map[string]any
		if err := table.Get(store.AttrGSI1PK, store.OwnerKey(a.ID)).Index(store.IndexGSI1).All(ctx, &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it[store.AttrSK] == store.SurveySK && it["id"] == float64(sid) {
				return it
			}
		}
		t.Fatalf("survey %d not in its owner's list", sid)
		return nil
	}
	testenv.Tally(t) // the surveys' own records
	was := map[int64][2]map[string]any{}
	for _, sid := range []int64{fresh.ID, legacy.ID} {
		was[sid] = [2]map[string]any{surveyItem(sid), ownerCopy(sid)}
	}
	session := func(sid int64, n int) string { return fmt.Sprintf("%032x%032x", sid, n) }
	for _, sid := range []int64{fresh.ID, legacy.ID} {
		for n := range 4 {
			for range 2 { // a partial, then the same replaced
				if _, _, err := st.SavePartial(ctx, store.PartialWrite{SurveyID: sid, Session: session(sid, n), StartedAt: time.Now(),
					Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: sid, StartedAt: time.Now().Add(-time.Minute),
			Answers: map[int64]json.RawMessage{}}, KeyHash: session(sid, 50), BodyHash: "b", Session: session(sid, 0)}); err != nil {
			t.Fatal(err)
		}
		if err := table.Delete(store.AttrPK, store.SessionPK(sid, session(sid, 1))).Range(store.AttrSK, store.SessionSK(session(sid, 1))).Run(ctx); err != nil {
			t.Fatal(err) // the TTL's delete
		}
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
	partials := 0
	for shard, all := range testenv.StreamRecords(t) {
		var recs []events.DynamoDBEventRecord // the partials' records alone
		for _, r := range all {
			if sk := r.Change.Keys["SK"]; tally.Matches(r) && strings.HasPrefix(sk.String(), "SESSION#") {
				recs = append(recs, r)
			}
		}
		partials += len(recs)
		half := len(recs) / 2
		hand(shard, recs[:half])
		hand(shard, recs[:half])       // the same batch again
		hand(shard, recs[half/2:])     // from the middle of the first, past it
		hand(shard, recs)              // all of it again
		hand(shard, recs[half:half+1]) // one already applied
	}
	if partials < 12 {
		t.Fatalf("%d partial records, want 12 (4 partials, a submission and a delete, of each survey)", partials)
	}
	for _, sid := range []int64{fresh.ID, legacy.ID} {
		if now := [2]map[string]any{surveyItem(sid), ownerCopy(sid)}; !reflect.DeepEqual(now, was[sid]) {
			t.Errorf("survey %d: the partials' records wrote its item or its GSI1 copy:\n%v\nwas\n%v", sid, now, was[sid])
		}
	}
	testenv.Tally(t) // everything, the submissions too, in whole batches
	for sid, want := range map[int64]int64{fresh.ID: 2, legacy.ID: 5 + 2} {
		c, err := st.SurveyCollection(ctx, a.ID, sid) // the detail's read
		if err != nil {
			t.Fatal(err)
		}
		if c.Survey.PartialResponses != want || c.Survey.SubmittedResponses != 1 {
			t.Errorf("survey %d: partial_responses_count %d, submitted_responses %d; want %d and 1", sid, c.Survey.PartialResponses, c.Survey.SubmittedResponses, want)
		}
	}
}

// TestResponseForgetsPartialEntry: the response that replaces a partial
// takes its list entry away (the tally, from the claim's record), whether
// the partial's state was last written on its header, on a delta (a save
// whose answers passed the header's room), or on a header indexed in
// GSI1 as partials were before their entries; a partial still under way
// keeps its entry and stays listed.
func TestResponseForgetsPartialEntry(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, sv := proSurvey(t, st, "entries")
	table := dynamo.NewFromIface(st.Client()).Table(st.TableName())
	session := func(n int) string { return fmt.Sprintf("%02x%062x", n, n) }
	save := func(n int, answer string) {
		t.Helper()
		if _, _, err := st.SavePartial(ctx, store.PartialWrite{SurveyID: sv.ID, Session: session(n), StartedAt: time.Now(),
			Answers: map[int64]json.RawMessage{7: json.RawMessage(`"` + answer + `"`)}}); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() (n int) {
		t.Helper()
		for shard := range store.PartialShards {
			var items []map[string]any
			if err := table.Get(store.AttrPK, store.PartialEntryPK(sv.ID, shard)).Consistent(true).All(ctx, &items); err != nil {
				t.Fatal(err)
			}
			n += len(items)
		}
		return n
	}
	save(1, "short")
	save(1, "short, changed") // its header
	save(2, "short")
	save(2, strings.Repeat("long ", 80)) // a delta, the header left as it was
	save(3, "short")
	save(4, "still under way")
	// Session 3's header as partials were before their entries: indexed in
	// GSI1, no entry of its own.
	var head map[string]any
	if err := table.Get(store.AttrPK, store.SessionPK(sv.ID, session(3))).Range(store.AttrSK, dynamo.Equal, store.SessionSK(session(3))).
		Consistent(true).One(ctx, &head); err != nil {
		t.Fatal(err)
	}
	head[store.AttrGSI1PK] = store.PartialsKey(sv.ID, store.PartialShard(session(3)))
	head[store.AttrGSI1SK] = fmt.Sprintf("%s#%020d", head["updated_at"], int64(head[store.AttrPartialID].(float64)))
	if err := table.Put(head).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := table.Delete(store.AttrPK, store.PartialEntryPK(sv.ID, store.PartialShard(session(3)))).
		Range(store.AttrSK, head[store.AttrGSI1SK]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := entries(); n != 3 {
		t.Fatalf("%d entries before the responses, want 3", n)
	}
	if page, err := st.PartialsPage(ctx, sv.ID, store.PartialQuery{}); err != nil || len(page.Partials) != 4 {
		t.Fatalf("listed before the responses: %+v %v", page, err)
	}
	for n := 1; n <= 3; n++ {
		if _, err := st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
			Answers: map[int64]json.RawMessage{}}, KeyHash: session(50 + n), BodyHash: "b", Session: session(n)}); err != nil {
			t.Fatal(err)
		}
	}
	// Listed no more at once (each entry checked against its session)...
	page, err := st.PartialsPage(ctx, sv.ID, store.PartialQuery{})
	if err != nil || len(page.Partials) != 1 || string(page.Partials[0].Answers[7]) != `"still under way"` {
		t.Fatalf("listed after the responses: %+v %v", page, err)
	}
	// ... and their entries gone once the tally has read the claims.
	testenv.Tally(t)
	if n := entries(); n != 1 {
		t.Errorf("%d entries after the responses, want 1 (the partial under way)", n)
	}
	if c, err := st.SurveyCollection(ctx, a.ID, sv.ID); err != nil || c.Survey.PartialResponses != 1 {
		t.Errorf("partial_responses_count %d (%v), want 1", c.Survey.PartialResponses, err)
	}
}

// proSurvey is a survey of a Pro account's (partial responses need the
// plan), in a folder of its own.
func proSurvey(t *testing.T, st *store.Store, name string) (survey.Account, survey.Survey) {
	t.Helper()
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(context.Background(), a.ID, "partials", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, testenv.NewSurvey(t, st, a.ID, f.ID, name)
}
