// Command lambda is the retrier: run by an EventBridge schedule every
// minute, it queues the webhook deliveries whose next attempt is due.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/retrier"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

func main() {
	api.JSONLogging(os.Stdout)
	ctx := context.Background()
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(os.Getenv))
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	st := store.New(cfg, store.TableNameFrom(os.Getenv))
	lambda.Start(handler(st, webhook.Queue{Client: sqs.NewFromConfig(cfg), URL: webhook.QueueURLFrom(os.Getenv)}))
}

func handler(st retrier.Store, q retrier.Queue) func(context.Context, events.EventBridgeEvent) (retrier.Result, error) {
	return func(ctx context.Context, ev events.EventBridgeEvent) (retrier.Result, error) {
		start := time.Now()
		res, err := retrier.Run(ctx, st, q, start)
		attrs := []any{"event_id", ev.ID, "read", res.Read, "queued", res.Queued, "complete", res.Complete,
			"duration_ms", time.Since(start).Milliseconds()}
		if err != nil {
			slog.Error("retrier failed", append(attrs, "error", err.Error())...)
		} else {
			slog.Info("retrier", attrs...)
		}
		return res, err
	}
}
