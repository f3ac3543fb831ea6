// Command lambda is the surveys function on Lambda.
package main

import (
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Now: time.Now, MediaURL: env.Getenv("MEDIA_URL")})), nil
	})
}
