package responders_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/responders"
	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// conflictFixture is newFixture on DynamoDB behind the conflict model
// (internal/conflict), which cancels a transaction that meets another
// one's items with TransactionConflict, as DynamoDB does and DynamoDB
// Local never does.
func conflictFixture(tb testing.TB) (fixture, *conflict.Proxy) {
	tb.Helper()
	testenv.KeepErrorLog(tb)
	cfg, p := testenv.ConflictConfig(tb, conflict.DefaultHold)
	st := store.New(cfg, testenv.Store(tb).TableName())
	sealer := links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(tb), st)
	skew := &atomic.Int64{}
	st.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	a, _ := testenv.NewAccount(tb, survey.PlanEnterprise)
	fo, err := st.CreateFolder(context.Background(), a.ID, "Contention", nil)
	if err != nil {
		tb.Fatal(err)
	}
	now := func() time.Time { return st.Now() }
	h := testenv.WithDeadline(responders.New(responders.Deps{Store: st, Sealer: sealer, Now: now}), testenv.EmulatorDeadline)
	return fixture{st: st, sealer: sealer, h: h, aid: a.ID, fid: fo.ID, skew: skew}, p
}

// outcomes counts the replies by status and body, for the failure message
// and the report: "201 ×1, 410 {...} ×29".
func outcomes(replies []reply) string {
	n := map[string]int{}
	for _, r := range replies {
		k := strconv.Itoa(r.code)
		if r.code != 201 {
			k += " " + r.body
		}
		n[k]++
	}
	var out []string
	for k, c := range n {
		out = append(out, fmt.Sprintf("%s ×%d", k, c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// TestRacesUnderContention: racing responders get the verdict of what
// won, never 503 (contract section 3, "Contention"), with DynamoDB's
// transaction conflicts modelled: on one one-use link 1 × 201 and the rest
// 410; on one unique code 1 × 201 and the rest 403; one Idempotency-Key
// sent 50 times, the same response every time; one no_spam responder's 20
// sessions, 1 × 201 and the rest 403. Before reading what won, most
// losers answered 503 (the conflict outlasted the store's few tries).
func TestRacesUnderContention(t *testing.T) {
	t.Parallel()
	t.Run("one-use link", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid, _, sessions := f.oneUseLinkSessions(t, 30)
		before := p.Conflicts()
		replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
		t.Logf("30 on one one-use link: %s (%d conflicts)", outcomes(replies), p.Conflicts()-before)
		wantOneWinner(t, replies, 410, linkUsedBody)
		f.wantStored(t, "after the race", sid, 1)
	})
	t.Run("unique code", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid := f.survey(t, unique, "ONLY")
		sessions := make([]string, 30)
		for i := range sessions {
			sessions[i] = f.session(t, slug, map[string]any{"code": "ONLY"})
		}
		before := p.Conflicts()
		replies := race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], nil) })
		t.Logf("30 on one unique code: %s (%d conflicts)", outcomes(replies), p.Conflicts()-before)
		wantOneWinner(t, replies, 403, refusedBody)
		f.wantStored(t, "after the race", sid, 1)
	})
	t.Run("one Idempotency-Key", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid := f.survey(t, nil)
		q := f.textQuestion(t, sid, "Q", false)
		sess := f.session(t, slug, nil)
		key := newKey()
		body := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{strconv.FormatInt(q, 10): "same"}})
		before := p.Conflicts()
		replies := race(50, func(int) reply { return f.submit(t, slug, key, body) })
		t.Logf("50 with one Idempotency-Key: %s (%d conflicts)", outcomes(replies), p.Conflicts()-before)
		oneResponse(t, replies)
		f.wantStored(t, "after 50 sends of one key", sid, 1)
	})
	t.Run("one no_spam responder", func(t *testing.T) {
		t.Parallel()
		f, p := conflictFixture(t)
		slug, sid := f.survey(t, map[string]any{"no_spam": true})
		b := &browser{}
		sessions := make([]string, 20)
		for i := range sessions {
			_, sessions[i] = b.start(t, f, slug, nil)
		}
		before := p.Conflicts()
		replies := race(len(sessions), func(i int) reply { return b.submit(t, f, slug, sessions[i], nil) })
		t.Logf("20 of one no_spam responder: %s (%d conflicts)", outcomes(replies), p.Conflicts()-before)
		wantOneWinner(t, replies, 403, `{"detail":"You have already responded to this survey."}`)
		f.wantStored(t, "after the race", sid, 1)
	})
}

// TestSessionRecordsOneResponse: once a response carrying a session is
// recorded, another Idempotency-Key with that session answers 409 and
// records nothing, while the same key and body still answer the replay
// (contract section 11, amended); of one session's submissions racing
// under different keys exactly one is recorded. The claim is the
// session's own item: sessions of different responders racing meet no
// conflict. Before the claim, a session recorded one response a key (20
// racing keys: 20 responses).
func TestSessionRecordsOneResponse(t *testing.T) {
	t.Parallel()
	f, p := conflictFixture(t)
	slug, sid := f.survey(t, nil)
	q := strconv.FormatInt(f.textQuestion(t, sid, "Q", false), 10)
	sess := f.session(t, slug, nil)
	key := newKey()
	body := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{q: "first"}})
	first := f.submit(t, slug, key, body).submitted(t)
	f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{q: "again"}})).
		is(t, 409, sessionRespondedBody)
	f.submit(t, slug, newKey(), body).is(t, 409, sessionRespondedBody) // the same body, another key
	if r := f.submit(t, slug, key, body); r.submitted(t) != first || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same key and body: %d %s, want the replay of %+v", r.code, r.body, first)
	}
	f.wantStored(t, "after one session's three keys", sid, 1)

	racing := f.session(t, slug, nil)
	replies := race(20, func(i int) reply {
		return f.submit(t, slug, newKey(), mustJSON(t, map[string]any{"session": racing, "answers": map[string]any{q: strconv.Itoa(i)}}))
	})
	t.Logf("20 keys of one session: %s", outcomes(replies))
	wantOneWinner(t, replies, 409, sessionRespondedBody)
	f.wantStored(t, "after one session's racing keys", sid, 2)

	sessions := make([]string, 20)
	for i := range sessions {
		sessions[i] = f.session(t, slug, nil)
	}
	before := p.Conflicts()
	replies = race(len(sessions), func(i int) reply { return f.respond(t, slug, sessions[i], map[string]any{q: "mine"}) })
	for _, r := range replies {
		if r.code != 201 {
			t.Errorf("one of 20 sessions answered %d %s", r.code, r.body)
		}
	}
	if n := p.Conflicts() - before; n != 0 {
		t.Errorf("20 sessions' submissions met %d conflicts: they share an item", n)
	}
	f.wantStored(t, "after 20 sessions", sid, 22)
}
