package responders_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"surveyservice/shared/responding"
	"surveyservice/shared/store"
)

// keyItems counts the table's Idempotency-Key items (IDEM#) of survey sid.
func (f fixture) keyItems(tb testing.TB, sid int64) int {
	tb.Helper()
	n := 0
	for k := range tableItems(tb, f) {
		pk, sk, _ := strings.Cut(k, "|")
		if (pk == store.ResponsesPK(sid) || strings.HasPrefix(pk, store.ResponsesPK(sid)+"#")) && strings.HasPrefix(sk, "IDEM#") {
			n++
		}
	}
	return n
}

// TestSessionOwnKey: the hosted page sends its session's own
// Idempotency-Key (responding.SessionKey), which is recorded on the
// session's claim instead of an item of its own (issue 42: 2 write units a
// response less), and keeps every promise of a key (contract section 11):
// racing sends of one key and body record one response, the others
// replay it; the same key with another body answers 422; another key of
// the session 409; a retry after the survey stopped replays the
// response; a response the survey's closing withdrew leaves the key
// unused. The page's key names its session: with another session it is
// refused (422) and spends nothing. A key of its own, the same steps,
// keeps its item. Before, every key wrote an item (one IDEM# item a
// response).
func TestSessionOwnKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		key   func(session string) string
		items int // IDEM# items a response
	}{
		{"a key of its own", func(string) string { return newKey() }, 1},
		{"the session's own key", responding.SessionKey, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, _ := conflictFixture(t)
			slug, sid := f.survey(t, nil)
			q := strconv.FormatInt(f.textQuestion(t, sid, "Q", false), 10)
			body := func(sess, text string) string {
				return mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{q: text}})
			}
			sess := f.session(t, slug, nil)
			key := tc.key(sess)
			replies := race(20, func(int) reply { return f.submit(t, slug, key, body(sess, "same")) })
			t.Logf("20 sends of one key: %s", outcomes(replies))
			first := oneResponse(t, replies)
			f.submit(t, slug, key, body(sess, "other")).is(t, 422, reusedKey)
			f.submit(t, slug, newKey(), body(sess, "other")).is(t, 409, sessionRespondedBody)
			f.wantStored(t, "after one session's keys", sid, 1)
			if n := f.keyItems(t, sid); n != tc.items {
				t.Errorf("%d Idempotency-Key items after one response, want %d", n, tc.items)
			}

			// The survey stopped: a retry still answers the response.
			stop := true
			if err := f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
				t.Fatal(err)
			}
			if r := f.submit(t, slug, key, body(sess, "same")); r.submitted(t) != first || r.header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("a retry after the stop: %d %s, want the replay of %+v", r.code, r.body, first)
			}
			f.submit(t, slug, key, body(sess, "other")).is(t, 422, reusedKey)
			stop = false
			if err := f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
				t.Fatal(err)
			}

			// Stopped inside the transaction: the fence withdraws the
			// response, its key's record with it, so the key is unused.
			late := f.session(t, slug, nil)
			lateKey := tc.key(late)
			stopper := &stopBeforeSubmit{Store: f.st, stop: func() error {
				stop := true
				return f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop})
			}}
			send(t, newHandler(stopper, f), "POST", responsesPath(slug), body(late, "late"),
				"Content-Type", "application/json", "Idempotency-Key", lateKey).is(t, 410, closedBody)
			f.wantStored(t, "after the withdrawal", sid, 1)
			stop = false
			if err := f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
				t.Fatal(err)
			}
			if r := f.submit(t, slug, lateKey, body(late, "late")); r.code != 201 || r.header.Get("Idempotent-Replayed") != "" {
				t.Errorf("the withdrawn response's key sent again: %d %s %v, want a new 201", r.code, r.body, r.header)
			}
			f.wantStored(t, "after the key sent again", sid, 2)
			if n := f.keyItems(t, sid); n != 2*tc.items {
				t.Errorf("%d Idempotency-Key items after two responses, want %d", n, 2*tc.items)
			}
		})
	}
	t.Run("the page's key with another session", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		slug, sid := f.survey(t, nil)
		q := strconv.FormatInt(f.textQuestion(t, sid, "Q", false), 10)
		mine, other := f.session(t, slug, nil), f.session(t, slug, nil)
		key := responding.SessionKey(mine)
		f.submit(t, slug, key, mustJSON(t, map[string]any{"session": other, "answers": map[string]any{q: "theirs"}})).is(t, 422, reusedKey)
		f.wantStored(t, "after the key of another session", sid, 0)
		// Nothing was spent: both sessions respond, each under its own key.
		f.submit(t, slug, key, mustJSON(t, map[string]any{"session": mine, "answers": map[string]any{q: "mine"}})).submitted(t)
		f.submit(t, slug, responding.SessionKey(other), mustJSON(t, map[string]any{"session": other, "answers": map[string]any{q: "theirs"}})).submitted(t)
		// A key that only begins as the page's does is a key of its own.
		third := f.session(t, slug, nil)
		f.submit(t, slug, "session:"+strings.Repeat("A", 31), mustJSON(t, map[string]any{"session": third, "answers": map[string]any{}})).submitted(t)
		f.wantStored(t, "after three sessions", sid, 3)
		if n := f.keyItems(t, sid); n != 1 {
			t.Errorf("%d Idempotency-Key items, want 1 (the third session's key of its own)", n)
		}
	})
}
