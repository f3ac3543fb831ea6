// Command lambda is the deliver function: run by the delivery queue and
// its slow lane, it signs and sends webhook deliveries, sends email and
// SMS notifications, and schedules their retries.
package main

import (
	"surveyservice/functions/deliver"
	"surveyservice/shared/api"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/sending"
	"surveyservice/shared/webhook"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		delays, err := webhook.ParseDelays(env.Getenv("WEBHOOK_RETRY_DELAYS"))
		if err != nil {
			return nil, err
		}
		base, err := api.BaseURLFromEnv(env.Getenv) // notifications link to the response
		if err != nil {
			return nil, err
		}
		sender, err := sending.FromEnv(env.AWS, env.Getenv)
		if err != nil {
			return nil, err
		}
		limits, err := sending.LimitsFromEnv(env.Getenv)
		if err != nil {
			return nil, err
		}
		smsDaily, err := sending.SMSDailyFromEnv(env.Getenv) // the whole service's SMS a day
		if err != nil {
			return nil, err
		}
		guard := webhook.Guard{AllowLoopback: env.Getenv("WEBHOOK_ALLOW_LOOPBACK") == "true"}
		queue := webhook.QueueFromEnv(env.AWS, env.Getenv)
		deps := deliver.Deps{
			Store:   env.Store,
			Opener:  links.SealerFromEnv(env.AWS, env.Getenv, env.Store),
			Queue:   queue,
			Client:  guard.Client(webhook.Timeout),
			Delays:  delays,
			Sender:  sender,
			Budgets: sending.NewBudgets(env.Store, nil).WithSMSDaily(smsDaily),
			Limits:  limits,
			BaseURL: base,
		}
		if url, arn := webhook.SlowLaneFrom(env.Getenv); url != "" {
			deps.Slow, deps.SlowARN = webhook.Queue{Client: queue.Client, URL: url}, arn
		}
		return deliver.New(deps).Handle, nil
	})
}
