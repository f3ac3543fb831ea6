package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/functions/responders"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

const tooMany = `{"detail":"Too many failed attempts. Try again later."}`

// clock is a "now" the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// guess posts a code from a client address.
func guess(t *testing.T, h http.Handler, slug, code, ip string) reply {
	t.Helper()
	body, err := json.Marshal(map[string]string{"code": code})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", authPath(slug), strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = ip + ":40000"
	if strings.Contains(ip, ":") {
		req.RemoteAddr = "[" + ip + "]:40000"
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return reply{code: rec.Code, body: rec.Body.String(), header: rec.Header(), calls: calls.DynamoDB(), ops: calls.Ops()}
}

// locked checks a 429 whose Retry-After is wait.
func (r reply) locked(t *testing.T, wait string) {
	t.Helper()
	r.is(t, 429, tooMany)
	if got := r.header.Get("Retry-After"); got != wait {
		t.Errorf("Retry-After %q, want %q", got, wait)
	}
}

// guarded is a fixture whose store has small limits and a clock at 20 s
// into a minute's window.
func guarded(t *testing.T, lim survey.GuessLimits) (fixture, *clock) {
	t.Helper()
	f := newFixture(t)
	clk := &clock{t: time.Date(2026, 6, 15, 12, 0, 20, 0, time.UTC)}
	f.st.Now, f.st.Guesses = clk.Now, lim
	return f, clk
}

// TestGuessLimitPerClient: a burst of wrong guesses from one client ends
// in 429 with Retry-After, and then even the right code waits; another
// client is not held; the next window starts afresh.
func TestGuessLimitPerClient(t *testing.T) {
	t.Parallel()
	f, clk := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 100, PerClient: 5})
	slug, _ := f.survey(t, shared, "right")
	const attacker, other = "198.51.100.7", "203.0.113.9"
	for i := range 4 {
		r := guess(t, f.h, slug, fmt.Sprintf("wrong-%d", i), attacker)
		r.refused(t)
		if i == 0 {
			t.Logf("a failed check: %d DynamoDB calls %v", r.calls, r.ops)
			if r.calls != 5 {
				t.Errorf("a failed check made %d DynamoDB calls (%v), want 5: slug, survey with the counts, code, two counts", r.calls, r.ops)
			}
		}
	}
	// Within the limit the right code works, and does not count.
	guess(t, f.h, slug, "right", attacker).is(t, 200, authenticated)
	guess(t, f.h, slug, "wrong-4", attacker).refused(t) // the fifth failure
	guess(t, f.h, slug, "wrong-5", attacker).locked(t, "40")
	r := guess(t, f.h, slug, "right", attacker)
	r.locked(t, "40")
	if r.ops["DynamoDB.BatchGetItem"] != 1 || r.calls != 1 {
		t.Errorf("a locked-out check made calls %v; want the survey read only (the slug is cached, the code is not looked at)", r.ops)
	}
	// Another client is not held by the attacker's count.
	guess(t, f.h, slug, "right", other).is(t, 200, authenticated)
	guess(t, f.h, slug, "wrong", other).refused(t)
	// Retry-After counts down to the window's end.
	clk.Set(clk.Now().Add(39*time.Second + 500*time.Millisecond))
	guess(t, f.h, slug, "right", attacker).locked(t, "1")
	// The next window starts afresh.
	clk.Set(clk.Now().Add(time.Second))
	guess(t, f.h, slug, "right", attacker).is(t, 200, authenticated)
	for i := range 5 {
		guess(t, f.h, slug, fmt.Sprintf("again-%d", i), attacker).refused(t)
	}
	guess(t, f.h, slug, "again-5", attacker).locked(t, "60")
}

// TestGuessLimitPerSurvey: failures from many addresses add up; at the
// survey's limit the survey is under attack and every check needs a solved
// challenge (contract section 16's shapes), which lets a responder through;
// a client at its own limit still waits. Addresses of one IPv6 /64 are one
// client.
func TestGuessLimitPerSurvey(t *testing.T) {
	t.Parallel()
	f, _ := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 6, PerClient: 3})
	slug, _ := f.survey(t, shared, "right")
	other, _ := f.survey(t, shared, "right")
	for i := range 3 {
		guess(t, f.h, slug, "wrong", fmt.Sprintf("2001:db8:0:7::%x", i+1)).refused(t)
	}
	// The same /64: the same client, at its limit.
	guess(t, f.h, slug, "right", "2001:db8:0:7:ffff::1").locked(t, "40")
	// Another /64 is another client.
	guess(t, f.h, slug, "right", "2001:db8:0:8::1").is(t, 200, authenticated)
	for i := range 3 {
		guess(t, f.h, slug, "wrong", fmt.Sprintf("192.0.2.%d", i+1)).refused(t)
	}
	// Six failures in all: the survey is under attack. A check without a
	// challenge is asked for one, and nothing is counted.
	for range 3 {
		guess(t, f.h, slug, "right", "192.0.2.200").is(t, 400, `{"captcha":["This field is required."]}`)
	}
	guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": "x"}, "192.0.2.200").is(t, 400, `{"captcha":["Invalid challenge."]}`)
	wrongNonce := f.solved(t, slug)
	wrongNonce["nonce"] = "x"
	guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": wrongNonce}, "192.0.2.200").is(t, 400, `{"captcha":["Invalid challenge."]}`)
	// Another survey's challenge does not open here.
	guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": f.solved(t, other)}, "192.0.2.200").is(t, 400, `{"captcha":["Invalid challenge."]}`)
	// A solved challenge lets the responder through, once.
	sol := f.solved(t, slug)
	r := guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": sol}, "192.0.2.200")
	r.is(t, 200, authenticated)
	t.Logf("a check under attack with a solved challenge: %d DynamoDB calls %v", r.calls, r.ops)
	guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": sol}, "192.0.2.200").is(t, 400, `{"captcha":["Invalid challenge."]}`)
	// A wrong code with a solved challenge is refused and counted.
	guessWith(t, f.h, slug, map[string]any{"code": "wrong", "captcha": f.solved(t, slug)}, "192.0.2.201").refused(t)
	// The per-address limit stays: a client at its limit waits, even with
	// a solved challenge.
	guessWith(t, f.h, slug, map[string]any{"code": "right", "captcha": f.solved(t, slug)}, "2001:db8:0:7::99").locked(t, "40")
	// A session under attack: asked for a challenge, then started with one.
	sessionFrom(t, f.h, slug, map[string]any{"code": "right"}, "192.0.2.202").is(t, 400, `{"captcha":["This field is required."]}`)
	if r := sessionFrom(t, f.h, slug, map[string]any{"code": "right", "captcha": f.solved(t, slug)}, "192.0.2.202"); r.code != 201 {
		t.Errorf("a session with a solved challenge under attack: %d %s", r.code, r.body)
	}
	// Another survey is not under attack.
	guess(t, f.h, other, "right", "192.0.2.1").is(t, 200, authenticated)
}

// guessWith posts an authenticate body from a client address.
func guessWith(t *testing.T, h http.Handler, slug string, body map[string]any, ip string) reply {
	t.Helper()
	return postFrom(t, h, authPath(slug), body, ip)
}

// sessionFrom posts a session request from a client address.
func sessionFrom(t *testing.T, h http.Handler, slug string, body map[string]any, ip string) reply {
	t.Helper()
	return postFrom(t, h, sessionsPath(slug), body, ip)
}

// postFrom posts a JSON body from a client address, counting the calls.
func postFrom(t testing.TB, h http.Handler, path string, body map[string]any, ip string) reply {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(mustJSON(t, body)))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = ip + ":40000"
	if strings.Contains(ip, ":") {
		req.RemoteAddr = "[" + ip + "]:40000"
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return reply{code: rec.Code, body: rec.Body.String(), header: rec.Header(), calls: calls.DynamoDB(), ops: calls.Ops()}
}

// TestGuessLimitAcrossContainers: two handlers with stores of their own
// (two Lambda containers) share the count through the table.
func TestGuessLimitAcrossContainers(t *testing.T) {
	t.Parallel()
	f, clk := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 100, PerClient: 4})
	slug, _ := f.survey(t, shared, "right")
	second := testenv.Container(t)
	second.Now, second.Guesses = clk.Now, f.st.Guesses
	h2 := testenv.Conform(responders.New(responders.Deps{Store: second, Now: second.Now}))
	const ip = "198.51.100.20"
	for i, h := range []http.Handler{f.h, h2, f.h, h2} {
		guess(t, h, slug, fmt.Sprintf("wrong-%d", i), ip).refused(t)
	}
	guess(t, f.h, slug, "right", ip).locked(t, "40")
	guess(t, h2, slug, "right", ip).locked(t, "40")
}

// TestGuessLimitOnlyCountsGuesses: what is not a check of a code counts
// nothing: a survey without code_auth, an unknown survey, a blank code.
// A unique code already spent is a failed check.
func TestGuessLimitOnlyCountsGuesses(t *testing.T) {
	t.Parallel()
	f, _ := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 100, PerClient: 2})
	offSlug, _ := f.survey(t, off, "right")
	for range 4 {
		guess(t, f.h, offSlug, "right", "192.0.2.1").refused(t)
		guess(t, f.h, "nosuchslug", "right", "192.0.2.1").refused(t)
	}
	slug, _ := f.survey(t, unique, "once", "twice")
	for range 4 {
		guess(t, f.h, slug, "   ", "192.0.2.1").refused(t)
	}
	guess(t, f.h, slug, "once", "192.0.2.1").is(t, 200, authenticated)
	// A response spends the code (a right code: no failure counted).
	f.respond(t, slug, f.session(t, slug, map[string]any{"code": "once"}), nil).submitted(t)
	guess(t, f.h, slug, "once", "192.0.2.1").refused(t)  // spent: one failure
	guess(t, f.h, slug, "never", "192.0.2.1").refused(t) // two
	guess(t, f.h, slug, "twice", "192.0.2.1").locked(t, "40")
}

// TestSessionCodeGuard: starting a session with a code is a code check
// like authenticate/'s, under the same counts: wrong codes from a client on
// either route add up, and then both answer 429, the right code included.
func TestSessionCodeGuard(t *testing.T) {
	t.Parallel()
	f, _ := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 100, PerClient: 3})
	slug, _ := f.survey(t, shared, "right")
	session := func(code, ip string) reply {
		req := httptest.NewRequest("POST", sessionsPath(slug), strings.NewReader(fmt.Sprintf(`{"code":%q}`, code)))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = ip + ":40000"
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		return reply{code: rec.Code, body: rec.Body.String(), header: rec.Header()}
	}
	const ip = "198.51.100.30"
	session("wrong-1", ip).refused(t)
	guess(t, f.h, slug, "wrong-2", ip).refused(t)
	if r := session("right", ip); r.code != 201 {
		t.Errorf("a right code within the limit: %d %s", r.code, r.body)
	}
	session("wrong-3", ip).refused(t)
	session("right", ip).locked(t, "40")
	guess(t, f.h, slug, "right", ip).locked(t, "40")
	// Another client starts its session.
	if r := session("right", "203.0.113.30"); r.code != 201 {
		t.Errorf("another client: %d %s", r.code, r.body)
	}
}

// marked is the context key of requests whose store calls may fail.
type marked struct{}

// TestGuessCountFailure: a failed check whose count cannot be written is a
// 503 (the client retries), never a 500, and never a 403 that skipped the
// count.
func TestGuessCountFailure(t *testing.T) {
	t.Parallel()
	f, _ := guarded(t, survey.GuessLimits{Window: time.Minute, PerSurvey: 100, PerClient: 10})
	slug, _ := f.survey(t, shared, "right")
	restore := localaws.InjectFaults(func(ctx context.Context, _, op string) error {
		if op == "UpdateItem" && ctx.Value(marked{}) != nil {
			return &types.ProvisionedThroughputExceededException{Message: aws.String("injected")}
		}
		return nil
	})
	defer restore()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), marked{}, true)))
	})
	r := guess(t, h, slug, "wrong", "192.0.2.1")
	if r.code != 503 || r.header.Get("Retry-After") == "" {
		t.Errorf("a failed check that could not be counted: %d %s, want 503 with Retry-After", r.code, r.body)
	}
	guess(t, h, slug, "right", "192.0.2.1").is(t, 200, authenticated) // a success writes no count
}
