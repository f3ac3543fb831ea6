package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/guregu/dynamo/v2"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func surveyPath(slug string) string   { return "/api/public/surveys/" + slug + "/" }
func sessionsPath(slug string) string { return "/api/public/surveys/" + slug + "/sessions/" }
func responsesPath(slug string) string {
	return "/api/public/surveys/" + slug + "/responses/"
}

var js = []string{"Content-Type", "application/json"}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// startSession posts a session request; body fields are given as a map.
func (f fixture) startSession(tb testing.TB, slug string, body map[string]any) reply {
	tb.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return send(tb, f.h, "POST", sessionsPath(slug), mustJSON(tb, body), js...)
}

// session starts a session and returns its token; it fails the test on
// anything but 201.
func (f fixture) session(tb testing.TB, slug string, body map[string]any) string {
	tb.Helper()
	r := f.startSession(tb, slug, body)
	if r.code != 201 {
		tb.Fatalf("session %v: %d %s", body, r.code, r.body)
	}
	var out struct{ Session string }
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Session == "" {
		tb.Fatalf("session answer %s: %v", r.body, err)
	}
	return out.Session
}

var keySeq atomic.Int64

// newKey is a fresh Idempotency-Key.
func newKey() string { return fmt.Sprintf("key-%d", keySeq.Add(1)) }

// submit posts a response with the Idempotency-Key.
func (f fixture) submit(tb testing.TB, slug, key, body string) reply {
	tb.Helper()
	return send(tb, f.h, "POST", responsesPath(slug), body, "Content-Type", "application/json", "Idempotency-Key", key)
}

// respond submits answers under a session, with a fresh key.
func (f fixture) respond(tb testing.TB, slug, session string, answers map[string]any) reply {
	tb.Helper()
	if answers == nil {
		answers = map[string]any{}
	}
	return f.submit(tb, slug, newKey(), mustJSON(tb, map[string]any{"session": session, "answers": answers}))
}

// newHandler is the fixture's container serving with another store.
func newHandler(st responders.Store, f fixture) http.Handler {
	return testenv.Conform(responders.New(responders.Deps{Store: st, Sealer: f.sealer, Now: f.st.Now}))
}

// textQuestion adds a text question to the survey.
func (f fixture) textQuestion(tb testing.TB, sid int64, title string, required bool) int64 {
	tb.Helper()
	e := survey.NewElement(survey.TypeText)
	e.Title, e.AnswerRequired = title, required
	ch, err := f.st.CreateElement(context.Background(), f.aid, sid, e, survey.Placement{})
	if err != nil {
		tb.Fatal(err)
	}
	return ch.Element.ID
}

// choiceQuestion adds a question of a choice type with the named choices
// (ids from the store, as the elements function gives them), the one at
// index correct the answer key (none when out of range), and returns it.
func (f fixture) choiceQuestion(tb testing.TB, sid int64, t survey.ElementType, correct int, names ...string) survey.Element {
	tb.Helper()
	ctx := context.Background()
	ids, err := f.st.NewIDs(ctx, store.KindChoice, len(names))
	if err != nil {
		tb.Fatal(err)
	}
	e := survey.NewElement(t)
	e.Title = fmt.Sprintf("Pick (%d)", t)
	for i, n := range names {
		e.Choices = append(e.Choices, survey.ChoiceItem{ID: ids[i], Name: n, Order: i + 1})
	}
	if correct >= 0 && correct < len(ids) {
		e.CorrectChoice = &ids[correct]
	}
	ch, err := f.st.CreateElement(ctx, f.aid, sid, e, survey.Placement{})
	if err != nil {
		tb.Fatal(err)
	}
	return ch.Element
}

// stored counts the responses stored for the survey with a Query of its
// responses partition, and reads its submitted_responses.
func (f fixture) stored(tb testing.TB, sid int64) (responses int, count int64) {
	tb.Helper()
	ctx := context.Background()
	var items []struct {
		SK string `dynamo:"SK"`
	}
	table := f.db().Table(f.st.TableName())
	for shard := range store.ResponseShards {
		var got []struct {
			SK string `dynamo:"SK"`
		}
		err := table.Get(store.AttrPK, store.ResponsesShardPK(sid, shard)).Range(store.AttrSK, dynamo.BeginsWith, "RESPONSE#").
			Consistent(true).All(ctx, &got)
		if err != nil {
			tb.Fatal(err)
		}
		items = append(items, got...)
	}
	testenv.Tally(tb) // the count lags the submissions by the tally's pass
	sv, err := f.st.Survey(ctx, f.aid, sid)
	if err != nil {
		tb.Fatal(err)
	}
	return len(items), sv.SubmittedResponses
}

func (f fixture) db() *dynamo.DB { return dynamo.NewFromIface(f.st.Client()) }

// wantStored checks the survey holds n responses and counts n.
func (f fixture) wantStored(tb testing.TB, what string, sid int64, n int) {
	tb.Helper()
	got, count := f.stored(tb, sid)
	if got != n || count != int64(n) {
		tb.Errorf("%s: %d responses stored, submitted_responses %d; want %d and %d", what, got, count, n, n)
	}
}
