// Package schema serves the OpenAPI 3.1 document of the API.
package schema

import (
	"encoding/json"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/openapi"
)

// New returns the group's route: GET /api/schema/, public, readable from
// any web origin (API explorers run in browsers).
func New() *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/schema/", Name: "Schema", Public: true, CORS: true}, handleSchema())
	return rt
}

func handleSchema() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		doc, err := openapi.JSON()
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "public, max-age=300")
		api.Respond(w, r, http.StatusOK, json.RawMessage(doc))
		return nil
	})
}
