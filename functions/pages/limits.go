package pages

import (
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/ratelimit"
)

// Limited is the pages function as it is served, on Lambda
// (lambda/main.go) and by `make run` (infra/local): rt within the limits
// per client and per survey (shared/ratelimit) at rates, counted across
// containers in counters' table; assets are not limited. The limits are
// the router's gate, so that a 429 is in the request log as every answer
// and a page's 429 is a page (refusalPage).
func Limited(rt *api.Router, counters ratelimit.Counters, rates ratelimit.Rates, now func() time.Time) *api.Router {
	rt.Guard(ratelimit.NewPolicyAt("pages", rates, counters, ratelimit.PagesSurvey, now).Check)
	return rt
}
