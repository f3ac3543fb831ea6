package responders_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"surveyservice/shared/responding"
)

// browser is one responder's cookie jar: the responder cookie the
// sessions route set.
type browser struct{ cookie string }

// start starts a session as this browser, keeping the cookie it is given.
func (b *browser) start(tb testing.TB, f fixture, slug string, body map[string]any, headers ...string) (reply, string) {
	tb.Helper()
	if body == nil {
		body = map[string]any{}
	}
	h := append([]string{"Content-Type", "application/json"}, headers...)
	if b.cookie != "" {
		h = append(h, "Cookie", responding.ResponderCookieName+"="+b.cookie)
	}
	r := send(tb, f.h, "POST", sessionsPath(slug), mustJSON(tb, body), h...)
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == responding.ResponderCookieName {
			b.cookie = c.Value
		}
	}
	var out struct{ Session string }
	json.Unmarshal([]byte(r.body), &out)
	return r, out.Session
}

// submit submits answers under a session as this browser.
func (b *browser) submit(tb testing.TB, f fixture, slug, session string, extra map[string]any, headers ...string) reply {
	tb.Helper()
	body := map[string]any{"session": session, "answers": map[string]any{}}
	for k, v := range extra {
		body[k] = v
	}
	h := append([]string{"Content-Type", "application/json", "Idempotency-Key", newKey()}, headers...)
	if b.cookie != "" {
		h = append(h, "Cookie", responding.ResponderCookieName+"="+b.cookie)
	}
	return send(tb, f.h, "POST", responsesPath(slug), mustJSON(tb, body), h...)
}

// TestResponderCookie: every session route sets the responder cookie when
// the request has none (HttpOnly, Secure, Lax, a year, Path=/), never
// replaces one, and in a frame makes it SameSite=None and Partitioned.
func TestResponderCookie(t *testing.T) {
	f := newFixture(t)
	slug, _ := f.survey(t, nil)
	r := f.startSession(t, slug, nil)
	set := r.header.Get("Set-Cookie")
	for _, want := range []string{"responder=", "Path=/", "Max-Age=31536000", "HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q lacks %s", set, want)
		}
	}
	b := &browser{}
	b.start(t, f, slug, nil)
	first := b.cookie
	if r, _ := b.start(t, f, slug, nil); r.header.Get("Set-Cookie") != "" || b.cookie != first {
		t.Errorf("a present cookie was replaced: %q", r.header.Get("Set-Cookie"))
	}
	r = f.startSession(t, slug, nil)
	framed := send(t, f.h, "POST", sessionsPath(slug), "{}", "Content-Type", "application/json", "Sec-Fetch-Dest", "iframe").header.Get("Set-Cookie")
	for _, want := range []string{"SameSite=None", "Secure", "Partitioned"} {
		if !strings.Contains(framed, want) {
			t.Errorf("framed Set-Cookie %q lacks %s", framed, want)
		}
	}
}

// TestNoSpam: one response per responder cookie: the second answers 403,
// a submission without the session's cookie 400, and nothing is recorded
// by either.
func TestNoSpam(t *testing.T) {
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"no_spam": true})
	b := &browser{}
	_, s1 := b.start(t, f, slug, nil)
	_, s2 := b.start(t, f, slug, nil)
	if r := b.submit(t, f, slug, s1, nil); r.code != 201 {
		t.Fatalf("first: %d %s", r.code, r.body)
	}
	b.submit(t, f, slug, s2, nil).is(t, 403, `{"detail":"You have already responded to this survey."}`)

	other := &browser{}
	_, s3 := other.start(t, f, slug, nil)
	needs := `{"detail":"This survey needs cookies to accept your response."}`
	(&browser{}).submit(t, f, slug, s3, nil).is(t, 400, needs)                  // no cookie
	b.submit(t, f, slug, s3, nil).is(t, 400, needs)                             // another responder's cookie
	(&browser{cookie: "garbage"}).submit(t, f, slug, s3, nil).is(t, 400, needs) // not ours
	f.wantStored(t, "after refusals", sid, 1)
	if r := other.submit(t, f, slug, s3, nil); r.code != 201 {
		t.Errorf("another responder: %d %s", r.code, r.body)
	}
	f.wantStored(t, "two responders", sid, 2)
}

// TestNoSpamRace: of one responder's racing submissions (sessions of one
// cookie, different keys), exactly one is recorded.
func TestNoSpamRace(t *testing.T) {
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"no_spam": true})
	b := &browser{}
	sessions := make([]string, 6)
	for i := range sessions {
		_, sessions[i] = b.start(t, f, slug, nil)
	}
	codes := make([]int, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = b.submit(t, f, slug, s, nil).code
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		if c == 201 {
			won++
		} else if c != 403 {
			t.Errorf("a racing submission answered %d", c)
		}
	}
	if won != 1 {
		t.Errorf("%d responses recorded (%v), want 1", won, codes)
	}
	f.wantStored(t, "after the race", sid, 1)
}

// TestTagSpam: with tag_spam a repeated responder's response is kept and
// marked, the first is not; under races too, exactly one is unmarked.
func TestTagSpam(t *testing.T) {
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"no_spam": true, "tag_spam": true})
	b := &browser{}
	sessions := make([]string, 4)
	for i := range sessions {
		_, sessions[i] = b.start(t, f, slug, nil)
	}
	ids := make([]int64, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.submit(t, f, slug, s, nil)
			var out struct{ ID int64 }
			json.Unmarshal([]byte(r.body), &out)
			if r.code != 201 {
				t.Errorf("tag_spam submission: %d %s", r.code, r.body)
			}
			ids[i] = out.ID
		}()
	}
	wg.Wait()
	f.wantStored(t, "all kept", sid, len(sessions))
	clean := 0
	for _, id := range ids {
		resp, err := f.st.Response(context.Background(), f.aid, sid, id)
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Spam {
			clean++
		}
	}
	if clean != 1 {
		t.Errorf("%d responses unmarked, want 1", clean)
	}
	sv, _ := f.st.Survey(context.Background(), f.aid, sid)
	_ = sv
}

// TestLocationAndDetails: location is checked and stored where the survey
// collects it (required: refused without), ignored elsewhere; responder
// details are API Gateway's source IP (never X-Forwarded-For) and the
// User-Agent, unless hidden.
func TestLocationAndDetails(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	loc := map[string]any{"latitude": 35.7, "longitude": 51.4, "accuracy_m": 20}
	stored := func(r reply, sid int64) (resp struct {
		Location  map[string]any
		Responder map[string]any
	}) {
		t.Helper()
		var out struct{ ID int64 }
		if err := json.Unmarshal([]byte(r.body), &out); err != nil || r.code != 201 {
			t.Fatalf("%d %s", r.code, r.body)
		}
		got, err := f.st.Response(ctx, f.aid, sid, out.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got.View())
		json.Unmarshal(b, &resp)
		return resp
	}

	slug, sid := f.survey(t, map[string]any{"location_is_active": true, "location_is_required": true})
	b := &browser{}
	const need = `{"location":["This survey needs your location."]}`
	const bad = `{"location":["Send {\"latitude\": -90..90, \"longitude\": -180..180, \"accuracy_m\": \u003e= 0}."]}`
	_, s := b.start(t, f, slug, nil)
	b.submit(t, f, slug, s, nil).is(t, 400, need)
	b.submit(t, f, slug, s, map[string]any{"location": nil}).is(t, 400, need)
	for _, l := range []any{"here", map[string]any{"latitude": 91, "longitude": 0, "accuracy_m": 1}, map[string]any{"latitude": 0, "longitude": -181, "accuracy_m": 1},
		map[string]any{"latitude": 0, "longitude": 0, "accuracy_m": -1}, map[string]any{"latitude": "0", "longitude": 0, "accuracy_m": 1}, map[string]any{"latitude": 0}} {
		r := b.submit(t, f, slug, s, map[string]any{"location": l})
		if r.code != 400 || !strings.Contains(r.body, `"location"`) {
			t.Errorf("location %v: %d %s", l, r.code, r.body)
		}
	}
	r := b.submit(t, f, slug, s, map[string]any{"location": loc}, "X-Forwarded-For", "203.0.113.9", "User-Agent", "Phone/1.0")
	got := stored(r, sid)
	if got.Location["latitude"] != 35.7 || got.Location["accuracy_m"] != float64(20) {
		t.Errorf("location %v", got.Location)
	}
	if got.Responder["ip"] != "192.0.2.1" || got.Responder["user_agent"] != "Phone/1.0" {
		t.Errorf("responder %v: want the connection's address, never X-Forwarded-For", got.Responder)
	}

	plain, psid := f.survey(t, map[string]any{"hidden_responder_details": true})
	_, s = b.start(t, f, plain, nil)
	got = stored(b.submit(t, f, plain, s, map[string]any{"location": loc}), psid)
	if got.Location != nil || got.Responder != nil {
		t.Errorf("a survey without location and with hidden details stored %v %v", got.Location, got.Responder)
	}
}
