package tally_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

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
	a, _ := testenv.NewAccount(t, survey.PlanPro)
	f, err := st.CreateFolder(ctx, a.ID, "partials", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "half done")
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
		got, err := st.Survey(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.PartialResponses != n || got.SubmittedResponses < 0 {
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
