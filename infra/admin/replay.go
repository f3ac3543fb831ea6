package main

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	webhookdispatch "surveyservice/functions/dispatch"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// replayWebhooks dispatches again the webhook events of the responses
// submitted in a window (functions/dispatch Replay): the repair of records the
// table's stream gave up, whose window the failure queue's message names
// (approximateArrivalOfFirstRecord .. approximateArrivalOfLastRecord).
// Deliveries are keyed by their event, so no delivery is duplicated.
func replayWebhooks(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("replay-webhooks")
	fromFlag := fs.String("from", "", "start of the window, RFC 3339")
	toFlag := fs.String("to", "", "end of the window, RFC 3339")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	from, err1 := time.Parse(time.RFC3339Nano, *fromFlag)
	to, err2 := time.Parse(time.RFC3339Nano, *toFlag)
	if err1 != nil || err2 != nil || to.Before(from) {
		return nil, fmt.Errorf("%w: replay-webhooks needs --from and --to (RFC 3339, from <= to)", errUsage)
	}
	if getenv("WEBHOOK_QUEUE_URL") == "" {
		return nil, survey.Errorf(survey.EINVALID, "WEBHOOK_QUEUE_URL is not set")
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	c := awsenv.FromEnv(getenv)
	c.Policy = awsenv.Events
	cfg, err := awsenv.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	at, backfilled, err := st.HookedBackfillDone(ctx)
	if err != nil {
		return nil, err
	}
	d := webhookdispatch.New(webhookdispatch.Deps{Store: st, Queue: webhook.Queue{Client: sqs.NewFromConfig(cfg), URL: webhook.QueueURLFrom(getenv)}})
	res, err := d.Replay(ctx, st, from, to)
	out := replayOutput{ReplayResult: res, HookedIndexBackfilled: backfilled, HookedIndexBackfilledAt: at}
	if !backfilled {
		out.Warning = MsgNoBackfill
	}
	return out, err
}

// MsgNoBackfill is the replay's warning while the hooked index may lack
// surveys whose webhooks were last changed before it existed.
const MsgNoBackfill = "The hooked-surveys index has not been backfilled (admin webhooks backfill): surveys whose webhooks were last changed before it existed are not replayed."

// replayOutput is what replay-webhooks prints: what it replayed, and
// whether every survey with webhooks was in its index.
type replayOutput struct {
	webhookdispatch.ReplayResult
	HookedIndexBackfilled   bool   `json:"hooked_index_backfilled"`
	HookedIndexBackfilledAt string `json:"hooked_index_backfilled_at,omitempty"`
	Warning                 string `json:"warning,omitempty"`
}

// backfillHooked gives every webhooks item written before the hooked index
// its keys (store.BackfillHooked): a one-off migration, idempotent.
func backfillHooked(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("webhooks backfill")
	segments := fs.Int("segments", 8, "parallel Scan segments")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if *segments < 1 || *segments > 1000 {
		return nil, fmt.Errorf("%w: --segments must be 1..1000", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	return st.BackfillHooked(ctx, *segments)
}
