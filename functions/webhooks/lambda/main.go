// Command lambda is the webhooks function on Lambda: a survey's webhooks
// (in both shapes), their delivery logs and manual retries.
package main

import (
	"surveyservice/functions/webhooks"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/webhook"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		base, err := api.BaseURLFromEnv(env.Getenv) // the deliveries' next
		if err != nil {
			return nil, err
		}
		return gateway.New(api.ServeAt(base, webhooks.New(webhooks.Deps{
			Auth:   api.NewAuthenticator(env.Store),
			Store:  env.Store,
			Sealer: links.SealerFromEnv(env.AWS, env.Getenv, env.Store),
			Queue:  webhook.QueueFromEnv(env.AWS, env.Getenv),
			Guard:  webhook.Guard{AllowLoopback: env.Getenv("WEBHOOK_ALLOW_LOOPBACK") == "true"},
		}))), nil
	})
}
