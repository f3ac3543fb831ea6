package responders_test

import (
	"context"
	"testing"
	"time"

	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/sending"
)

// TestVerifyRespondedSession (contract sections 11 and 18): once a
// session's response is recorded the session can never respond again, so
// sending it a code answers 409 "This session has already responded.",
// sends nothing and spends no budget and not its challenge (which then
// sends a code for another session); so does the session it was
// confirmed from (the same claim), a session sealed before sessions had
// partitions of their own (its claim in the responses' partitions), and
// confirming a code sent to it before its response. A bad field or a
// wrong challenge still answers its 400 first. Each of these sends was
// sent (202) and each confirm answered a session that could not respond.
func TestVerifyRespondedSession(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, sid := v.survey(t, map[string]any{"service_auth": true})
	// responded signs session in as one@, sends two@ a code it will not
	// confirm, and responds: the proven session and the pending code.
	responded := func(first, one, two string) (proven, pending string) {
		t.Helper()
		ver := v.sendCode(t, slug, map[string]any{"session": first, "channel": "email", "address": one}).verification(t)
		proven = v.confirm(t, slug, first, ver, v.out.lastCode(t, one)).confirmed(t)
		pending = v.sendCode(t, slug, map[string]any{"session": proven, "channel": "email", "address": two}).verification(t)
		v.respond(t, slug, proven, nil).submitted(t)
		return proven, pending
	}
	first := v.session(t, slug, nil)
	proven, pending := responded(first, "one@example.com", "two@example.com")
	// A token as sessions were sealed before: no mark.
	legacyFirst, err := v.sealer.SealFor(context.Background(), links.PurposeSession, sid,
		responding.Session{StartedAt: time.Now().UTC().Truncate(time.Microsecond)}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v.open(t, sid, legacyFirst).OwnPartition {
		t.Fatal("the legacy token is marked as having a partition of its own")
	}
	legacy, legacyPending := responded(legacyFirst, "old-one@example.com", "old-two@example.com")

	sentBefore := len(v.out.messages())
	budgets := sending.NewBudgets(v.st, v.st.Now)
	clientUsed := func() int {
		t.Helper()
		n, err := budgets.Used(context.Background(), sending.DefaultLimits.ClientBudget("verify", v.ip))
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	usedBefore := clientUsed()
	const respondedBody = `{"detail":"This session has already responded."}`
	var unspent map[string]any // a challenge a 409 refused
	sends := []struct {
		name    string
		session string
		change  map[string]any
		code    int
		want    string
	}{
		{"the session that responded", proven, nil, 409, respondedBody},
		{"the session it was confirmed from", first, nil, 409, respondedBody},
		{"a session sealed before that responded", legacy, nil, 409, respondedBody},
		{"the session that one was confirmed from", legacyFirst, nil, 409, respondedBody},
		{"an unknown channel first", proven, map[string]any{"channel": "x"}, 400, `{"channel":["\"x\" is not a valid choice."]}`},
		{"a malformed address first", proven, map[string]any{"address": "nope"}, 400, `{"address":["Enter a valid email address."]}`},
		{"a wrong challenge first", proven, map[string]any{"captcha": map[string]any{"challenge": "x", "nonce": "1"}}, 400,
			`{"captcha":["Invalid challenge."]}`},
	}
	for _, tt := range sends {
		t.Run("send/"+tt.name, func(t *testing.T) {
			body := map[string]any{"session": tt.session, "channel": "email", "address": "three@example.com", "captcha": v.solved(t, slug)}
			for k, x := range tt.change {
				body[k] = x
			}
			v.sendCode(t, slug, body).is(t, tt.code, tt.want)
			if tt.code == 409 {
				unspent = body["captcha"].(map[string]any)
			}
		})
	}
	confirms := []struct{ name, session, verification, address string }{
		{"a code sent before the response", proven, pending, "two@example.com"},
		{"a code sent to a session sealed before, before its response", legacy, legacyPending, "old-two@example.com"},
	}
	for _, tt := range confirms {
		t.Run("confirm/"+tt.name, func(t *testing.T) {
			v.confirm(t, slug, tt.session, tt.verification, v.out.lastCode(t, tt.address)).is(t, 409, respondedBody)
		})
	}
	if n := len(v.out.messages()); n != sentBefore {
		t.Errorf("%d messages sent after the response, want none", n-sentBefore)
	}
	if n := clientUsed(); n != usedBefore {
		t.Errorf("the client's budget went from %d to %d, want no change", usedBefore, n)
	}
	if unspent == nil {
		t.Fatal("no send answered 409")
	}
	other := v.session(t, slug, nil)
	v.sendCode(t, slug, map[string]any{"session": other, "channel": "email", "address": "four@example.com", "captcha": unspent}).verification(t)
}
