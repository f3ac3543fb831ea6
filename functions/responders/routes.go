// Package responders is what a survey's responders reach without an API
// key: the authentication code check (and, later, personalised links).
package responders

import (
	"context"
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	SurveyBySlug(ctx context.Context, slug string) (store.PublicSurvey, error)
	CheckCode(ctx context.Context, sid int64, code string, unique bool) (bool, error)
}

var _ Store = (*store.Store)(nil)

// New returns the group's routes.
func New(st Store) *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "POST", Path: "/api/public/surveys/{url_slug}/authenticate/", Name: "Survey Authenticate", Public: true}, handleAuthenticate(st))
	return rt
}

// errRefused is the one answer to every refused code: it never tells an
// unknown code from a spent one, or from a survey without code_auth.
var errRefused = survey.Errorf(survey.EFORBIDDEN, "Authentication failed.")

// handleAuthenticate admits a responder with a code: 200 when the survey's
// code_auth is on and the code exists (and, with code_auth_is_unique, was
// not used yet: the first of racing requests wins); 403 otherwise.
func handleAuthenticate(st Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Required: true, NoTrim: true})
		if err := form.Err(); err != nil {
			api.Error(w, r, err)
			return
		}
		sv, err := st.SurveyBySlug(r.Context(), r.PathValue("url_slug"))
		if err != nil {
			api.Error(w, r, err)
			return
		}
		code = strings.TrimSpace(code)
		if !sv.Settings.CodeAuth || code == "" || len(code) > 400 {
			api.Error(w, r, errRefused)
			return
		}
		ok, err := st.CheckCode(r.Context(), sv.Survey.ID, code, sv.Settings.CodeAuthIsUnique)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		if !ok {
			api.Error(w, r, errRefused)
			return
		}
		api.Respond(w, r, http.StatusOK, map[string]bool{"authenticated": true})
	})
}
