// Command lambda is the responders function on Lambda: what a survey's
// responders reach without an API key.
package main

import (
	"time"

	"surveyservice/functions/responders"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(responders.New(env.Store, links.SealerFromEnv(env.AWS, env.Getenv, env.Store), time.Now)), nil
	})
}
