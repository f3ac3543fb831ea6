package ratelimit

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
)

// Policy is one public function's limits: per client, and per survey for
// the requests that name one. The table's figures and their reasons are
// in docs/scale.md ("Limits per client and per survey") and template.yaml, next
// to the stage throttles.
type Policy struct {
	Client, Survey *Limiter
	// SurveyOf is the survey key of a request's path, or "" when it
	// names none; exempt paths are served without a limit (static assets).
	SurveyOf func(path string) (key string, exempt bool)
}

// The limits. Per client (IPv4 address, IPv6 /64), each function, a
// minute: 600 requests. A responder makes 2-4 requests a response on
// each of the two functions (page, challenge, session, submission), so an
// address behind which 150 people respond in the same minute (an office,
// a carrier's NAT) still passes, and one client's script is held to 10 a
// second on average. Per survey, each function, a second: 3,000 requests,
// so a viral survey's 1,000 submissions a second, with their sessions and
// challenges (or 2,000 page views and 1,000 plain-form posts), pass,
// while one survey alone cannot take more than 3,000 of the stage's 8,000.
var (
	ClientRate = Rate{Limit: 600, Window: time.Minute, Shards: 1, Spread: 64, MaxStep: 16}
	SurveyRate = Rate{Limit: 3000, Window: time.Second, Shards: 8, Spread: 256, MaxStep: 32}
)

// Rates are the limits a function is served at: the service's (Service),
// or none (Off), as `make run` may choose (RatesFromEnv).
type Rates struct {
	Client, Survey Rate
	Off            bool
}

// Service are the service's rates, the Lambda functions' always.
var Service = Rates{Client: ClientRate, Survey: SurveyRate}

// RatesFromEnv reads `make run`'s RATE_LIMITS: empty for the service's
// rates, "off" for none, or a number: that many requests a minute for a
// client (the survey's rate stays the service's).
func RatesFromEnv(v string) (Rates, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "":
		return Service, nil
	case "off":
		return Rates{Off: true}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return Rates{}, fmt.Errorf("RATE_LIMITS=%q: want off, or requests a minute for a client (at least 1)", v)
	}
	r := Service
	r.Client.Limit = n
	return r, nil
}

// NewPolicy is a function's policy at the service's rates: scope names the
// function ("responders", "pages").
func NewPolicy(scope string, counters Counters, surveyOf func(string) (string, bool), now func() time.Time) Policy {
	return NewPolicyAt(scope, Service, counters, surveyOf, now)
}

// NewPolicyAt is a function's policy at rates; at Off, one that serves
// every request.
func NewPolicyAt(scope string, rates Rates, counters Counters, surveyOf func(string) (string, bool), now func() time.Time) Policy {
	if rates.Off {
		return Policy{}
	}
	return Policy{
		Client:   New(scope+"-c", rates.Client, counters, now),
		Survey:   New(scope+"-s", rates.Survey, counters, now),
		SurveyOf: surveyOf,
	}
}

var _ Counters = (*store.Store)(nil)

// Wrap serves next within the policy's limits: 429 in the contract's shape
// (DRF's throttled detail) with Retry-After past one. A function's router
// runs Check as its gate instead (api.Router.Guard), so that its 429s are
// in its request log.
func (p Policy) Wrap(next http.Handler) http.Handler {
	if p.Client == nil && p.Survey == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := p.Check(r); err != nil {
			w.Header().Set("X-Content-Type-Options", "nosniff")
			api.Error(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Check counts the request within the policy's limits: nil to serve it,
// or the 429 (Throttled). Exempt paths and preflights are not counted.
func (p Policy) Check(r *http.Request) error {
	if p.Client == nil && p.Survey == nil {
		return nil
	}
	key, exempt := "", false
	if p.SurveyOf != nil {
		key, exempt = p.SurveyOf(r.URL.Path)
	}
	if exempt || r.Method == http.MethodOptions {
		return nil
	}
	var err error
	if p.Client != nil {
		err = p.Client.Allow(r.Context(), ClientKey(api.ClientIP(r)))
	}
	if err == nil && key != "" && p.Survey != nil {
		err = p.Survey.Allow(r.Context(), SurveyKey(key))
	}
	if err != nil {
		api.Logger(r.Context()).InfoContext(r.Context(), "throttled", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	return err
}

// RespondersSurvey is the responders function's survey of a path:
// /api/public/surveys/{url_slug}/...
func RespondersSurvey(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/api/public/surveys/")
	if !ok {
		return "", false
	}
	slug, _, _ := strings.Cut(rest, "/")
	return slug, false
}

// PagesSurvey is the pages function's survey of a path: /s/{url_slug}/...
// a survey, /r/{report_code}/ its report (a key of its own); assets are
// exempt.
func PagesSurvey(path string) (string, bool) {
	switch {
	case strings.HasPrefix(path, "/assets/"):
		return "", true
	case strings.HasPrefix(path, "/s/"):
		slug, _, _ := strings.Cut(path[len("/s/"):], "/")
		return slug, false
	case strings.HasPrefix(path, "/r/"):
		code, _, _ := strings.Cut(path[len("/r/"):], "/")
		if code == "" {
			return "", false
		}
		return "report-" + code, false
	}
	return "", false
}
