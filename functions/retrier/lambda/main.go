// Command lambda is the retrier: run by an EventBridge schedule every
// minute, it queues the webhook deliveries whose next attempt is due.
package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/retrier"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/webhook"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		return handler(retrier.New(retrier.Deps{Store: env.Store, Queue: webhook.QueueFromEnv(env.AWS, env.Getenv)})), nil
	})
}

// handler queues what is due on each scheduled event and logs its figures.
func handler(rt *retrier.Retrier) func(context.Context, events.EventBridgeEvent) (retrier.Result, error) {
	return func(ctx context.Context, ev events.EventBridgeEvent) (retrier.Result, error) {
		start := time.Now()
		res, err := rt.Run(ctx, start)
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
