// Package elements is a survey's questions, question groups, welcome pages
// and appreciation pages: list, create with placement, read, update (fields
// and place) and delete.
package elements

import (
	"context"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	SurveyCollection(ctx context.Context, aid, sid int64) (store.SurveyCollection, error)
	CreateElement(ctx context.Context, aid, sid int64, e survey.Element, p survey.Placement) (store.ElementChange, error)
	Element(ctx context.Context, aid, sid, eid int64) (store.ElementChange, error)
	UpdateElement(ctx context.Context, aid, sid, eid int64, edit func(*survey.Element) error, p survey.Placement) (store.ElementChange, error)
	DeleteElement(ctx context.Context, aid, sid, eid int64) error
	Survey(ctx context.Context, aid, sid int64) (survey.Survey, error)
	NewIDs(ctx context.Context, kind string, n int) ([]int64, error)
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth  *api.Authenticator
	Store Store
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store}
	list := api.Route{Path: "/api/v2/surveys/{survey_id}/questions/", Name: "Question List"}
	detail := api.Route{Path: "/api/v2/surveys/{survey_id}/questions/{question_id}/", Name: "Question Detail"}
	rt.Handle(list.With("GET"), h.list())
	rt.Handle(list.With("POST"), h.create())
	rt.Handle(detail.With("GET"), h.get())
	rt.Handle(detail.With("PATCH"), h.update())
	rt.Handle(detail.With("DELETE"), h.delete())
	return rt
}
