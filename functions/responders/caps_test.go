package responders_test

import (
	"context"
	"encoding/json"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

const fullBody = `{"detail":"This survey is full."}`

// limitSettings is a response_limit of n set where there was none, as the
// settings PATCH writes it: a new generation of counters and, as base,
// the responses recorded so far.
func limitSettings(n, gen, base int64) map[string]any {
	return map[string]any{"response_limit": n, "response_limit_gen": gen, "response_limit_base": base}
}

// publicState reads the public survey's state and closed.
func (f fixture) publicState(t *testing.T, slug string) (string, bool) {
	t.Helper()
	r := send(t, f.h, "GET", surveyPath(slug), "")
	var v struct {
		State  string `json:"state"`
		Closed bool   `json:"closed"`
	}
	if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil {
		t.Fatalf("public survey: %d %s", r.code, r.body)
	}
	return v.State, v.Closed
}

// TestResponseLimitExactUnderRaces (contract section 25): 60 submissions
// racing for 20 places, on DynamoDB behind the conflict model, record
// exactly 20 (20 × 201, 40 × 410 "This survey is full.", no 503), and
// the survey counts 20; it then reads full and closed, and a new session
// answers 410. Deleting a response frees its place (one more 201, then
// 410 again); raising the limit reopens it for exactly the new places;
// lowering it below the count closes it, removing nothing.
func TestResponseLimitExactUnderRaces(t *testing.T) {
	t.Parallel()
	f, p := conflictFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, limitSettings(20, 1, 0))
	if state, closed := f.publicState(t, slug); state != "open" || closed {
		t.Fatalf("before: state %q closed %v, want open", state, closed)
	}
	sessions := make([]string, 60)
	for i := range sessions {
		sessions[i] = f.session(t, slug, nil)
	}
	before := p.Conflicts()
	replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	t.Logf("60 for 20 places: %s (%d conflicts)", outcomes(replies), p.Conflicts()-before)
	var won []int64
	for _, r := range replies {
		switch {
		case r.code == 201:
			won = append(won, r.submitted(t).ID)
		case r.code != 410 || r.body != fullBody:
			t.Errorf("a racing submission answered %d %s, want 201 or 410 %s", r.code, r.body, fullBody)
		}
	}
	if len(won) != 20 {
		t.Fatalf("%d × 201, want exactly 20: %s", len(won), outcomes(replies))
	}
	f.wantStored(t, "after 60 for 20 places", sid, 20)
	if state, closed := f.publicState(t, slug); state != "full" || !closed {
		t.Errorf("full: state %q closed %v, want full and closed", state, closed)
	}
	f.startSession(t, slug, nil).is(t, 410, fullBody)

	// A deleted response frees its place: exactly one more.
	if err := f.st.DeleteResponse(ctx, f.aid, sid, won[0]); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)
	if state, _ := f.publicState(t, slug); state != "open" {
		t.Errorf("after a deletion: state %q, want open", state)
	}
	more := make([]string, 3)
	for i := range more {
		more[i] = f.session(t, slug, nil)
	}
	f.respond(t, slug, more[0], nil).submitted(t)
	f.respond(t, slug, more[1], nil).is(t, 410, fullBody)
	f.wantStored(t, "after a deletion and one more", sid, 20)

	// Raising the limit reopens it for its new places only.
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"response_limit": 25}}); err != nil {
		t.Fatal(err)
	}
	sessions = make([]string, 10)
	for i := range sessions {
		sessions[i] = f.session(t, slug, nil)
	}
	replies = race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	n201 := 0
	for _, r := range replies {
		if r.code == 201 {
			n201++
		} else if r.code != 410 || r.body != fullBody {
			t.Errorf("after raising: %d %s", r.code, r.body)
		}
	}
	if n201 != 5 {
		t.Errorf("raised to 25: %d × 201, want 5 (%s)", n201, outcomes(replies))
	}
	f.wantStored(t, "raised to 25", sid, 25)

	// Lowering below the count closes it; nothing recorded goes.
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"response_limit": 10}}); err != nil {
		t.Fatal(err)
	}
	f.startSession(t, slug, nil).is(t, 410, fullBody)
	f.respond(t, slug, more[2], nil).is(t, 410, fullBody)
	f.wantStored(t, "lowered to 10", sid, 25)
}
