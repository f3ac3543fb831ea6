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
		return gateway.New(settings.New(api.NewAuthenticator(env.Store), env.Store, time.Now)), nil
	})
}
