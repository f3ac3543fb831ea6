package responders_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"surveyservice/shared/links"
)

// TestPartialAfterItsResponse (contract section 20 and section 3 as
// amended): once a session's response is recorded, its partial answers
// 409 "This session has already responded." and writes nothing, also on a
// survey whose gates the response itself spent. On a unique-code survey
// the session's own response spends its code, and the page's last PUT
// (which may race its own submission) answered 403 "Authentication
// failed." as if the responder had no code. A session whose code another
// session spent is still refused 403.
func TestPartialAfterItsResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	set := map[string]any{"partial_responses": true, "code_auth": true, "code_auth_is_unique": true}
	slug, sid := f.survey(t, set, "solo")
	q := strconv.FormatInt(f.textQuestion(t, sid, "Name", false), 10)
	put := func(sess string) reply {
		return send(t, f.h, "PUT", partialPath(slug), fmt.Sprintf(`{"session":%q,"page":0,"answers":{%q:"late"}}`, sess, q), js...)
	}
	own := f.session(t, slug, map[string]any{"code": "solo"})
	other := f.session(t, slug, map[string]any{"code": "solo"}) // started before the code was spent
	if r := put(own); r.code != 204 {
		t.Fatalf("partial before the response: %d %s", r.code, r.body)
	}
	f.respond(t, slug, own, map[string]any{q: "done"}).submitted(t)
	for _, tc := range []struct {
		name, sess string
		code       int
		want       string
	}{
		{"its own session", own, 409, `{"detail":"This session has already responded."}`},
		{"another session of the spent code", other, 403, `{"detail":"Authentication failed."}`},
	} {
		if r := put(tc.sess); r.code != tc.code || r.body != tc.want {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.code, r.body, tc.code, tc.want)
		}
	}
}

// TestPartialOfUsedLink (contract sections 20 and 11): a partial's other
// refusals are a submission's, and a one-use link admits one response: a
// session started with the link before another session's response spent
// it answers 410 "This link has been used." and writes nothing (it was
// saved, 204, for a response that could never be recorded); the session
// that spent it answers 409 as above.
func TestPartialOfUsedLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"partial_responses": true})
	q := strconv.FormatInt(f.textQuestion(t, sid, "Name", false), 10)
	tokens, err := f.sealer.Seal(context.Background(), sid, []links.Payload{{Unique: true}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(sess string) reply {
		return send(t, f.h, "PUT", partialPath(slug), fmt.Sprintf(`{"session":%q,"page":0,"answers":{%q:"late"}}`, sess, q), js...)
	}
	winner := f.session(t, slug, map[string]any{"qs": tokens[0]})
	loser := f.session(t, slug, map[string]any{"qs": tokens[0]})
	if r := put(loser); r.code != 204 {
		t.Fatalf("partial before the link was used: %d %s", r.code, r.body)
	}
	f.respond(t, slug, winner, map[string]any{q: "done"}).submitted(t)
	for _, tc := range []struct {
		name, sess string
		code       int
		want       string
	}{
		{"the session that used it", winner, 409, `{"detail":"This session has already responded."}`},
		{"another session of the link", loser, 410, `{"detail":"This link has been used."}`},
	} {
		if r := put(tc.sess); r.code != tc.code || r.body != tc.want {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.code, r.body, tc.code, tc.want)
		}
	}
}
