// Command lambda is the pages function on Lambda: the hosted responder's
// page and the public report.
package main

import (
	"time"

	"surveyservice/functions/pages"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/hosts"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		// Within the limits per client and per survey, counted across
		// containers through the table (shared/ratelimit); assets are not
		// limited. make run serves the same constructor.
		cfg := pages.ConfigFromEnv(env.Getenv)
		// The host chooses whose surveys are served (contract section 23);
		// links point at the survey's account subdomain when active, and
		// oEmbed learns what a custom domain serves where the host does.
		byHost := hosts.New(hosts.ConfigFromEnv(env.Getenv), env.Store)
		cfg.Links = byHost.Links(cfg.PublicURL, env.Store)
		rt := pages.New(pages.Deps{
			Store: env.Store, Sealer: links.SealerFromEnv(env.AWS, env.Getenv, env.Store), Now: time.Now,
			Config: cfg,
		})
		base, err := api.BaseURLFromEnv(env.Getenv) // oEmbed's discovery link
		if err != nil {
			return nil, err
		}
		return gateway.New(api.ServeAt(base, byHost.Wrap(pages.Limited(rt, env.Store, ratelimit.Service, time.Now), hosts.Serving, pages.NotFound()))), nil
	})
}
