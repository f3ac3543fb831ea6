// Command lambda is the sweeper: run by an EventBridge schedule every five
// minutes, it closes the surveys whose expiration date has come.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		return handler(sweeper.New(sweeper.Deps{Store: env.Store})), nil
	})
}

// handler sweeps on each scheduled event and logs and emits its figures.
func handler(s *sweeper.Sweeper) func(context.Context, events.EventBridgeEvent) (sweeper.Result, error) {
	return func(ctx context.Context, ev events.EventBridgeEvent) (sweeper.Result, error) {
		start := time.Now()
		res, err := s.Run(ctx, start)
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
