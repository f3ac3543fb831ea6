// Command lambda is the pages function on Lambda: the hosted responder's
// page and the public report.
package main

import (
	"time"

	"surveyservice/functions/pages"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		return gateway.New(pages.New(env.Store, links.SealerFromEnv(env.AWS, env.Getenv, env.Store), time.Now, pages.WithConfig(pages.ConfigFromEnv(env.Getenv)))), nil
	})
}
