package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestSubmit: a submission is written whole, once per Idempotency-Key; an
// expired key records anew; has_response flags survive the owner's later
// writes of the variables.
func TestSubmit(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "submit", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := st.CreateVariables(ctx, a.ID, sv.ID, nil, 0, []survey.Variable{{Name: "city", Type: 1}, {Name: "age", Type: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sub := func(key, body string, flag ...int64) store.Submission {
		return store.Submission{
			Response: survey.Response{
				SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute),
				Answers:   map[int64]json.RawMessage{7: json.RawMessage(`"x"`)},
				Variables: map[string]any{"city": "Yazd"},
			},
			KeyHash: key, BodyHash: body, NewlyRespondedVariables: flag,
		}
	}
	first, err := st.Submit(ctx, sub("k1", "b1", vars[0].ID))
	if err != nil || first.Replayed || first.ID == 0 {
		t.Fatalf("Submit = %+v, %v", first, err)
	}
	again, err := st.Submit(ctx, sub("k1", "b1", vars[0].ID))
	if err != nil || !again.Replayed || again.ID != first.ID || !again.SubmittedAt.Equal(first.SubmittedAt) {
		t.Errorf("the same key and body = %+v, %v; want a replay of %+v", again, err, first)
	}
	if _, err := st.Submit(ctx, sub("k1", "b2")); !errors.Is(err, survey.ErrReusedKey) {
		t.Errorf("the same key with another body = %v, want ErrReusedKey", err)
	}
	wantCount(t, st, a.ID, sv.ID, 1)

	// The owner writes the variables: the flag stays; a new variable is
	// not flagged.
	_, vs, version, err := st.SurveyVariables(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateVariables(ctx, a.ID, sv.ID, vs, version, []survey.Variable{{Name: "zone", Type: 1}}); err != nil {
		t.Fatal(err)
	}
	_, vs, _, err = st.SurveyVariables(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, v := range vs {
		flags[v.Name] = v.HasResponse
	}
	if !flags["city"] || flags["age"] || flags["zone"] || len(flags) != 3 {
		t.Errorf("has_response after the owner's write: %v, want city only", flags)
	}

	// A key past its time records a new response.
	later := otherContainer(t, st)
	later.Now = func() time.Time { return time.Now().Add(store.IdempotencyTTL + time.Hour) }
	fresh, err := later.Submit(ctx, sub("k1", "b2"))
	if err != nil || fresh.Replayed || fresh.ID == first.ID {
		t.Errorf("an expired key = %+v, %v; want a new response", fresh, err)
	}
	wantCount(t, st, a.ID, sv.ID, 2)

	// A trashed survey takes no response, and its count stays.
	if err := st.TrashSurvey(ctx, a.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Submit(ctx, sub("k2", "b1")); !errors.Is(err, survey.ErrSurveyClosed) {
		t.Errorf("a response to a trashed survey = %v, want ErrSurveyClosed", err)
	}
	// But a retry of a success is still answered as one.
	if r, err := st.Submit(ctx, sub("k1", "b2")); err != nil || !r.Replayed || r.ID != fresh.ID {
		t.Errorf("a retry after the trash = %+v, %v; want the replay of %d", r, err, fresh.ID)
	}
	wantCount(t, st, a.ID, sv.ID, 2)
}

// otherContainer is another Lambda container's store on st's table.
func otherContainer(t *testing.T, st *store.Store) *store.Store {
	t.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(t), "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	return store.New(cfg, st.TableName())
}

func wantCount(t *testing.T, st *store.Store, aid, sid int64, n int64) {
	t.Helper()
	testenv.Tally(t) // the counts lag the submissions by the tally's pass
	c, err := st.SurveyCollection(context.Background(), aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	if c.Survey.SubmittedResponses != n {
		t.Errorf("submitted_responses %d, want %d", c.Survey.SubmittedResponses, n)
	}
}
