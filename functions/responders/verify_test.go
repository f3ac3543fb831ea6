package responders_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/sending"
)

func verifyPath(slug string) string { return "/api/public/surveys/" + slug + "/verifications/" }
func confirmPath(slug string) string {
	return "/api/public/surveys/" + slug + "/verifications/confirm/"
}

// outbox is a Sender that keeps every message, or fails while down.
type outbox struct {
	mu   sync.Mutex
	sent []sending.Message
	down atomic.Bool
}

func (o *outbox) Send(_ context.Context, m sending.Message) error {
	if o.down.Load() {
		return errors.New("sender down")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, m)
	return nil
}

// messages are the messages sent so far.
func (o *outbox) messages() []sending.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]sending.Message(nil), o.sent...)
}

var codeInBody = regexp.MustCompile(`\b[0-9]{6}\b`)

// lastCode is the code of the last message sent to address.
func (o *outbox) lastCode(tb testing.TB, to string) string {
	tb.Helper()
	msgs := o.messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].To == to {
			if c := codeInBody.FindString(msgs[i].Body); c != "" {
				return c
			}
		}
	}
	tb.Fatalf("no code sent to %s (%d messages)", to, len(msgs))
	return ""
}

// verifier is a fixture whose handler sends codes into an outbox, within
// limits.
type verifier struct {
	fixture
	out *outbox
	// ip is the fixture's client address; each fixture has its own, since
	// the per-client budget spans surveys and tests share a table.
	ip string
}

var clientSeq atomic.Int64

// newClientIP is an address no other test uses.
func newClientIP() string {
	n := clientSeq.Add(1) + time.Now().UnixNano()%1000*1000
	return fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
}

func newVerifier(tb testing.TB, limits sending.Limits) verifier {
	tb.Helper()
	f := newFixture(tb)
	out := &outbox{}
	now := func() time.Time { return f.st.Now() }
	f.h = testenv.Conform(responders.New(responders.Deps{
		Store: f.st, Sealer: f.sealer, Now: now, Sender: out, Budgets: sending.NewBudgets(f.st, now), Limits: limits,
	}))
	return verifier{fixture: f, out: out, ip: newClientIP()}
}

// sendCode asks for a code from the verifier's client, with a solved
// challenge unless body has a captcha member already (nil: none).
func (v verifier) sendCode(tb testing.TB, slug string, body map[string]any) reply {
	tb.Helper()
	return v.sendCodeFrom(tb, slug, body, v.ip)
}

func (v verifier) sendCodeFrom(tb testing.TB, slug string, body map[string]any, ip string) reply {
	tb.Helper()
	if _, ok := body["captcha"]; !ok {
		body["captcha"] = v.solved(tb, slug)
	} else if body["captcha"] == nil {
		delete(body, "captcha")
	}
	return postFrom(tb.(*testing.T), v.h, verifyPath(slug), body, ip)
}

// verification is a 202's sealed verification.
func (r reply) verification(tb testing.TB) string {
	tb.Helper()
	if r.code != 202 {
		tb.Fatalf("send: %d %s, want 202", r.code, r.body)
	}
	var out struct {
		Verification string `json:"verification"`
		ExpiresAt    string `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Verification == "" || out.ExpiresAt == "" {
		tb.Fatalf("send answer %s: %v", r.body, err)
	}
	return out.Verification
}

func (v verifier) confirm(tb testing.TB, slug, session, verification, code string) reply {
	tb.Helper()
	return postFrom(tb.(*testing.T), v.h, confirmPath(slug), map[string]any{"session": session, "verification": verification, "code": code}, v.ip)
}

// confirmed is a 200's new session.
func (r reply) confirmed(tb testing.TB) string {
	tb.Helper()
	if r.code != 200 {
		tb.Fatalf("confirm: %d %s, want 200", r.code, r.body)
	}
	var out struct{ Session string }
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.Session == "" {
		tb.Fatalf("confirm answer %s: %v", r.body, err)
	}
	return out.Session
}

const (
	invalidCodeBody = `{"code":["Invalid code."]}`
	expiredBody     = `{"detail":"This code has expired. Ask for a new one."}`
	badSessionBody  = `{"session":["Invalid session."]}`
)

// persian writes a code's digits in Persian.
func persian(code string) string {
	return strings.Map(func(r rune) rune { return '۰' + (r - '0') }, code)
}

// TestVerifyEmail: a code sent by email (202, the code only in the
// message, which names the survey in its language) confirms once, typed in
// Persian digits, into a session that carries the session's link values
// and start and the proven address, and that responds; a wrong code 400,
// a second confirm 410, another session 400, a tampered verification
// 400.
func TestVerifyEmail(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, sid := v.survey(t, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}})
	sess := v.session(t, slug, nil)
	r := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "email", "address": " Ana@Company.EXAMPLE "})
	ver := r.verification(t)
	code := v.out.lastCode(t, "ana@company.example")
	if strings.Contains(r.body, code) {
		t.Errorf("the answer carries the code: %s", r.body)
	}
	msg := v.out.messages()[0]
	if msg.Channel != "email" || !strings.Contains(msg.Subject, "Coded") || !strings.Contains(msg.Body, "Coded") || !strings.Contains(msg.Body, "کد") {
		t.Errorf("message %+v: want Persian text naming the survey", msg)
	}
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	v.confirm(t, slug, sess, ver, wrong).is(t, 400, invalidCodeBody)
	other := v.session(t, slug, nil)
	v.confirm(t, slug, other, ver, code).is(t, 400, badSessionBody)
	v.confirm(t, slug, sess, ver[:len(ver)-2]+"AA", code).is(t, 400, `{"verification":["Invalid verification."]}`)
	proven := v.confirm(t, slug, sess, ver, persian(code)).confirmed(t)
	v.confirm(t, slug, sess, ver, code).is(t, 410, expiredBody)

	v.respond(t, slug, sess, nil).is(t, 403, signInBody)
	got := v.respond(t, slug, proven, nil).submitted(t)
	if r := v.respondent(t, sid, got.ID); r != `{"email":"ana@company.example"}` {
		t.Errorf("respondent %s", r)
	}
}

// TestVerifySendRefusals: each refusal of a send answers its 400, sends
// nothing and spends no budget.
func TestVerifySendRefusals(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, _ := v.survey(t, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@example.com"}})
	otherSlug, _ := v.survey(t, map[string]any{"service_auth": true})
	sess, foreign := v.session(t, slug, nil), v.session(t, otherSlug, nil)
	spent := v.solved(t, slug)
	v.sendCode(t, slug, map[string]any{"session": sess, "channel": "email", "address": "first@example.com", "captcha": spent}).verification(t)
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no captcha", map[string]any{"session": sess, "channel": "email", "address": "a@example.com", "captcha": nil},
			`{"captcha":["This field is required."]}`},
		{"spent captcha", map[string]any{"session": sess, "channel": "email", "address": "a@example.com", "captcha": spent},
			`{"captcha":["Invalid challenge."]}`},
		{"unknown channel", map[string]any{"session": sess, "channel": "x", "address": "a@example.com"},
			`{"channel":["\"x\" is not a valid choice."]}`},
		{"channel not used", map[string]any{"session": sess, "channel": "sms", "address": "+989121234567"},
			`{"channel":["This survey does not sign in by sms."]}`},
		{"malformed address", map[string]any{"session": sess, "channel": "email", "address": "not-an-address"},
			`{"address":["Enter a valid email address."]}`},
		{"subdomain", map[string]any{"session": sess, "channel": "email", "address": "a@sub.example.com"},
			`{"address":["This address may not respond to this survey."]}`},
		{"bad session", map[string]any{"session": "nope", "channel": "email", "address": "a@example.com"}, badSessionBody},
		{"foreign session", map[string]any{"session": foreign, "channel": "email", "address": "a@example.com"}, badSessionBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v.sendCode(t, slug, tt.body).is(t, 400, tt.want)
		})
	}
	if n := len(v.out.messages()); n != 1 {
		t.Errorf("%d messages sent, want the first only", n)
	}
	used, err := sending.NewBudgets(v.st, v.st.Now).Used(context.Background(), sending.DefaultLimits.ClientBudget("verify", v.ip))
	if err != nil || used != 1 {
		t.Errorf("client budget used %d (%v), want 1", used, err)
	}
}

// TestVerifyTries: a code allows 5 tries; the sixth, even right, 410; a
// code 10 minutes old 410; under 10 racing wrong confirms exactly 5
// answer 400 and the rest 410.
func TestVerifyTries(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, _ := v.survey(t, map[string]any{"service_auth": true})
	send := func(to string) (string, string, string) {
		sess := v.session(t, slug, nil)
		ver := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "email", "address": to}).verification(t)
		code := v.out.lastCode(t, to)
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		return sess, ver, code + "|" + wrong
	}
	sess, ver, codes := send("tries@example.com")
	code, wrong, _ := strings.Cut(codes, "|")
	for range responding.CodeTries {
		v.confirm(t, slug, sess, ver, wrong).is(t, 400, invalidCodeBody)
	}
	v.confirm(t, slug, sess, ver, code).is(t, 410, expiredBody)

	sess, ver, codes = send("late@example.com")
	code, _, _ = strings.Cut(codes, "|")
	v.advance(responding.CodeLifetime)
	v.confirm(t, slug, sess, ver, code).is(t, 410, expiredBody)

	sess, ver, codes = send("race@example.com")
	code, wrong, _ = strings.Cut(codes, "|")
	replies := race(10, func(int) reply { return v.confirm(t, slug, sess, ver, wrong) })
	n := map[int]int{}
	for _, r := range replies {
		n[r.code]++
	}
	if n[400] != responding.CodeTries || n[410] != 10-responding.CodeTries {
		t.Errorf("10 racing wrong confirms: %s; want 5 × 400 and 5 × 410", outcomes(replies))
	}
	v.confirm(t, slug, sess, ver, code).is(t, 410, expiredBody)
}

// TestVerifyBudgets: 3 codes an hour to one address, 10 an hour from one
// client across surveys (an IPv6 client by its /64), the survey's and the
// account's from VERIFY_LIMITS, each a 429 with Retry-After in DRF's
// throttled shape; a failed send answers 503 and spends nothing; 10
// racing sends to one address send exactly 3.
func TestVerifyBudgets(t *testing.T) {
	t.Parallel()
	throttled := regexp.MustCompile(`^\{"detail":"Request was throttled. Expected available in [0-9]+ seconds."\}$`)
	wantThrottled := func(t *testing.T, r reply) {
		t.Helper()
		if r.code != 429 || !throttled.MatchString(r.body) || r.header.Get("Retry-After") == "" {
			t.Fatalf("got %d %s (Retry-After %q), want 429 throttled", r.code, r.body, r.header.Get("Retry-After"))
		}
	}
	emailOn := map[string]any{"service_auth": true}
	t.Run("address", func(t *testing.T) {
		t.Parallel()
		v := newVerifier(t, sending.DefaultLimits)
		slug, _ := v.survey(t, emailOn)
		for i := range 4 {
			r := v.sendCodeFrom(t, slug, map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": "Same@Example.com"}, newClientIP())
			if i < 3 {
				r.verification(t)
			} else {
				wantThrottled(t, r)
			}
		}
	})
	t.Run("client across surveys, IPv6 by /64", func(t *testing.T) {
		t.Parallel()
		v := newVerifier(t, sending.DefaultLimits)
		a, _ := v.survey(t, emailOn)
		b, _ := v.survey(t, emailOn)
		prefix := fmt.Sprintf("2001:db8:%x:%x:", clientSeq.Add(1)&0xffff, time.Now().UnixNano()&0xffff)
		for i := range 11 {
			slug := a
			if i%2 == 1 {
				slug = b
			}
			ip := fmt.Sprintf("%s%x::1", prefix, i)
			r := v.sendCodeFrom(t, slug, map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": fmt.Sprintf("c%d@example.com", i)}, ip)
			if i < 10 {
				r.verification(t)
			} else {
				wantThrottled(t, r)
			}
		}
	})
	t.Run("survey and account", func(t *testing.T) {
		t.Parallel()
		limits, err := sending.ParseLimits("survey=2/h,account=3/d")
		if err != nil {
			t.Fatal(err)
		}
		v := newVerifier(t, limits)
		a, _ := v.survey(t, emailOn)
		b, _ := v.survey(t, emailOn)
		for i, slug := range []string{a, a, a, b, b} {
			r := v.sendCodeFrom(t, slug, map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": fmt.Sprintf("s%d@example.com", i)}, newClientIP())
			switch i {
			case 0, 1, 3: // the survey's 2, then b's first: the account's 3rd
				r.verification(t)
			default: // a's 3rd (survey), b's second (account)
				wantThrottled(t, r)
			}
		}
	})
	t.Run("failed send", func(t *testing.T) {
		t.Parallel()
		v := newVerifier(t, sending.DefaultLimits)
		slug, _ := v.survey(t, emailOn)
		v.out.down.Store(true)
		for range 4 {
			r := v.sendCode(t, slug, map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": "down@example.com"})
			if r.code != 503 {
				t.Fatalf("a failed send: %d %s, want 503", r.code, r.body)
			}
		}
		v.out.down.Store(false)
		v.sendCode(t, slug, map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": "down@example.com"}).verification(t)
	})
	t.Run("10 racing sends to one address", func(t *testing.T) {
		t.Parallel()
		v := newVerifier(t, sending.DefaultLimits)
		slug, _ := v.survey(t, emailOn)
		bodies := make([]map[string]any, 10)
		for i := range bodies {
			bodies[i] = map[string]any{"session": v.session(t, slug, nil), "channel": "email", "address": "raced@example.com", "captcha": v.solved(t, slug)}
		}
		replies := race(10, func(i int) reply { return v.sendCodeFrom(t, slug, bodies[i], newClientIP()) })
		n := map[int]int{}
		for _, r := range replies {
			n[r.code]++
		}
		if n[202] != 3 || n[429] != 7 || len(v.out.messages()) != 3 {
			t.Errorf("10 racing sends: %s, %d messages; want 3 × 202 and 7 × 429", outcomes(replies), len(v.out.messages()))
		}
	})
}

// TestVerifyAddsUp: a confirmed session carries the first's link values,
// start and responder binding; a second proof keeps the first.
func TestVerifyAddsUp(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, sid := v.survey(t, map[string]any{"service_auth": true, "no_spam": true})
	b := &browser{}
	_, sess := b.start(t, v.fixture, slug, nil)
	first := v.open(t, sid, sess)
	ver := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "email", "address": "add@example.com"}).verification(t)
	proven := v.confirm(t, slug, sess, ver, v.out.lastCode(t, "add@example.com")).confirmed(t)
	got := v.open(t, sid, proven)
	if !got.StartedAt.Equal(first.StartedAt) || got.Responder != first.Responder || got.Email != "add@example.com" {
		t.Errorf("confirmed session %+v, want %+v plus the address", got, first)
	}
	// A second proof on the confirmed session keeps the first.
	ver = v.sendCode(t, slug, map[string]any{"session": proven, "channel": "email", "address": "second@example.com"}).verification(t)
	again := v.open(t, sid, v.confirm(t, slug, proven, ver, v.out.lastCode(t, "second@example.com")).confirmed(t))
	if !again.StartedAt.Equal(first.StartedAt) || again.Responder != first.Responder || again.Email != "second@example.com" {
		t.Errorf("second confirm %+v", again)
	}
	if r := b.submit(t, v.fixture, slug, proven, nil); r.code != 201 {
		t.Errorf("the confirmed session with its cookie: %d %s", r.code, r.body)
	}
}

// open decodes a session token of survey sid.
func (f fixture) open(tb testing.TB, sid int64, token string) responding.Session {
	tb.Helper()
	plain, err := f.sealer.OpenFor(context.Background(), links.PurposeSession, sid, token)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := responding.DecodeSession(plain)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestVerifySMSMobileOnly (issue 38 item 9; contract section 18 as
// amended): the numbers the outside test had sent codes to (satellite,
// international networks, unassigned, premium-rate and toll-free ranges)
// answer 400 on address, and no SMS is sent; a mobile number is.
func TestVerifySMSMobileOnly(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, _ := v.survey(t, map[string]any{"phone_number_auth": true})
	sess := v.session(t, slug, nil)
	for _, n := range []string{"+8821234567890", "+881612345678", "+979123456789", "+19005550123", "+449091234567", "+80012345678"} {
		v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": n}).is(t, 400, `{"address":["Enter a valid mobile number."]}`)
	}
	if msgs := v.out.messages(); len(msgs) != 0 {
		t.Errorf("%d SMS sent to numbers that are not mobile: %+v", len(msgs), msgs)
	}
	v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "+989121234567"}).verification(t)
	if msgs := v.out.messages(); len(msgs) != 1 || msgs[0].To != "+989121234567" {
		t.Errorf("a mobile number's SMS: %+v", msgs)
	}
}

// TestVerifySMS: on a fa survey a number typed in Iran's national form
// with Persian digits is proven as E.164 by SMS, in Persian; a malformed
// number 400; with both methods on a submission needs both proofs, and
// the response stores both.
func TestVerifySMS(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	slug, sid := v.survey(t, map[string]any{"service_auth": true, "phone_number_auth": true})
	sess := v.session(t, slug, nil)
	v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "12345"}).is(t, 400, `{"address":["Enter a valid mobile number."]}`)
	ver := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "۰۹۱۲ ۱۲۳-۴۵۶۷"}).verification(t)
	msgs := v.out.messages()
	if m := msgs[len(msgs)-1]; m.Channel != "sms" || m.To != "+989121234567" || m.Subject != "" || !strings.Contains(m.Body, "Coded") {
		t.Errorf("SMS %+v", m)
	}
	phoned := v.confirm(t, slug, sess, ver, v.out.lastCode(t, "+989121234567")).confirmed(t)
	v.respond(t, slug, phoned, nil).is(t, 403, signInBody) // the email is missing
	ver = v.sendCode(t, slug, map[string]any{"session": phoned, "channel": "email", "address": "both@example.com"}).verification(t)
	both := v.confirm(t, slug, phoned, ver, v.out.lastCode(t, "both@example.com")).confirmed(t)
	got := v.respond(t, slug, both, nil).submitted(t)
	if r := v.respondent(t, sid, got.ID); r != `{"email":"both@example.com","phone":"+989121234567"}` {
		t.Errorf("respondent %s", r)
	}
}

// TestVerifyPhoneList: on a phone_numbers_limited survey an unlisted
// number answers 403 before any message, counted by the code-guess guard
// (the client's 11th failure in a minute 429), and a listed one is sent
// its code.
func TestVerifyPhoneList(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	v.hold() // the 10 refusals and the 11th in one minute's window, however slow the machine
	slug, sid := v.survey(t, map[string]any{"phone_number_auth": true, "phone_numbers_limited": true})
	if err := v.st.AddPhones(context.Background(), v.aid, sid, []string{"+4915112345678"}); err != nil {
		t.Fatal(err)
	}
	sess := v.session(t, slug, nil)
	for range 10 {
		v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "+4915100000000"}).
			is(t, 403, `{"detail":"This number may not respond to this survey."}`)
	}
	if r := v.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "+4915100000000"}); r.code != 429 {
		t.Errorf("the 11th unlisted number: %d %s, want 429", r.code, r.body)
	}
	if n := len(v.out.messages()); n != 0 {
		t.Errorf("%d messages sent to unlisted numbers", n)
	}
	other := newVerifier(t, sending.DefaultLimits) // another client
	other.h = v.h
	other.sendCode(t, slug, map[string]any{"session": sess, "channel": "sms", "address": "0049 151 1234 5678"}).verification(t)
	if n := len(v.out.messages()); n != 1 {
		t.Errorf("%d messages to the listed number, want 1", n)
	}
}

// TestOneResponsePerNumber: with phone_number_auth_is_unique 10 sessions
// of one proven number racing record one response, the rest 403; a later
// one 403; another number records its own.
func TestOneResponsePerNumber(t *testing.T) {
	t.Parallel()
	f, _ := conflictFixture(t)
	slug, sid := f.survey(t, map[string]any{"phone_number_auth": true, "phone_number_auth_is_unique": true})
	sessions := make([]string, 10)
	for i := range sessions {
		sessions[i] = f.proven(t, sid, f.session(t, slug, nil), "", "+989121234567")
	}
	replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	t.Logf("10 sessions of one number: %s", outcomes(replies))
	wantOneWinner(t, replies, 403, alreadyBody)
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "", "+989121234567"), nil).is(t, 403, alreadyBody)
	f.respond(t, slug, f.proven(t, sid, f.session(t, slug, nil), "", "+989121234568"), nil).submitted(t)
	f.wantStored(t, "one number raced, another once", sid, 2)
}

// TestNumberTakenOffTheList: on a phone_numbers_limited survey a number
// proven while listed, then taken off the list, no longer responds (403,
// nothing stored); one still listed does.
func TestNumberTakenOffTheList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"phone_number_auth": true, "phone_numbers_limited": true})
	ctx := context.Background()
	if err := f.st.AddPhones(ctx, f.aid, sid, []string{"+989121234567", "+989121234568"}); err != nil {
		t.Fatal(err)
	}
	removed := f.proven(t, sid, f.session(t, slug, nil), "", "+989121234567")
	kept := f.proven(t, sid, f.session(t, slug, nil), "", "+989121234568")
	if err := f.st.DeletePhones(ctx, f.aid, sid, []string{"+989121234567"}); err != nil {
		t.Fatal(err)
	}
	f.respond(t, slug, removed, nil).is(t, 403, `{"detail":"This number may not respond to this survey."}`)
	f.respond(t, slug, kept, nil).submitted(t)
	f.wantStored(t, "one number taken off the list, one kept", sid, 1)
}
