// Command lambda is the templates function: the public catalog on Lambda.
package main

import (
	"surveyservice/functions/templates"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		base, err := api.BaseURLFromEnv(env.Getenv) // the list's next and previous
		if err != nil {
			return nil, err
		}
		return gateway.New(api.ServeAt(base, templates.New(templates.Deps{Catalog: env.Store, MediaURL: env.Getenv("MEDIA_URL"),
			TemplatesURL: env.Getenv("TEMPLATES_URL")}))), nil
	})
}
