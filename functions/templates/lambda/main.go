// Command lambda is the templates function: the public catalog on Lambda.
package main

import (
	"surveyservice/functions/templates"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(templates.New(templates.Deps{Catalog: env.Store, MediaURL: env.Getenv("MEDIA_URL"), TemplatesURL: env.Getenv("TEMPLATES_URL")})), nil
	})
}
