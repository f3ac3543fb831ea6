// Package account answers who the caller is.
package account

import (
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth *api.Authenticator
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	whoami := handleWhoAmI()
	rt.Handle(api.Route{Method: "GET", Path: "/api/whoami/", Name: "Who Am I"}, whoami)
	rt.Handle(api.Route{Method: "POST", Path: "/api/whoami/", Name: "Who Am I"}, whoami)
	return rt
}

// WhoAmI is the answer of /api/whoami/.
type WhoAmI struct {
	Authenticated bool        `json:"authenticated"`
	Email         string      `json:"email"`
	FirstName     string      `json:"first_name"`
	LastName      string      `json:"last_name"`
	Plan          survey.Plan `json:"plan"`
}

// handleWhoAmI answers the authenticated account; POST answers as GET and
// does not read its body.
func handleWhoAmI() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		a, ok := api.AccountFrom(r.Context())
		if !ok {
			return survey.Errorf(survey.EINTERNAL, "whoami without an account")
		}
		api.Respond(w, r, http.StatusOK, WhoAmI{Authenticated: true, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName, Plan: a.Plan})
		return nil
	})
}
