// Command lambda is the responders function on Lambda: what a survey's
// responders reach without an API key.
package main

import (
	"time"

	"surveyservice/functions/responders"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		files := uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))
		return gateway.New(responders.New(env.Store, links.SealerFromEnv(env.AWS, env.Getenv, env.Store), time.Now,
			responders.WithUploads(files))), nil
	})
}
