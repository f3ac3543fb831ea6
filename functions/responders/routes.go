// Package responders is what a survey's responders reach without an API
// key (contract section 11): the survey as they see it, sessions, the
// submission of responses, the authentication code check and the values
// of personalised links.
package responders

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/mobile"
	"surveyservice/shared/responding"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
)

// Store is what the group reads and writes: responding's, and the views
// the survey's page counts; *store.Store implements it.
type Store interface {
	responding.Store
	responding.VerifyStore
	CountView(ctx context.Context, aid, fid, sid int64) error
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	Store  Store
	Sealer responding.Sealer
	// Now is the clock of the survey's state and of the time to respond
	// (the store's own clock in tests, so that the two agree).
	Now func() time.Time
	// Sender sends one-time codes and Budgets and Limits bound them
	// (contract section 18, shared/sending). Without a Sender (nil) the
	// verification routes answer 404.
	Sender  sending.Sender
	Budgets *sending.Budgets
	Limits  sending.Limits
	// Uploads is the uploads bucket: the uploads route and answers to
	// file-upload questions (contract section 16). Without it (nil) the
	// route answers 404 and upload answers are refused.
	Uploads Uploads
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	st, svc, files := d.Store, responding.Service{Store: d.Store, Sealer: d.Sealer, Now: d.Now}, filesOf(d.Uploads)
	rt := api.NewRouter(nil)
	rt.Handle(public("GET", "/api/public/surveys/{url_slug}/", "Public Survey"), handleSurvey(st, d.Now))
	rt.Handle(public("GET", "/api/public/surveys/{url_slug}/challenge/", "Survey Challenge"), handleChallenge(st, d.Sealer, d.Now))
	rt.Handle(public("POST", "/api/public/surveys/{url_slug}/sessions/", "Survey Sessions"), handleSession(svc))
	rt.Handle(public("POST", "/api/public/surveys/{url_slug}/responses/", "Survey Responses"), handleSubmit(svc, files))
	rt.Handle(public("PUT", "/api/public/surveys/{url_slug}/responses/{response_id}/", "Survey Response Edit"), handleEdit(svc, files))
	if d.Uploads != nil {
		rt.Handle(public("POST", "/api/public/surveys/{url_slug}/uploads/", "Survey Uploads"), handleUpload(st, d.Sealer, d.Uploads, d.Now))
	}
	rt.Handle(public("PUT", "/api/public/surveys/{url_slug}/partial/", "Survey Partial"), handlePartial(svc, files))
	rt.Handle(public("POST", "/api/public/surveys/{url_slug}/resume/", "Survey Resume"), handleResume(svc))
	if d.Sender != nil {
		v := responding.Verifier{Store: d.Store, Sealer: d.Sealer, Sender: d.Sender, Budgets: d.Budgets, Limits: d.Limits, Now: d.Now, Mobile: mobile.Admits}
		rt.Handle(public("POST", "/api/public/surveys/{url_slug}/verifications/", "Survey Verifications"), handleSendCode(v))
		rt.Handle(public("POST", "/api/public/surveys/{url_slug}/verifications/confirm/", "Survey Verification Confirm"), handleConfirmCode(v))
	}
	rt.Handle(public("POST", "/api/public/surveys/{url_slug}/authenticate/", "Survey Authenticate"), handleAuthenticate(st, svc))
	rt.Handle(public("GET", "/api/public/surveys/{url_slug}/variables/", "Survey Link Values"), handleValues(st, d.Sealer))
	return rt
}

// public is a route responders reach without an API key.
func public(method, path, name string) api.Route {
	return api.Route{Method: method, Path: path, Name: name, Public: true}
}
