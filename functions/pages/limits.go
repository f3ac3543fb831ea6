package pages

import (
	"net/http"
	"time"

	"surveyservice/shared/ratelimit"
)

// Limited is the pages function as it is served, on Lambda
// (lambda/main.go) and by `make run` (infra/local): rt within the limits
// per client and per survey (shared/ratelimit) at rates, counted across
// containers in counters' table; assets are not limited.
func Limited(rt http.Handler, counters ratelimit.Counters, rates ratelimit.Rates, now func() time.Time) http.Handler {
	return ratelimit.NewPolicyAt("pages", rates, counters, ratelimit.PagesSurvey, now).Wrap(rt)
}
