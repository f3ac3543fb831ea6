package main

import (
	"fmt"
	"net/http"
	"time"

	"surveyservice/functions/account"
	"surveyservice/functions/elements"
	"surveyservice/functions/folders"
	"surveyservice/functions/pages"
	"surveyservice/functions/responders"
	"surveyservice/functions/responses"
	"surveyservice/functions/schema"
	"surveyservice/functions/settings"
	"surveyservice/functions/surveys"
	"surveyservice/functions/templates"
	"surveyservice/functions/variables"
	"surveyservice/functions/webhooks"
	"surveyservice/shared/api"
	"surveyservice/shared/exports"
	"surveyservice/shared/links"
	"surveyservice/internal/routing"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

// config is what the local server reads from the environment, the sealer
// of personalised links and the exports bucket (nil where no route is
// served, as in the tests that only list routes).
type config struct {
	templates templates.Config
	variables variables.Config
	sealer    *links.Sealer
	// queue takes the owner's retries of webhook deliveries; guard checks
	// webhook URLs (loopback allowed locally, by configuration).
	queue webhooks.Queue
	guard webhook.Guard
	// exports is the bucket of response exports.
	exports *exports.Bucket
}

// routers returns every resource group, each as its Lambda function serves
// it, by the function's logical id in template.yaml.
func routers(st *store.Store, cfg config) map[string]*api.Router {
	auth := api.NewAuthenticator(st)
	return map[string]*api.Router{
		"TemplatesFunction":  templates.New(st, cfg.templates),
		"AccountFunction":    account.New(auth),
		"FoldersFunction":    folders.New(auth, st, time.Now),
		"SurveysFunction":    surveys.New(auth, st, time.Now),
		"ElementsFunction":   elements.New(auth, st),
		"SettingsFunction":   settings.New(auth, st, time.Now),
		"RespondersFunction": responders.New(st, cfg.sealer, time.Now),
		"PagesFunction":      pages.New(st, cfg.sealer, time.Now),
		"VariablesFunction":  variables.New(auth, st, cfg.sealer, cfg.variables),
		"ResponsesFunction":  responses.New(auth, st, cfg.sealer, cfg.exports, time.Now),
		"SchemaFunction":     schema.New(),
		"WebhooksFunction": webhooks.New(auth, webhooks.Deps{Store: st, Sealer: cfg.sealer, Queue: cfg.queue,
			Guard: cfg.guard}),
	}
}

// gatewayRoutes are template.yaml's HttpApi events, one row each (a test
// holds the two equal): per group its prefix without a final slash and a
// greedy child route, plus $default. A new function adds its pair here and
// in template.yaml.
var gatewayRoutes = routing.MustNew([]routing.Route{
	{Method: "ANY", Path: "/api/templates", Target: "TemplatesFunction"},
	{Method: "ANY", Path: "/api/templates/{proxy+}", Target: "TemplatesFunction"},
	{Method: "ANY", Path: "/api/whoami", Target: "AccountFunction"},
	{Method: "ANY", Path: "/api/whoami/{proxy+}", Target: "AccountFunction"},
	{Method: "ANY", Path: "/api/folders", Target: "FoldersFunction"},
	{Method: "ANY", Path: "/api/folders/{proxy+}", Target: "FoldersFunction"},
	{Method: "ANY", Path: "/api/v2/surveys", Target: "SurveysFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{proxy+}", Target: "SurveysFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}", Target: "SurveysFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/{proxy+}", Target: "SurveysFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/questions", Target: "ElementsFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/questions/{proxy+}", Target: "ElementsFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/settings", Target: "SettingsFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/settings/{proxy+}", Target: "SettingsFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/variables", Target: "VariablesFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/variables/{proxy+}", Target: "VariablesFunction"},
	{Method: "ANY", Path: "/api/public/surveys/{proxy+}", Target: "RespondersFunction"},
	{Method: "ANY", Path: "/api/public/surveys/{url_slug}/authenticate", Target: "RespondersFunction"},
	{Method: "ANY", Path: "/api/public/surveys/{url_slug}/authenticate/{proxy+}", Target: "RespondersFunction"},
	{Method: "ANY", Path: "/api/public/surveys/{url_slug}/sessions", Target: "RespondersFunction"},
	{Method: "ANY", Path: "/api/public/surveys/{url_slug}/sessions/{proxy+}", Target: "RespondersFunction"},
	{Method: "ANY", Path: "/s/{proxy+}", Target: "PagesFunction"},
	{Method: "ANY", Path: "/r/{proxy+}", Target: "PagesFunction"},
	{Method: "ANY", Path: "/assets/{proxy+}", Target: "PagesFunction"},
	{Method: "ANY", Path: "/api/oembed", Target: "PagesFunction"},
	{Method: "ANY", Path: "/api/oembed/{proxy+}", Target: "PagesFunction"},
	{Method: "ANY", Path: "/api/schema", Target: "SchemaFunction"},
	{Method: "ANY", Path: "/api/schema/{proxy+}", Target: "SchemaFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/responses", Target: "ResponsesFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/responses/{proxy+}", Target: "ResponsesFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/responses/{proxy+}", Target: "ResponsesFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/webhooks", Target: "WebhooksFunction"},
	{Method: "ANY", Path: "/api/surveys/{survey_id}/webhooks/{proxy+}", Target: "WebhooksFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/notifications", Target: "WebhooksFunction"},
	{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/notifications/{proxy+}", Target: "WebhooksFunction"},
	{Method: "ANY", Path: routing.Default, Target: "AccountFunction"},
})

// localReading is how `make run` treats a final slash. Every path of the
// contract reaches the same function under either reading (a test holds
// it); the events in events/ are written in this one too.
const localReading = routing.SlashIgnored

// serve is the whole API as the deployed HTTP API serves it: each request
// goes to the function its route in template.yaml targets, then through
// that function's own router (its 404, final-slash handling and access log),
// exactly as on Lambda.
func serve(fns map[string]*api.Router) http.Handler {
	targets := make(map[string]http.Handler, len(fns))
	for name, rt := range fns {
		targets[name] = api.Mount(rt)
	}
	h, err := gatewayRoutes.Handler(localReading, targets)
	if err != nil {
		panic(fmt.Sprintf("local: %v", err)) // a route and routers() disagree: a programming error
	}
	return h
}
