// Package variables is a survey's query-string variables and the
// personalised links that carry values for them, sealed under a KMS data
// key (see shared/links).
package variables

import (
	"context"

	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	SurveyVariables(ctx context.Context, aid, sid int64) (survey.Survey, []survey.Variable, int64, error)
	AddVariables(ctx context.Context, aid, sid int64, check func(sv survey.Survey, existing []survey.Variable) ([]survey.Variable, error)) ([]survey.Variable, error)
	DeleteVariable(ctx context.Context, aid, sid, vid int64) error
	AccountSubdomain(ctx context.Context, aid int64) (*survey.Subdomain, error)
	// RecordWrite commits the activity entry of a write that puts
	// nothing else (minted links).
	RecordWrite(ctx context.Context) error
}

var _ Store = (*store.Store)(nil)

// Sealer seals personalised links; *links.Sealer implements it.
type Sealer interface {
	SealEach(ctx context.Context, surveyID int64, payloads []links.Payload, each func(i int, token []byte)) error
}

var (
	_ Sealer         = (*links.Sealer)(nil)
	_ links.KeyStore = (*store.Store)(nil)
)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth   *api.Authenticator
	Store  Store
	Sealer Sealer
	// SurveyURL is where personalised links point:
	// {SurveyURL}/s/{slug}/?qs=...
	SurveyURL string
	// Hosts is the deployment's addresses: with PUBLIC_SURVEY_DOMAIN set,
	// links of an account with a subdomain point there (section 23).
	Hosts hosts.Config
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store, sealer: d.Sealer, surveyURL: d.SurveyURL, hosts: d.Hosts}
	list := api.Route{Path: "/api/surveys/{survey_id}/variables/", Name: "Variable List"}
	detail := api.Route{Path: "/api/surveys/{survey_id}/variables/{variable_id}/", Name: "Variable Detail"}
	hashes := api.Route{Path: "/api/surveys/{survey_id}/variables/hashes/", Name: "Personalised Links"}
	rt.Handle(list.With("GET"), h.list())
	rt.Handle(list.With("POST"), h.create())
	rt.Handle(detail.With("DELETE"), h.delete())
	rt.Handle(hashes.With("POST"), h.hashes())
	return rt
}

type handlers struct {
	st        Store
	sealer    Sealer
	surveyURL string
	hosts     hosts.Config
}
