// Command lambda is the responders function on Lambda: what a survey's
// responders reach without an API key.
package main

import (
	"time"

	"surveyservice/functions/responders"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		// Limits per client and per survey, counted across containers
		// through the table (shared/ratelimit).
		limits := ratelimit.NewPolicy("responders", env.Store, ratelimit.RespondersSurvey, time.Now)
		files := uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))
		return gateway.New(limits.Wrap(responders.New(env.Store, links.SealerFromEnv(env.AWS, env.Getenv, env.Store), time.Now,
			responders.WithUploads(files)))), nil
	})
}
