// Package api is the HTTP edge every function shares: routing with DRF's 404,
// 405 and OPTIONS behaviour, JSON bodies in and out, content negotiation with
// the browsable HTML rendering, authentication, logging and the one table
// that turns domain error codes into statuses and DRF-shaped bodies.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// statuses is the one code-to-status table of the service.
var statuses = map[string]int{
	survey.EINVALID:        http.StatusBadRequest,
	survey.EUNAUTHORIZED:   http.StatusUnauthorized,
	survey.EFORBIDDEN:      http.StatusForbidden,
	survey.ENOTFOUND:       http.StatusNotFound,
	survey.EMETHOD:         http.StatusMethodNotAllowed,
	survey.ENOTACCEPT:      http.StatusNotAcceptable,
	survey.ECONFLICT:       http.StatusConflict,
	survey.EGONE:           http.StatusGone,
	survey.EUNPROCESSABLE:  http.StatusUnprocessableEntity,
	survey.ETOOLARGE:       http.StatusRequestEntityTooLarge,
	survey.EMEDIATYPE:      http.StatusUnsupportedMediaType,
	survey.ETOOMANY:        http.StatusTooManyRequests,
	survey.EUNAVAILABLE:    http.StatusServiceUnavailable,
	survey.EINTERNAL:       http.StatusInternalServerError,
	survey.ENOTIMPLEMENTED: http.StatusNotImplemented,
}

// StatusClientClosedRequest is nginx's 499: the access log's status of a
// request its client abandoned before the answer (never a 500).
const StatusClientClosedRequest = 499

// RetryAfterSeconds is what a 503 tells the client to wait.
const RetryAfterSeconds = "1"

// Error answers err in the contract's shape. Domain errors (*survey.Error)
// show their detail or field errors; throttles and outages of AWS become 503;
// anything else is logged with its cause and answered with the generic 500
// body, so no internal message ever reaches a client.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	e, status := ErrorHead(w, r, err)
	var body any
	switch {
	case status == http.StatusInternalServerError:
		body = map[string]string{"detail": "A server error occurred."}
	case len(e.Fields) > 0:
		body = e.Fields
	default:
		body = map[string]string{"detail": e.Detail}
	}
	Respond(w, r, status, body)
}

// ErrorHead does what Error does before the body: it finds the domain
// error and status err answers with (503 for an outage of AWS, 500 for
// anything unexpected), logs a failure of the service with its cause, and
// sets WWW-Authenticate or Retry-After. Handlers that answer errors in
// another form than JSON (the hosted pages) write their body after it.
func ErrorHead(w http.ResponseWriter, r *http.Request, err error) (*survey.Error, int) {
	var e *survey.Error
	if !errors.As(err, &e) {
		if awsenv.IsUnavailable(err) {
			e = survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")
		} else {
			e = &survey.Error{Code: survey.EINTERNAL}
		}
	}
	status, ok := statuses[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 && errors.Is(r.Context().Err(), context.Canceled) {
		// The client closed the request (its store calls failed with the
		// canceled context): not a failure of the service. The log names it
		// with nginx's 499; nobody reads the answer.
		logger(r.Context()).InfoContext(r.Context(), "client closed the request", slog.String("error", err.Error()))
		return &survey.Error{Code: e.Code, Detail: "Client closed the request."}, StatusClientClosedRequest
	}
	if status >= 500 {
		logger(r.Context()).ErrorContext(r.Context(), "request failed", slog.String("error", err.Error()), slog.Int("status", status))
	}
	switch {
	case status == http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `API-Key`)
	case e.RetryAfter > 0:
		w.Header().Set("Retry-After", retryAfter(e.RetryAfter))
	case status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", RetryAfterSeconds)
	}
	return e, status
}

// retryAfter renders a wait as Retry-After's whole seconds, rounded up
// (a client told 0 would come straight back).
func retryAfter(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// RespondErrorList answers 400 with a list of per-item errors, aligned with
// the items of an array body ({} for the valid ones), as DRF's list
// serializers do.
func RespondErrorList(w http.ResponseWriter, r *http.Request, items []map[string]any) {
	Respond(w, r, http.StatusBadRequest, items)
}

// Status is the HTTP status of a domain error code (500 for an unknown
// one), for handlers that answer errors in another form than JSON (the
// hosted pages).
func Status(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
