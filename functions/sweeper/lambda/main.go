// Command lambda is the sweeper: run by an EventBridge schedule every five
// minutes, it closes the surveys whose expiration date has come; run by
// the daily schedule (detail-type sweeper.DomainsCheckType), it re-checks
// the verified custom domains' DNS records.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/sweeper"
	"surveyservice/shared/cdn"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		notifier, err := sweeper.NotifierFromEnv(env.AWS, env.Store, env.Getenv)
		if err != nil {
			return nil, err
		}
		tenants := cdn.FromEnv(env.AWS, env.Getenv)
		domains := func(ctx context.Context, now time.Time) (sweeper.DomainsResult, error) {
			return sweeper.CheckDomains(ctx, env.Store, dnscheck.New(env.Getenv("DNS_RESOLVER")), tenants, now, notifier.Notify)
		}
		return handler(sweeper.New(sweeper.Deps{Store: env.Store}), domains), nil
	})
}

// handler sweeps on each scheduled event, or checks the domains on the
// daily one, and logs and emits its figures.
func handler(s *sweeper.Sweeper, domains func(context.Context, time.Time) (sweeper.DomainsResult, error)) func(context.Context, events.EventBridgeEvent) (any, error) {
	return func(ctx context.Context, ev events.EventBridgeEvent) (any, error) {
		start := time.Now()
		if ev.DetailType == sweeper.DomainsCheckType {
			res, err := domains(ctx, start)
			attrs := []any{"event_id", ev.ID, "checked", res.Checked, "suspended", res.Suspended, "released", res.Released,
				"duration_ms", time.Since(start).Milliseconds()}
			if err != nil {
				slog.Error("domains check failed", append(attrs, "error", err.Error())...)
			} else {
				slog.Info("domains check", attrs...)
			}
			return res, err
		}
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
