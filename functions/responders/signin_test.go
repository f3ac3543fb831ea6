package responders_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"testing"

	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
)

const (
	signInBody  = `{"detail":"Sign in to respond to this survey."}`
	alreadyBody = `{"detail":"You have already responded to this survey."}`
)

// proven is the session token with the proofs added, sealed as a confirm
// seals it (contract section 18): the tests of submission rules give a
// session its proof without a message.
func (f fixture) proven(tb testing.TB, sid int64, token, email, phone string) string {
	tb.Helper()
	ctx := context.Background()
	plain, err := f.sealer.OpenFor(ctx, links.PurposeSession, sid, token)
	if err != nil {
		tb.Fatal(err)
	}
	sess, err := responding.DecodeSession(plain)
	if err != nil {
		tb.Fatal(err)
	}
	if email != "" {
		sess.Email = email
	}
	if phone != "" {
		sess.Phone = phone
	}
	if sess.Origin == ([32]byte{}) { // the same session: its claim kept
		sess.Origin = sha256.Sum256([]byte(token))
	}
	out, err := f.sealer.SealFor(ctx, links.PurposeSession, sid, sess.Encode())
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// respondent is the stored respondent of the response rid.
func (f fixture) respondent(tb testing.TB, sid, rid int64) string {
	tb.Helper()
	r, err := f.st.StoredResponse(context.Background(), sid, rid)
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := json.Marshal(r.View().Respondent)
	return string(b)
}

// TestSignInAtSubmission: on a service_auth survey a session without a
// proven address, one started before the method was turned on, and one
// whose address the survey's domains no longer admit answer 403 (sign
// in); a proven one records the response with its respondent; a survey
// without sign-in stores none (null), whatever its session proved.
func TestSignInAtSubmission(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}})

	plain := f.session(t, slug, nil)
	f.respond(t, slug, plain, nil).is(t, 403, signInBody)

	ok := f.proven(t, sid, f.session(t, slug, nil), "ana@company.example", "")
	got := f.respond(t, slug, ok, nil).submitted(t)
	if r := f.respondent(t, sid, got.ID); r != `{"email":"ana@company.example"}` {
		t.Errorf("respondent %s", r)
	}

	foreign := f.proven(t, sid, f.session(t, slug, nil), "ana@sub.company.example", "")
	f.respond(t, slug, foreign, nil).is(t, 403, signInBody)

	// Started before the method was on: refused at submission.
	openSlug, openID := f.survey(t, nil)
	early := f.session(t, openSlug, nil)
	if err := f.st.UpdateSettings(ctx, f.aid, openID, store.SettingsUpdate{Set: map[string]any{"service_auth": true}}); err != nil {
		t.Fatal(err)
	}
	f.respond(t, openSlug, early, nil).is(t, 403, signInBody)

	// Without sign-in, a proof is not stored.
	noneSlug, noneID := f.survey(t, nil)
	got = f.respond(t, noneSlug, f.proven(t, noneID, f.session(t, noneSlug, nil), "ana@company.example", ""), nil).submitted(t)
	if r := f.respondent(t, noneID, got.ID); r != "null" {
		t.Errorf("respondent without sign-in %s, want null", r)
	}

	// The tally marks a survey some response of which recorded who signed
	// in: its tables keep the email and phone columns.
	testenv.Tally(t)
	for _, c := range []struct {
		sid  int64
		want bool
	}{{sid, true}, {noneID, false}} {
		sv, err := f.st.Survey(ctx, f.aid, c.sid)
		if err != nil {
			t.Fatal(err)
		}
		if sv.HasRespondents != c.want {
			t.Errorf("survey %d: HasRespondents %v, want %v", c.sid, sv.HasRespondents, c.want)
		}
	}
}

// TestOneResponsePerAddress: with service_auth_no_spam a proven address
// records one response (a later session of it 403), other addresses
// record theirs, and without service_auth_no_spam one address records
// many.
func TestOneResponsePerAddress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"service_auth": true, "service_auth_no_spam": true})
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "a@example.com", ""), nil).submitted(t)
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "a@example.com", ""), nil).is(t, 403, alreadyBody)
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "b@example.com", ""), nil).submitted(t)
	// One person across "+tag" addresses (contract section 18 as amended).
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "a+tag@example.com", ""), nil).is(t, 403, alreadyBody)
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "b+x@example.com", ""), nil).is(t, 403, alreadyBody)
	f.wantStored(t, "one address twice, another once", sid, 2)

	manySlug, manyID := f.survey(t, map[string]any{"service_auth": true})
	for range 2 {
		f.respond(t, manySlug, f.proven(t, manyID, f.session(t, manySlug, nil), "a@example.com", ""), nil).submitted(t)
	}
}

// TestIdentityRacesUnderContention: 10 sessions of one proven address
// racing on a service_auth_no_spam survey record one response, the rest
// 403; one session's 10 racing keys record one, the rest 409 (section
// 11); 10 different addresses all record theirs without one conflict (no
// item is shared between responders).
func TestIdentityRacesUnderContention(t *testing.T) {
	t.Parallel()
	set := map[string]any{"service_auth": true, "service_auth_no_spam": true}
	t.Run("one address, 10 sessions", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid := f.survey(t, set)
		sessions := make([]string, 10)
		for i := range sessions {
			sessions[i] = f.proven(t, sid, f.session(t, slug, nil), "same@example.com", "")
		}
		replies, _ := raceSessions(t, f, p, slug, sessions)
		wantOneWinner(t, replies, 403, alreadyBody)
		f.wantStored(t, "after the race", sid, 1)
	})
	t.Run("one session, 10 keys", func(t *testing.T) {
		t.Parallel()
		f, _ := conflictFixture(t)
		slug, sid := f.survey(t, set)
		sess := f.proven(t, sid, f.session(t, slug, nil), "same@example.com", "")
		replies := race(10, func(i int) reply {
			return f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{}, "variables": map[string]any{}}))
		})
		t.Logf("10 keys of one session: %s", outcomes(replies))
		wantOneWinner(t, replies, 409, sessionRespondedBody)
		f.wantStored(t, "after the race", sid, 1)
	})
	t.Run("10 addresses", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid := f.survey(t, set)
		sessions := make([]string, 10)
		for i := range sessions {
			sessions[i] = f.proven(t, sid, f.session(t, slug, nil), "r"+strconv.Itoa(i)+"@example.com", "")
		}
		replies, conflicts := raceSessions(t, f, p, slug, sessions)
		for _, r := range replies {
			if r.code != 201 {
				t.Errorf("one of 10 addresses answered %d %s", r.code, r.body)
			}
		}
		if conflicts != 0 {
			t.Errorf("10 addresses' submissions met %d conflicts: they share an item", conflicts)
		}
		f.wantStored(t, "after 10 addresses", sid, 10)
	})
}

// raceSessions submits one empty response under each session at once,
// logs the outcomes and answers them and the conflicts they met.
func raceSessions(t *testing.T, f fixture, p *conflict.Proxy, slug string, sessions []string) ([]reply, int64) {
	t.Helper()
	before := p.Conflicts()
	replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	n := p.Conflicts() - before
	t.Logf("%d sessions: %s (%d conflicts)", len(sessions), outcomes(replies), n)
	return replies, n
}
