package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

const (
	closedBody   = `{"detail":"This survey is closed."}`
	refusedBody  = `{"detail":"Authentication failed."}`
	linkUsedBody = `{"detail":"This link has been used."}`
	// sessionRespondedBody answers another key under a session that
	// recorded a response (contract section 11, amended).
	sessionRespondedBody = `{"detail":"This session has already responded."}`
	badSession           = `{"session":["Invalid session."]}`
	reusedKey            = `{"detail":"Idempotency-Key was used with another request."}`
	timeIsUp             = `{"detail":"The time to respond has ended."}`
)

// submitted is a 201 answer, decoded.
type submitted struct {
	ID          int64  `json:"id"`
	SubmittedAt string `json:"submitted_at"`
}

func (r reply) submitted(tb testing.TB) submitted {
	tb.Helper()
	if r.code != 201 {
		tb.Fatalf("got %d %s, want 201", r.code, r.body)
	}
	var s submitted
	if err := json.Unmarshal([]byte(r.body), &s); err != nil || s.ID == 0 || s.SubmittedAt == "" {
		tb.Fatalf("201 body %s: %v", r.body, err)
	}
	if _, err := time.Parse(survey.TimestampLayout, s.SubmittedAt); err != nil {
		tb.Errorf("submitted_at %q: %v", s.SubmittedAt, err)
	}
	return s
}

// storedResponse is a response item as stored, read back raw, but for
// its answers and variables (JSON), which the store's decoder reads
// (they may be stored compressed: store/responsedocs.go).
type storedResponse struct {
	ID        int64  `dynamo:"id"`
	Submitted string `dynamo:"submitted_at"`
	Started   string `dynamo:"started_at"`
	Answers   string `dynamo:"-"`
	Variables string `dynamo:"-"`
	Code      string `dynamo:"code"`
}

func (f fixture) response(tb testing.TB, sid, rid int64) storedResponse {
	tb.Helper()
	var it storedResponse
	err := f.db().Table(f.st.TableName()).Get(store.AttrPK, store.ResponsesShardPK(sid, store.ResponseShard(rid))).
		Range(store.AttrSK, dynamo.Equal, store.ResponseSK(rid)).Consistent(true).One(context.Background(), &it)
	if err != nil {
		tb.Fatalf("response %d: %v", rid, err)
	}
	r, err := f.st.ResponseOfSurvey(context.Background(), sid, rid)
	if err != nil {
		tb.Fatalf("response %d: %v", rid, err)
	}
	answers, _ := json.Marshal(r.Answers)
	variables, _ := json.Marshal(r.Variables)
	it.Answers, it.Variables = string(answers), string(variables)
	return it
}

func TestSubmitRecordsAResponse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, unique, "C-1", "C-2")
	q1 := f.textQuestion(t, sid, "Name", true)
	q2 := f.textQuestion(t, sid, "Comment", false)
	q3 := f.choiceQuestion(t, sid, survey.TypeDropdown, -1, "Red", "Blue")
	vars, err := f.st.CreateVariables(ctx, f.aid, sid, nil, 0, []survey.Variable{
		{Name: "city", Type: survey.VariableString}, {Name: "age", Type: survey.VariableInteger}, {Name: "src", Type: survey.VariableString}})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := f.sealer.Seal(ctx, sid, []links.Payload{{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Tabriz"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sr := f.startSession(t, slug, map[string]any{"code": " C-1 ", "qs": tokens[0]})
	if sr.code != 201 {
		t.Fatalf("session: %d %s", sr.code, sr.body)
	}
	var sess struct {
		Session   string         `json:"session"`
		StartedAt string         `json:"started_at"`
		Values    map[string]any `json:"values"`
	}
	if err := json.Unmarshal([]byte(sr.body), &sess); err != nil {
		t.Fatal(err)
	}
	if sess.Values["city"] != "Tabriz" || len(sess.Values) != 1 {
		t.Errorf("session values %v", sess.Values)
	}
	body := mustJSON(t, map[string]any{
		"session":   sess.Session,
		"answers":   map[string]any{strconv.FormatInt(q1, 10): "  Ada  ", strconv.FormatInt(q2, 10): "", strconv.FormatInt(q3.ID, 10): q3.Choices[1].ID},
		"variables": map[string]any{"city": "Qom", "age": 41},
	})
	key := newKey()
	r := f.submit(t, slug, key, body)
	got := r.submitted(t)
	t.Logf("a submission: %d DynamoDB calls %v", r.calls, r.ops)
	if r.ops["DynamoDB.Query"] != 1 || r.ops["DynamoDB.TransactWriteItems"] != 1 || r.ops["DynamoDB.GetItem"] != 2 || r.calls > 5 {
		t.Errorf("a submission made %v, want the survey item (its collection version), one Query (a cold container's), "+
			"one TransactWriteItems, the fence's GetItem of the survey (and at most an id lease)", r.ops)
	}
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a first submission is marked replayed")
	}
	it := f.response(t, sid, got.ID)
	if it.Submitted != got.SubmittedAt || it.Started != sess.StartedAt || it.Code != "C-1" {
		t.Errorf("stored %+v, answered %+v, session started %s", it, got, sess.StartedAt)
	}
	wantAnswers := fmt.Sprintf(`{"%d":"Ada","%d":%d}`, q1, q3.ID, q3.Choices[1].ID)
	if !jsonSame(it.Answers, wantAnswers) || !jsonSame(it.Variables, `{"age":41,"city":"Tabriz"}`) {
		t.Errorf("stored answers %s variables %s; want %s and the link's city over the submitted one", it.Answers, it.Variables, wantAnswers)
	}
	f.wantStored(t, "after one response", sid, 1)
	_, vs, _, err := f.st.SurveyVariables(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if want := v.Name != "src"; v.HasResponse != want {
			t.Errorf("variable %s has_response %v, want %v", v.Name, v.HasResponse, want)
		}
	}
	_ = vars

	// The unique code was spent by the response: the code check and a new
	// session refuse it now; the other code is fresh.
	authenticate(t, f.h, slug, "C-1").is(t, 403, refusedBody)
	f.startSession(t, slug, map[string]any{"code": "C-1"}).is(t, 403, refusedBody)
	// A second response under the same session is refused: a session
	// records one response (contract section 11, amended: 409 before the
	// spent code's 403).
	f.respond(t, slug, sess.Session, map[string]any{strconv.FormatInt(q1, 10): "again"}).is(t, 409, sessionRespondedBody)
	// Later responses carrying flagged variables leave the variables item
	// alone: one transaction of three writes.
	s2 := f.session(t, slug, map[string]any{"code": "C-2"})
	r2 := f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": s2, "answers": map[string]any{strconv.FormatInt(q1, 10): "B"}, "variables": map[string]any{"age": 3}}))
	r2.submitted(t)
	f.wantStored(t, "after two responses", sid, 2)
}

func jsonSame(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// TestSubmitRefusals: every bad submission gets its 4xx and records
// nothing.
func TestSubmitRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil)
	q := f.textQuestion(t, sid, "Required", true)
	qid := strconv.FormatInt(q, 10)
	if _, err := f.st.CreateVariables(ctx, f.aid, sid, nil, 0, []survey.Variable{{Name: "age", Type: survey.VariableInteger}}); err != nil {
		t.Fatal(err)
	}
	sess := f.session(t, slug, nil)
	otherSlug, otherID := f.survey(t, nil)
	otherSess := f.session(t, otherSlug, nil)
	link, err := f.sealer.Seal(ctx, sid, []links.Payload{{}})
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]any{qid: "fine"}
	body := func(session string, answers, vars any) string {
		m := map[string]any{"session": session, "answers": answers}
		if vars != nil {
			m["variables"] = vars
		}
		return mustJSON(t, m)
	}
	tests := []struct {
		name    string
		headers []string
		body    string
		code    int
		want    string
	}{
		{"no key", js, body(sess, ok, nil), 400, `{"Idempotency-Key":["This header is required."]}`},
		{"key too long", []string{"Idempotency-Key", strings.Repeat("k", 256)}, body(sess, ok, nil), 400, `{"Idempotency-Key":["Send one key of 1 to 255 visible ASCII characters."]}`},
		{"key with a space", []string{"Idempotency-Key", "a b"}, body(sess, ok, nil), 400, `{"Idempotency-Key":["Send one key of 1 to 255 visible ASCII characters."]}`},
		{"key not ASCII", []string{"Idempotency-Key", "کلید"}, body(sess, ok, nil), 400, `{"Idempotency-Key":["Send one key of 1 to 255 visible ASCII characters."]}`},
		{"no session", nil, `{"answers":{}}`, 400, `{"session":["This field is required."]}`},
		{"session a number", nil, `{"session":5}`, 400, `{"session":["Not a valid string."]}`},
		{"garbage session", nil, body("abc", ok, nil), 400, badSession},
		{"another survey's session", nil, body(otherSess, ok, nil), 400, badSession},
		{"a link as the session", nil, body(link[0], ok, nil), 400, badSession},
		{"answers a list", nil, fmt.Sprintf(`{"session":%q,"answers":[]}`, sess), 400, `{"answers":["Expected a dictionary of items but got type \"list\"."]}`},
		{"answers null", nil, fmt.Sprintf(`{"session":%q,"answers":null}`, sess), 400, `{"answers":["This field may not be null."]}`},
		{"required answer missing", nil, body(sess, map[string]any{}, nil), 400, `{"answers":{"` + qid + `":["This question requires an answer."]}}`},
		{"unknown variable and bad answer", nil, body(sess, map[string]any{qid: 5}, map[string]any{"town": "x", "age": "old"}), 400,
			`{"answers":{"` + qid + `":["Not a valid string."]},"variables":{"age":["A valid integer is required."],"town":["Unknown variable."]}}`},
		{"is_unique is no variable", nil, body(sess, ok, map[string]any{"is_unique": true}), 400, `{"variables":{"is_unique":["Unknown variable."]}}`},
		{"variables a string", nil, fmt.Sprintf(`{"session":%q,"answers":{},"variables":"x"}`, sess), 400, `{"variables":["Expected a dictionary of items but got type \"str\"."]}`},
		{"body a list", nil, `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{"text/plain", []string{"Content-Type", "text/plain"}, body(sess, ok, nil), 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			headers := tc.headers
			if headers == nil {
				headers = []string{"Idempotency-Key", newKey()}
			}
			if tc.name != "no key" && headers[0] != "Idempotency-Key" {
				headers = append(headers, "Idempotency-Key", newKey())
			}
			if tc.name != "text/plain" {
				headers = append(headers, "Content-Type", "application/json")
			}
			r := send(t, f.h, "POST", responsesPath(slug), tc.body, headers...)
			if r.code != tc.code || !jsonSame(r.body, tc.want) {
				t.Fatalf("got %d %s, want %d %s", r.code, r.body, tc.code, tc.want)
			}
			for op := range r.ops {
				if op == "DynamoDB.TransactWriteItems" || op == "DynamoDB.UpdateItem" || op == "DynamoDB.PutItem" {
					t.Errorf("a refused submission wrote: %v", r.ops)
				}
			}
		})
	}
	t.Run("unknown survey", func(t *testing.T) {
		f.submit(t, survey.NewCode(survey.SlugLength), newKey(), body(sess, ok, nil)).is(t, 404, notFound)
	})
	f.wantStored(t, "after the refusals", sid, 0)
	f.wantStored(t, "the other survey", otherID, 0)
}

// TestSessionsAreSealed: a session opens only for its survey, untouched;
// every changed character is the same 400.
func TestSessionsAreSealed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	sess := f.session(t, slug, nil)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < len(sess); i += 7 {
		c := alphabet[(strings.IndexByte(alphabet, sess[i])+1)%len(alphabet)]
		tampered := sess[:i] + string(c) + sess[i+1:]
		r := f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": tampered, "answers": map[string]any{}}))
		if r.code != 400 || r.body != badSession {
			t.Fatalf("session with character %d changed: %d %s", i, r.code, r.body)
		}
	}
	for _, bad := range []string{"", "x", sess[:len(sess)-1], sess + "A", sess[1:], strings.Repeat("A", 4000)} {
		r := f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": bad, "answers": map[string]any{}}))
		if r.code != 400 {
			t.Errorf("session %.20q: %d %s", bad, r.code, r.body)
		}
	}
	f.wantStored(t, "after tampered sessions", sid, 0)
	f.respond(t, slug, sess, nil).submitted(t)
}

// TestRacingUniqueCode: 50 responses racing with one unique code: exactly
// one is recorded, the rest answer 403 and record nothing.
func TestRacingUniqueCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, unique, "ONLY")
	sessions := make([]string, 50)
	for i := range sessions {
		sessions[i] = f.session(t, slug, map[string]any{"code": "ONLY"})
	}
	replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	wantOneWinner(t, replies, 403, refusedBody)
	f.wantStored(t, "after the race", sid, 1)
}

// oneUseLinkSessions makes a survey with a one-use link and n sessions
// started from it.
func (f fixture) oneUseLinkSessions(t *testing.T, n int) (slug string, sid int64, token string, sessions []string) {
	t.Helper()
	ctx := context.Background()
	slug, sid = f.survey(t, nil)
	if _, err := f.st.CreateVariables(ctx, f.aid, sid, nil, 0, []survey.Variable{{Name: "who", Type: survey.VariableString}}); err != nil {
		t.Fatal(err)
	}
	tokens, err := f.sealer.Seal(ctx, sid, []links.Payload{{Unique: true, Values: []links.Value{{Name: "who", Kind: links.KindString, Str: "one"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sessions = make([]string, n)
	for i := range sessions {
		sessions[i] = f.session(t, slug, map[string]any{"qs": tokens[0]})
	}
	return slug, sid, tokens[0], sessions
}

// TestRacingOneUseLink: 50 responses racing with one one-use link.
func TestRacingOneUseLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid, token, sessions := f.oneUseLinkSessions(t, 50)
	tokens := []string{token}
	replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
	wantOneWinner(t, replies, 410, linkUsedBody)
	f.wantStored(t, "after the race", sid, 1)
	// The link answers 410 everywhere now.
	send(t, f.h, "GET", "/api/public/surveys/"+slug+"/variables/?qs="+tokens[0], "").is(t, 410, linkUsedBody)
	f.startSession(t, slug, map[string]any{"qs": tokens[0]}).is(t, 410, linkUsedBody)
}

// race runs n requests at once and returns their replies.
func race(n int, do func(i int) reply) []reply {
	replies := make([]reply, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range replies {
		wg.Go(func() {
			<-start
			replies[i] = do(i)
		})
	}
	close(start)
	wg.Wait()
	return replies
}

func wantOneWinner(t *testing.T, replies []reply, loserCode int, loserBody string) {
	t.Helper()
	won := 0
	var other []string
	for _, r := range replies {
		switch {
		case r.code == 201:
			won++
		case r.code == loserCode && r.body == loserBody:
		default:
			other = append(other, fmt.Sprintf("%d %s", r.code, r.body))
		}
	}
	if won != 1 || len(other) > 0 {
		t.Errorf("%d racing responses: %d recorded, unexpected answers %v; want exactly 1 and %d × %d", len(replies), won, other, len(replies)-1, loserCode)
	}
}

// TestIdempotencyKeyRace: the same key and body sent 20 times at once
// record one response; every request answers it, 19 of them as replays.
// The same key with another body answers 422.
func TestIdempotencyKeyRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	q := f.textQuestion(t, sid, "Q", false)
	sess := f.session(t, slug, nil)
	key := newKey()
	body := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{strconv.FormatInt(q, 10): "same"}})
	replies := race(20, func(int) reply { return f.submit(t, slug, key, body) })
	first := oneResponse(t, replies)
	f.wantStored(t, "after 20 sends of one key", sid, 1)

	other := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{strconv.FormatInt(q, 10): "other"}})
	f.submit(t, slug, key, other).is(t, 422, reusedKey)
	// Another key with the same session records nothing: a session records
	// one response (contract section 11, amended).
	f.submit(t, slug, newKey(), other).is(t, 409, sessionRespondedBody)
	// Another session's key is another response; the key belongs to the
	// survey.
	other = mustJSON(t, map[string]any{"session": f.session(t, slug, nil), "answers": map[string]any{strconv.FormatInt(q, 10): "other"}})
	f.submit(t, slug, newKey(), other).submitted(t)
	f.wantStored(t, "after another key", sid, 2)
	r := f.submit(t, slug, key, body)
	if r.submitted(t) != first || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a later retry: %d %s %v", r.code, r.body, r.header)
	}
}

// oneResponse checks that every reply of one key's racing sends answers
// the same response, all but one as replays, and returns it.
func oneResponse(t *testing.T, replies []reply) submitted {
	t.Helper()
	var first submitted
	replayed := 0
	for i, r := range replies {
		s := r.submitted(t)
		if i == 0 {
			first = s
		}
		if s != first {
			t.Errorf("answers differ: %+v and %+v", s, first)
		}
		if r.header.Get("Idempotent-Replayed") == "true" {
			replayed++
		}
	}
	if replayed != len(replies)-1 {
		t.Errorf("%d answers marked Idempotent-Replayed, want %d", replayed, len(replies)-1)
	}
	return first
}

// TestClosingBetweenSessionAndSubmit: a survey that closes (its date
// comes), stops or goes to the trash after a session started takes no
// response; neither does a session whose time to respond is over.
func TestClosingBetweenSessionAndSubmit(t *testing.T) {
	t.Parallel()
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(survey.DateLayout)
	cases := []struct {
		name  string
		close func(f fixture, sid int64) error
	}{
		{"expiration date reached", func(f fixture, sid int64) error {
			if err := f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{Expire: true, Expiration: tomorrow}); err != nil {
				return err
			}
			f.advance(48 * time.Hour) // the store's clock and the handler's: the date is today now
			return nil
		}},
		{"stopped", func(f fixture, sid int64) error {
			stop := true
			return f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop})
		}},
		{"trashed", func(f fixture, sid int64) error { return f.st.TrashSurvey(context.Background(), f.aid, sid) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			slug, sid := f.survey(t, unique, "K")
			sess := f.session(t, slug, map[string]any{"code": "K"})
			if err := tc.close(f, sid); err != nil {
				t.Fatal(err)
			}
			f.respond(t, slug, sess, nil).is(t, 410, closedBody)
			f.wantStored(t, tc.name, sid, 0)
			// A new session answers the same, the trashed survey's too
			// (it once answered 404).
			f.startSession(t, slug, map[string]any{"code": "K"}).is(t, 410, closedBody)
			// The code was not spent by the refused response.
			if ok, err := f.st.CheckCode(context.Background(), sid, "K", true); err != nil || !ok {
				t.Errorf("the code after a refused response: %v %v", ok, err)
			}
		})
	}
	t.Run("closing inside the transaction", func(t *testing.T) {
		// The handler reads the survey open; it stops before the
		// transaction: the transaction's condition refuses it.
		f := newFixture(t)
		slug, sid := f.survey(t, nil)
		sess := f.session(t, slug, nil)
		stopper := &stopBeforeSubmit{Store: f.st, stop: func() error {
			stop := true
			return f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop})
		}}
		h := newHandler(stopper, f)
		r := send(t, h, "POST", responsesPath(slug), mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{}}),
			"Content-Type", "application/json", "Idempotency-Key", newKey())
		r.is(t, 410, closedBody)
		f.wantStored(t, "stopped inside", sid, 0)
	})
	t.Run("time to respond", func(t *testing.T) {
		f := newFixture(t)
		slug, sid := f.survey(t, map[string]any{"responding_ duration": "00:01:00"})
		early, late := f.session(t, slug, nil), ""
		f.advance(60*time.Second + 20*time.Second) // within the 30 s grace
		f.respond(t, slug, early, nil).submitted(t)
		late = f.session(t, slug, nil)
		f.advance(60*time.Second + 31*time.Second)
		f.respond(t, slug, late, nil).is(t, 410, timeIsUp)
		f.wantStored(t, "after the time", sid, 1)
	})
}

// stopBeforeSubmit is a store that runs stop just before the submission's
// transaction: the owner stopping the survey while the request is in
// flight.
type stopBeforeSubmit struct {
	*store.Store
	stop func() error
}

func (s *stopBeforeSubmit) Submit(ctx context.Context, sub store.Submission) (store.Submitted, error) {
	if err := s.stop(); err != nil {
		return store.Submitted{}, err
	}
	return s.Store.Submit(ctx, sub)
}

// TestRetryAfterARefusalReplays: a retry of a recorded response answers it,
// even when the survey closed since.
func TestRetryAfterARefusalReplays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, nil)
	sess := f.session(t, slug, nil)
	key := newKey()
	body := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{}})
	first := f.submit(t, slug, key, body).submitted(t)
	stop := true
	if err := f.st.UpdateSettings(context.Background(), f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	r := f.submit(t, slug, key, body)
	if r.submitted(t) != first || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after the stop: %d %s", r.code, r.body)
	}
	f.respond(t, slug, sess, nil).is(t, 410, closedBody)
	f.wantStored(t, "after", sid, 1)
}

// TestAmendments: checking a code and resolving a link spend nothing; the
// response does (sections 7 and 8 as amended by 11).
func TestAmendments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, unique, "U")
	tokens, err := f.sealer.Seal(ctx, sid, []links.Payload{{Unique: true}})
	if err != nil {
		t.Fatal(err)
	}
	values := "/api/public/surveys/" + slug + "/variables/?qs=" + tokens[0]
	for range 3 {
		authenticate(t, f.h, slug, "U").is(t, 200, authenticated)
		send(t, f.h, "GET", values, "").is(t, 200, `{"values":{}}`)
	}
	sess := f.session(t, slug, map[string]any{"code": "U", "qs": tokens[0]})
	f.respond(t, slug, sess, nil).submitted(t)
	authenticate(t, f.h, slug, "U").is(t, 403, refusedBody)
	send(t, f.h, "GET", values, "").is(t, 410, linkUsedBody)
	if r := send(t, f.h, "HEAD", values, ""); r.code != 410 {
		t.Errorf("HEAD of a used link: %d", r.code)
	}
	f.wantStored(t, "after", sid, 1)
}
