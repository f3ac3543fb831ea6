package responders_test

import (
	"fmt"
	"strconv"
	"testing"
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
