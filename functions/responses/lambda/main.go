// Command lambda is the responses function on Lambda: the owner's view of a
// survey's responses, their CSV pages and exports.
package main

import (
	"time"

	"surveyservice/functions/responses"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/exports"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		sealer := links.SealerFromEnv(env.AWS, env.Getenv, env.Store)
		bucket := exports.New(env.AWS, exports.BucketFromEnv(env.Getenv))
		jobs := exports.QueueFromEnv(env.AWS, env.Getenv)
		files := uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))
		base, err := api.BaseURLFromEnv(env.Getenv) // next links, export links, a job's Location
		if err != nil {
			return nil, err
		}
		return gateway.New(api.ServeAt(base, responses.New(responses.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store,
			Sealer: sealer, Exports: bucket, Jobs: jobs, Now: time.Now, Uploads: files}))), nil
	})
}
