package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/internal/localaws"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// TestReplayWebhooks: the replay of a window creates the deliveries its
// responses lack and queues them; run again, it makes no delivery twice;
// responses outside the window are left alone.
func TestReplayWebhooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: "replay@example.com", Plan: survey.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(testenv.Config(t))
	url, _, err := webhook.EnsureQueue(ctx, client, "replay-"+e.table, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "WEBHOOK_QUEUE_URL" {
			return url
		}
		return e.getenv(k)
	}
	sv := sweepSurveys(t, st, a.ID, 1, "")[0]
	_, err = st.ChangeWebhooks(ctx, sv.AccountID, sv.ID, func([]survey.Webhook) ([]survey.Webhook, error) {
		return []survey.Webhook{{ID: 41, URL: "https://hooks.example.com/in", Events: []string{survey.EventResponseSubmitted},
			Active: true, Created: time.Now(), SealedSecret: "sealed"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var rs []survey.Response
	for i, when := range []time.Time{at, at.Add(time.Minute), at.Add(2 * time.Hour)} {
		rs = append(rs, survey.Response{ID: int64(100 + i), SurveyID: sv.ID, SubmittedAt: when, StartedAt: when.Add(-time.Minute),
			Answers: map[int64]json.RawMessage{}})
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay-webhooks", "--from", "2026-11-20T09:59:00Z", "--to", "2026-11-20T10:30:00Z"}
	var out struct{ Surveys, Responses, Queued int }
	var stdout, stderr strings.Builder
	if code := run(ctx, args, getenv, &stdout, &stderr); code != 0 {
		t.Fatalf("replay = %d %s", code, stderr.String())
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil || out.Surveys != 1 || out.Responses != 2 || out.Queued != 2 {
		t.Fatalf("replay printed %s", stdout.String())
	}
	count := func() int {
		page, _, err := st.Deliveries(ctx, 41, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(page)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d deliveries after the replay, want 2", n)
	}
	// Again: no delivery is made twice (the event is the key); the jobs of
	// deliveries not yet attempted are queued again, and race for one
	// claim (store.ClaimAttempt).
	stdout.Reset()
	if code := run(ctx, args, getenv, &stdout, &stderr); code != 0 {
		t.Fatalf("second replay = %d %s", code, stderr.String())
	}
	if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil || out.Responses != 2 || count() != 2 {
		t.Fatalf("a second replay printed %s; %d deliveries", stdout.String(), count())
	}
	for _, bad := range [][]string{{"replay-webhooks"}, {"replay-webhooks", "--from", "yesterday", "--to", "2026-11-20T10:30:00Z"},
		{"replay-webhooks", "--from", "2026-11-20T10:30:00Z", "--to", "2026-11-20T09:00:00Z"}} {
		e.run(t, bad...).fails(t, 2, "replay-webhooks needs --from and --to")
	}
	e.run(t, args...).fails(t, 1, "WEBHOOK_QUEUE_URL is not set")
}

// TestBackfillHookedIndex: a webhooks item written before the hooked index
// (no GSI1 keys) is missed by the replay, which says the backfill has not
// run; `webhooks backfill` indexes it (and not an item without webhooks),
// after which the replay finds it and says nothing; run again, the
// backfill writes nothing.
func TestBackfillHookedIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: "backfill@example.com", Plan: survey.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(testenv.Config(t))
	url, _, err := webhook.EnsureQueue(ctx, client, "backfill-"+e.table, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "WEBHOOK_QUEUE_URL" {
			return url
		}
		return e.getenv(k)
	}
	svs := sweepSurveys(t, st, a.ID, 3, "")
	hooks := func(n int) func([]survey.Webhook) ([]survey.Webhook, error) {
		return func([]survey.Webhook) ([]survey.Webhook, error) {
			var out []survey.Webhook
			for i := range n {
				out = append(out, survey.Webhook{ID: int64(50 + i), URL: "https://hooks.example.com/in", Events: []string{survey.EventResponseSubmitted},
					Active: true, Created: time.Now(), SealedSecret: "sealed"})
			}
			return out, nil
		}
	}
	// svs[0]: indexed as today; svs[1]: written before the index (its keys
	// removed as an old item never had them); svs[2]: webhooks all deleted.
	for i, n := range []int{1, 1, 0} {
		if _, err := st.ChangeWebhooks(ctx, a.ID, svs[i].ID, hooks(n)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.table),
		Key: map[string]dtypes.AttributeValue{store.AttrPK: &dtypes.AttributeValueMemberS{Value: store.HooksPK(svs[1].ID)},
			store.AttrSK: &dtypes.AttributeValueMemberS{Value: "WEBHOOKS"}},
		UpdateExpression: aws.String("REMOVE GSI1PK, GSI1SK")})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var rs []survey.Response
	for i, sv := range svs[:2] {
		rs = append(rs, survey.Response{ID: int64(200 + i), SurveyID: sv.ID, SubmittedAt: at, StartedAt: at.Add(-time.Minute), Answers: map[int64]json.RawMessage{}})
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	replay := func() (out struct {
		Surveys, Responses, Queued int
		Backfilled                 bool   `json:"hooked_index_backfilled"`
		At                         string `json:"hooked_index_backfilled_at"`
		Warning                    string `json:"warning"`
	}) {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := run(ctx, []string{"replay-webhooks", "--from", "2026-11-20T09:59:00Z", "--to", "2026-11-20T10:01:00Z"}, getenv, &stdout, &stderr); code != 0 {
			t.Fatalf("replay = %d %s", code, stderr.String())
		}
		if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := replay(); out.Surveys != 1 || out.Backfilled || out.Warning != MsgNoBackfill {
		t.Fatalf("before the backfill the replay found %d surveys (want 1: the old item is missed), backfilled %v, warning %q", out.Surveys, out.Backfilled, out.Warning)
	}
	type backfill struct{ Scanned, Found, Indexed, Skipped int }
	var b backfill
	e.run(t, "webhooks", "backfill", "--segments", "4").ok(t, &b, "scanned", "found", "indexed", "skipped")
	if b.Found != 2 || b.Indexed != 1 || b.Skipped != 1 || b.Scanned < 3 {
		t.Fatalf("backfill %+v: want the old item indexed and the one without webhooks skipped", b)
	}
	if out := replay(); out.Surveys != 2 || out.Responses != 2 || !out.Backfilled || out.At == "" || out.Warning != "" {
		t.Fatalf("after the backfill the replay: %+v; want both surveys and no warning", out)
	}
	e.run(t, "webhooks", "backfill").ok(t, &b, "scanned", "found", "indexed", "skipped")
	if b.Indexed != 0 {
		t.Fatalf("a second backfill indexed %d items, want 0", b.Indexed)
	}
	e.run(t, "webhooks", "backfill", "--segments", "0").fails(t, 2, "--segments")
	e.run(t, "webhooks", "backfill", "extra").fails(t, 2, "webhooks backfill")
}
