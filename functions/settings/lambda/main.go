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
		return gateway.New(settings.New(settings.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Now: time.Now})), nil
	})
}
