// Command lambda is the dispatch function: run by the table's stream
// (filtered to new responses), it records and queues their deliveries.
package main

import (
	"surveyservice/functions/dispatch"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/webhook"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		return (&dispatch.Dispatcher{Store: env.Store, Queue: webhook.QueueFromEnv(env.AWS, env.Getenv)}).Handle, nil
	})
}
