package responders_test

import (
	"testing"

	"surveyservice/shared/sending"
)

// TestConfirmedSessionRespondsOnce (contract sections 11 and 18): a
// confirm's session is the session it was sent for, plus a proof, and a
// session records one response: after the confirmed session's response,
// a session confirmed again from it, or from the session it came from
// (both confirmed before the response: after it, a send or a confirm for
// any of them answers 409, TestVerifyRespondedSession), answers 409
// "This session has already responded." and records nothing. Each
// confirm sealed a session with a claim of its own, so one session
// recorded a response per confirm (three from one start).
func TestConfirmedSessionRespondsOnce(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, sid := v.survey(t, map[string]any{"service_auth": true})
	confirm := func(sess, address string) string {
		t.Helper()
		ver := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "email", "address": address}).verification(t)
		return v.confirm(t, slug, sess, ver, v.out.lastCode(t, address)).confirmed(t)
	}
	first := v.session(t, slug, nil)
	proven := confirm(first, "one@example.com")
	agains := []struct{ name, session string }{
		{"confirmed again from the confirmed session", confirm(proven, "two@example.com")},
		{"confirmed again from the first session", confirm(first, "three@example.com")},
	}
	v.respond(t, slug, proven, nil).submitted(t)
	for _, tc := range agains {
		if r := v.respond(t, slug, tc.session, nil); r.code != 409 || r.body != `{"detail":"This session has already responded."}` {
			t.Errorf("%s: %d %s, want 409", tc.name, r.code, r.body)
		}
	}
	v.wantStored(t, "one session", sid, 1)
}
