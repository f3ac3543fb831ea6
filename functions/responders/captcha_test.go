package responders_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/shared/challenge"
)

func challengePath(slug string) string { return "/api/public/surveys/" + slug + "/challenge/" }

// solved fetches a challenge of the survey and solves it, as the page's
// worker does.
func (f fixture) solved(tb testing.TB, slug string) map[string]any {
	tb.Helper()
	r := send(tb, f.h, "GET", challengePath(slug), "")
	if r.code != 200 {
		tb.Fatalf("challenge: %d %s", r.code, r.body)
	}
	var is challenge.Issued
	if err := json.Unmarshal([]byte(r.body), &is); err != nil {
		tb.Fatal(err)
	}
	return map[string]any{"challenge": is.Challenge, "nonce": challenge.Solve(is.Salt, is.Difficulty)}
}

// TestChallenge: every live survey answers a challenge: sealed, a salt of
// 16 bytes, the difficulty, expiring in 10 minutes; an unknown or trashed
// survey 404.
func TestChallenge(t *testing.T) {
	f := newFixture(t)
	slug, _ := f.survey(t, nil)
	r := send(t, f.h, "GET", challengePath(slug), "")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); r.code != 200 || err != nil {
		t.Fatalf("%d %s", r.code, r.body)
	}
	if len(got) != 4 || len(got["salt"].(string)) != 32 || got["difficulty"] != float64(challenge.Difficulty) || got["challenge"] == "" {
		t.Errorf("challenge %s", r.body)
	}
	exp, err := time.Parse(time.RFC3339, got["expires_at"].(string))
	if d := time.Until(exp); err != nil || d < 9*time.Minute || d > 10*time.Minute+time.Second || !strings.HasSuffix(got["expires_at"].(string), "Z") {
		t.Errorf("expires_at %v", got["expires_at"])
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
	}
	// A cold container's first challenge also sets up its sealing key; the
	// survey itself is one Query of its collection, never more.
	if r.ops["DynamoDB.Query"] != 1 || r.ops["DynamoDB.GetItem"] > 3 {
		t.Errorf("a challenge cost %v", r.ops)
	}
	// The next challenge of the survey reads one copy of its state (one
	// GetItem, not of the survey item: TestWarmRoutesReadNoSurveyItem)
	// and the container's copy of the survey.
	if again := send(t, f.h, "GET", challengePath(slug), ""); again.code != 200 || again.ops["DynamoDB.GetItem"] != 1 || len(again.ops) != 1 {
		t.Errorf("a second challenge: %d, DynamoDB calls %v; want 200 and one GetItem", again.code, again.ops)
	}
	send(t, f.h, "GET", challengePath("no-such-survey-x"), "").is(t, 404, `{"detail":"Not found."}`)
	// A trashed survey has no challenge, as it has no page: at once, even
	// in a container that issued one a moment before.
	trashed, tsid := f.survey(t, nil)
	if r := send(t, f.h, "GET", challengePath(trashed), ""); r.code != 200 {
		t.Fatalf("challenge before the trash: %d %s", r.code, r.body)
	}
	if err := f.st.TrashSurvey(context.Background(), f.aid, tsid); err != nil {
		t.Fatal(err)
	}
	send(t, f.h, "GET", challengePath(trashed), "").is(t, 404, `{"detail":"Not found."}`)
}

// TestCaptchaSession: a captcha_needed survey's session needs a solved
// challenge of that survey, spent by the session: absent, wrong, reused,
// expired, another survey's or malformed are each refused with 400 on
// captcha, and nothing else changes.
func TestCaptchaSession(t *testing.T) {
	f := newFixture(t)
	slug, _ := f.survey(t, map[string]any{"captcha_needed": true})
	other, _ := f.survey(t, nil)
	const invalid = `{"captcha":["Invalid challenge."]}`

	f.startSession(t, slug, nil).is(t, 400, `{"captcha":["This field is required."]}`)
	f.startSession(t, slug, map[string]any{"captcha": nil}).is(t, 400, `{"captcha":["This field is required."]}`)
	for _, bad := range []any{"x", 5, []any{}, map[string]any{"challenge": "x"}, map[string]any{"challenge": "x", "nonce": "1"}} {
		f.startSession(t, slug, map[string]any{"captcha": bad}).is(t, 400, invalid)
	}
	sol := f.solved(t, slug)
	wrong := map[string]any{"challenge": sol["challenge"], "nonce": sol["nonce"].(string) + "7"}
	f.startSession(t, slug, map[string]any{"captcha": wrong}).is(t, 400, invalid)
	f.startSession(t, slug, map[string]any{"captcha": f.solved(t, other)}).is(t, 400, invalid)

	r := f.startSession(t, slug, map[string]any{"captcha": sol})
	if r.code != 201 {
		t.Fatalf("solved: %d %s", r.code, r.body)
	}
	f.startSession(t, slug, map[string]any{"captcha": sol}).is(t, 400, invalid) // reused

	late := f.solved(t, slug)
	f.advance(challenge.Validity)
	f.startSession(t, slug, map[string]any{"captcha": late}).is(t, 400, invalid) // expired

	// A survey without captcha_needed ignores the member.
	if r := f.startSession(t, other, map[string]any{"captcha": "anything"}); r.code != 201 {
		t.Errorf("no captcha needed: %d %s", r.code, r.body)
	}
}

// TestCaptchaRace: of sessions racing with one solution, exactly one
// starts.
func TestCaptchaRace(t *testing.T) {
	f := newFixture(t)
	slug, _ := f.survey(t, map[string]any{"captcha_needed": true})
	sol := f.solved(t, slug)
	codes := make([]int, 8)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = f.startSession(t, slug, map[string]any{"captcha": sol}).code
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case 201:
			won++
		case 400:
		default:
			t.Errorf("a racing session answered %d", c)
		}
	}
	if won != 1 {
		t.Errorf("%d sessions started with one challenge (%v), want 1", won, codes)
	}
}

// TestChallengeCheckExported: the check the code-guess guard calls is the
// sessions route's: challenge.Check with the store as the spender.
func TestChallengeCheckExported(t *testing.T) {
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	sol := f.solved(t, slug)
	s := challenge.Solution{Challenge: sol["challenge"].(string), Nonce: sol["nonce"].(string)}
	ctx := context.Background()
	if err := challenge.Check(ctx, f.sealer, f.st, sid, s, f.st.Now()); err != nil {
		t.Fatal(err)
	}
	if err := challenge.Check(ctx, f.sealer, f.st, sid, s, f.st.Now()); err != challenge.ErrInvalid {
		t.Errorf("spent: %v", err)
	}
}
