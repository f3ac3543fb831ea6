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
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	d := &webhookdispatch.Dispatcher{Store: st, Queue: webhook.Queue{Client: sqs.NewFromConfig(cfg), URL: webhook.QueueURLFrom(getenv)}}
	return d.Replay(ctx, st, from, to)
}
