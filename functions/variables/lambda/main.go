// Command lambda is the variables function on Lambda: a survey's variables and
// personalised links.
package main

import (
	"surveyservice/functions/variables"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/hosts"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		sealer := links.SealerFromEnv(env.AWS, env.Getenv, env.Store)
		return gateway.New(variables.New(variables.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Sealer: sealer,
			SurveyURL: env.Getenv("PUBLIC_SURVEY_URL"), Hosts: hosts.ConfigFromEnv(env.Getenv)})), nil
	})
}
