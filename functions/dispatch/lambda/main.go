// Command lambda is the dispatch function: run by the table's stream
// (filtered to new and edited responses), it records and queues their
// deliveries and keeps the files they answer with.
package main

import (
	"surveyservice/functions/dispatch"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		return (dispatch.New(dispatch.Deps{Store: env.Store, Queue: webhook.QueueFromEnv(env.AWS, env.Getenv),
			Files: uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))})).Handle, nil
	})
}
