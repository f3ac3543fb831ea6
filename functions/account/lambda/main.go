// Command lambda is the account function: who the caller is, and the DRF
// 404 for every path no other function serves.
package main

import (
	"surveyservice/functions/account"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/cdn"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		domains := account.DomainsFromEnv(env.Getenv)
		domains.Tenants = cdn.FromEnv(env.AWS, env.Getenv) // a verified domain's CloudFront tenant
		d := account.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Domains: domains}
		return gateway.New(account.New(d)), nil
	})
}
