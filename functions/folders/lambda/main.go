// Command lambda is the folders function on Lambda.
package main

import (
	"time"

	"surveyservice/functions/folders"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(folders.New(folders.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Now: time.Now})), nil
	})
}
