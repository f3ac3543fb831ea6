// Command lambda is the account function: who the caller is, and the DRF
// 404 for every path no other function serves.
package main

import (
	"surveyservice/functions/account"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		d := account.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Domains: account.DomainsFromEnv(env.Getenv)}
		return gateway.New(account.New(d)), nil
	})
}
