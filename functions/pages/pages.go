// Package pages is the hosted responder's page and the public report
// (contract section 14): server-rendered HTML under a strict
// Content-Security-Policy, with one small same-origin script that pages,
// counts down and submits through the public JSON API (section 11).
package pages

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
)

// Store is what the group reads; *store.Store implements it.
type Store interface {
	SurveyIDBySlug(ctx context.Context, slug string) (int64, error)
	PublicCollection(ctx context.Context, sid int64, consistent bool) (store.SurveyCollection, error)
	CountView(ctx context.Context, aid, fid, sid int64) error
	SurveyIDByReportCode(ctx context.Context, code string) (int64, error)
	Aggregates(ctx context.Context, sid int64) (store.Aggregate, error)
}

var _ Store = (*store.Store)(nil)

// New returns the group's routes; now is the clock of the survey's state.
func New(st Store, now func() time.Time) *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/s/{url_slug}/", Name: "Responder Page", Public: true}, handleSurvey(st, now))
	rt.Handle(api.Route{Method: "GET", Path: "/r/{report_code}/", Name: "Report Page", Public: true}, handleReport(st))
	rt.Handle(api.Route{Method: "GET", Path: "/assets/{name}/", Name: "Page Asset", Public: true}, handleAsset())
	return rt
}
