// Command lambda is the sweeper: run by an EventBridge schedule every five
// minutes, it closes the surveys whose expiration date has come.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
)

func main() {
	api.JSONLogging(os.Stdout)
	st, err := store.OpenEnv(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("start", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(handler(st))
}

func handler(st sweeper.Store) func(context.Context, events.EventBridgeEvent) (sweeper.Result, error) {
	return func(ctx context.Context, ev events.EventBridgeEvent) (sweeper.Result, error) {
		start := time.Now()
		res, err := sweeper.Run(ctx, st, start)
		attrs := []any{"event_id", ev.ID, "closed", res.Closed, "read", res.Read, "complete", res.Complete,
			"duration_ms", time.Since(start).Milliseconds()}
		if err != nil {
			slog.Error("sweep failed", append(attrs, "error", err.Error())...)
		} else {
			slog.Info("sweep", attrs...)
		}
		_ = sweeper.EmitMetric(os.Stdout, res, time.Now())
		return res, err
	}
}
