// Command lambda is the settings function on Lambda.
package main

import (
	"time"

	"surveyservice/functions/settings"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		base, err := api.BaseURLFromEnv(env.Getenv) // the codes list's next and previous
		if err != nil {
			return nil, err
		}
		return gateway.New(api.ServeAt(base, settings.New(settings.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Now: time.Now}))), nil
	})
}
