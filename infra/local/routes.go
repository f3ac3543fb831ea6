package main

import (
	"time"

	"surveyservice/functions/account"
	"surveyservice/functions/elements"
	"surveyservice/functions/folders"
	"surveyservice/functions/responders"
	"surveyservice/functions/responses"
	"surveyservice/functions/schema"
	"surveyservice/functions/settings"
	"surveyservice/functions/surveys"
	"surveyservice/functions/templates"
	"surveyservice/functions/variables"
	"surveyservice/shared/api"
	"surveyservice/shared/exports"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
)

// config is what the local server reads from the environment, the sealer
// of personalised links and the exports bucket (nil where no route is
// served, as in the tests that only list routes).
type config struct {
	templates templates.Config
	variables variables.Config
	sealer    *links.Sealer
	exports   *exports.Bucket
}

// routers returns every resource group, each as its Lambda function serves
// it; template.yaml must route exactly these paths to those functions (a
// test holds the two together).
func routers(st *store.Store, cfg config) map[string]*api.Router {
	auth := api.NewAuthenticator(st)
	return map[string]*api.Router{
		"TemplatesFunction":  templates.New(st, cfg.templates),
		"AccountFunction":    account.New(auth),
		"FoldersFunction":    folders.New(auth, st, time.Now),
		"SurveysFunction":    surveys.New(auth, st, time.Now),
		"ElementsFunction":   elements.New(auth, st),
		"SettingsFunction":   settings.New(auth, st, time.Now),
		"RespondersFunction": responders.New(st, cfg.sealer),
		"VariablesFunction":  variables.New(auth, st, cfg.sealer, cfg.variables),
		"ResponsesFunction":  responses.New(auth, st, cfg.sealer, cfg.exports, time.Now),
		"SchemaFunction":     schema.New(),
	}
}
