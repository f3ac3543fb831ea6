// Command lambda is the responders function on Lambda: what a survey's
// responders reach without an API key.
package main

import (
	"time"

	"surveyservice/functions/pages"
	"surveyservice/functions/responders"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/hosts"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/sending"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		// Within the limits per client and per survey, counted across
		// containers through the table (shared/ratelimit); make run
		// serves the same constructor.
		files := uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))
		// Sign-in codes (contract section 18) go by SES and SNS within
		// the sending budgets (VERIFY_LIMITS).
		sender, err := sending.FromEnv(env.AWS, env.Getenv)
		if err != nil {
			return nil, err
		}
		limits, err := sending.LimitsFromEnv(env.Getenv)
		if err != nil {
			return nil, err
		}
		smsDaily, err := sending.SMSDailyFromEnv(env.Getenv) // the whole service's SMS a day
		if err != nil {
			return nil, err
		}
		rt := responders.New(responders.Deps{
			Store: env.Store, Sealer: links.SealerFromEnv(env.AWS, env.Getenv, env.Store), Now: time.Now, Uploads: files,
			Sender: sender, Budgets: sending.NewBudgets(env.Store, nil).WithSMSDaily(smsDaily), Limits: limits,
		})
		// The host chooses whose surveys are served (contract section 23).
		byHost := hosts.New(hosts.ConfigFromEnv(env.Getenv), env.Store)
		return gateway.New(byHost.Wrap(responders.Limited(rt, env.Store, ratelimit.Service, time.Now), hosts.Serving, pages.NotFound())), nil
	})
}
