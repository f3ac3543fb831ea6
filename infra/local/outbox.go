package main

import (
	"net/http"
	"strings"

	"surveyservice/internal/outbox"
)

// outboxPath is where `make run` serves its local outbox (contract
// section 18): never a route of template.yaml, so never in AWS.
const outboxPath = "/local/outbox/"

// withOutbox serves the outbox at outboxPath (and without its final
// slash), without authentication, and everything else with next.
func withOutbox(o *outbox.Outbox, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == outboxPath || r.URL.Path == strings.TrimSuffix(outboxPath, "/") {
			o.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
