package responders

import (
	"net/http"
	"time"

	"surveyservice/shared/ratelimit"
)

// Limited is the responders function as it is served, on Lambda
// (lambda/main.go) and by `make run` (infra/local): rt within the limits
// per client and per survey (shared/ratelimit) at rates, counted across
// containers in counters' table.
func Limited(rt http.Handler, counters ratelimit.Counters, rates ratelimit.Rates, now func() time.Time) http.Handler {
	return ratelimit.NewPolicyAt("responders", rates, counters, ratelimit.RespondersSurvey, now).Wrap(rt)
}
