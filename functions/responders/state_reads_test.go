package responders_test

import (
	"context"
	"strings"
	"testing"

	"surveyservice/shared/sending"
	"surveyservice/shared/store"
)

// TestEveryRouteSeesTheStateAtOnce: the public routes read a survey off a
// read copy of its state (one of store.SurveyStateCopies, at random) and
// the container's copy of its collection, not off the survey item; an
// owner's change shows on the very next request of each: after a stop, a
// reopening, the trash, a restore, an expiration date of today, its
// clearing and a rename, each of several views, session starts,
// challenges and code sends (a warm container, every copy met) answers
// as the survey now is: a stopped or closed survey's page says so and
// its sessions and codes answer 410; a trashed one's page and challenge
// 404 (its sessions and codes 410).
func TestEveryRouteSeesTheStateAtOnce(t *testing.T) {
	v := newVerifier(t, sending.Limits{Address: wideBudget, Client: wideBudget, Survey: wideBudget, Account: wideBudget})
	ctx := context.Background()
	slug, sid := v.survey(t, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}})
	v.textQuestion(t, sid, "Q", false)
	type want struct {
		view               int
		state, name        string
		session, challenge int
		// send is a code's answer for a session that opens for no survey:
		// 400 on session when the survey is open, 410 when not (both
		// before the challenge is looked at).
		send int
	}
	captcha := v.solved(t, slug) // never spent: every send is refused before its challenge is looked at
	open := want{view: 200, state: "open", name: "Coded", session: 201, challenge: 200, send: 400}
	expect := func(step string, w want) {
		t.Helper()
		for i := range 2 * store.SurveyStateCopies {
			r := send(t, v.h, "GET", surveyPath(slug), "")
			if r.code != w.view || w.view == 200 && (!strings.Contains(r.body, `"state":"`+w.state+`"`) || !strings.Contains(r.body, `"name":"`+w.name+`"`)) {
				t.Fatalf("%s: view %d: %d %s, want %d, state %s, name %s", step, i, r.code, r.body, w.view, w.state, w.name)
			}
			if r := v.startSession(t, slug, nil); r.code != w.session {
				t.Fatalf("%s: session %d: %d %s, want %d", step, i, r.code, r.body, w.session)
			}
			if r := send(t, v.h, "GET", challengePath(slug), ""); r.code != w.challenge {
				t.Fatalf("%s: challenge %d: %d %s, want %d", step, i, r.code, r.body, w.challenge)
			}
			r = v.sendCode(t, slug, map[string]any{"session": "x", "channel": "email", "address": "a@company.example", "captcha": captcha})
			if r.code != w.send || w.send == 400 && !strings.Contains(r.body, `"session"`) {
				t.Fatalf("%s: code %d: %d %s, want %d", step, i, r.code, r.body, w.send)
			}
		}
	}
	expect("open", open)
	stop, reopen := true, false
	renamed := "Renamed"
	closed := func(state string) want {
		return want{view: 200, state: state, name: "Coded", session: 410, challenge: 200, send: 410}
	}
	for _, s := range []struct {
		name string
		do   func() error
		want want
	}{
		{"stopped", func() error { return v.st.UpdateSettings(ctx, v.aid, sid, store.SettingsUpdate{IsStopped: &stop}) }, closed("stopped")},
		{"reopened", func() error { return v.st.UpdateSettings(ctx, v.aid, sid, store.SettingsUpdate{IsStopped: &reopen}) }, open},
		{"trashed", func() error { return v.st.TrashSurvey(ctx, v.aid, sid) }, want{view: 404, session: 410, challenge: 404, send: 410}},
		{"restored", func() error { return v.st.RestoreSurvey(ctx, v.aid, sid, nil) }, open},
		{"expired today", func() error {
			return v.st.UpdateSettings(ctx, v.aid, sid, store.SettingsUpdate{Expire: true, Expiration: v.st.Now().UTC().Format("2006-01-02")})
		}, closed("closed")},
		{"expiration cleared", func() error { return v.st.UpdateSettings(ctx, v.aid, sid, store.SettingsUpdate{Expire: true}) }, open},
		{"renamed", func() error { return v.st.UpdateSurvey(ctx, v.aid, sid, store.SurveyUpdate{Name: &renamed}) }, want{view: 200, state: "open", name: "Renamed", session: 201, challenge: 200, send: 400}},
	} {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		expect(s.name, s.want)
	}
}
