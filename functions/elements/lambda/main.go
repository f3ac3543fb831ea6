// Command lambda is the elements function on Lambda.
package main

import (
	"surveyservice/functions/elements"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(elements.New(elements.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store})), nil
	})
}
