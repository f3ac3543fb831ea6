package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// serveWithin serves one GET through h with a request deadline of
// within from now (none when within is 0).
func serveWithin(h http.Handler, within time.Duration) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "/api/things/1/", nil)
	if within > 0 {
		ctx, cancel := context.WithTimeout(req.Context(), within)
		defer cancel()
		req = req.WithContext(ctx)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestDeadline: a handler still at work when the margin before the
// function's deadline comes (one that waits on its context, as an SDK call
// does, and one stuck on something else), or one that answered a 5xx
// because its time ran out, is answered with the API's 503: JSON detail
// and Retry-After. The handler's context ends at the shortened deadline.
// A handler that answers in time is answered as it wrote it; without a
// deadline nothing changes.
func TestDeadline(t *testing.T) {
	t.Parallel()
	const margin = 200 * time.Millisecond
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	var seen time.Time
	cases := []struct {
		name    string
		within  time.Duration
		handler http.HandlerFunc
		want    int
	}{
		{"WaitsOnItsContext", time.Second, func(w http.ResponseWriter, r *http.Request) {
			seen, _ = r.Context().Deadline()
			<-r.Context().Done()
			api.Respond(w, r, http.StatusOK, map[string]string{"late": "yes"})
		}, http.StatusServiceUnavailable},
		{"Stuck", 400 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			<-stuck
		}, http.StatusServiceUnavailable},
		{"FailedForLackOfTime", 400 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			api.Error(w, r, r.Context().Err())
		}, http.StatusServiceUnavailable},
		{"AlreadyPast", margin / 2, func(w http.ResponseWriter, r *http.Request) {
			t.Error("a handler ran with no time left")
		}, http.StatusServiceUnavailable},
		{"InTime", 5 * time.Second, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Thing", "1")
			api.Respond(w, r, http.StatusCreated, map[string]string{"id": "1"})
		}, http.StatusCreated},
		{"NoDeadline", 0, func(w http.ResponseWriter, r *http.Request) {
			if _, ok := r.Context().Deadline(); ok {
				t.Error("a deadline appeared")
			}
			api.Respond(w, r, http.StatusOK, map[string]string{"id": "1"})
		}, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			rec := serveWithin(api.Deadline(margin)(c.handler), c.within)
			if rec.Code != c.want {
				t.Fatalf("status %d %s, want %d", rec.Code, rec.Body, c.want)
			}
			if c.want == http.StatusServiceUnavailable {
				var body map[string]string
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["detail"] != api.MsgTooLate || rec.Header().Get("Retry-After") == "" {
					t.Fatalf("503 answer %q (Retry-After %q)", rec.Body, rec.Header().Get("Retry-After"))
				}
			}
			if c.name == "InTime" && (rec.Header().Get("X-Thing") != "1" || !strings.Contains(rec.Body.String(), `"id"`)) {
				t.Fatalf("the answer was changed: %v %s", rec.Header(), rec.Body)
			}
			if c.name == "WaitsOnItsContext" && (seen.IsZero() || !seen.Before(start.Add(c.within-margin/2))) {
				t.Fatalf("the handler's deadline %v is not margin before the request's", seen)
			}
		})
	}
}

// TestDeadlineInEveryRouter: Mount puts the margin in front of every
// route, behind Recover (a panic is still the generic 500).
func TestDeadlineInEveryRouter(t *testing.T) {
	t.Parallel()
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/things/{id}/", Name: "Thing Detail", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.PathValue("id") == "2" {
				panic("boom")
			}
			<-r.Context().Done()
			api.Error(w, r, survey.Errorf(survey.EINTERNAL, "too slow"))
		}))
	h := api.Mount(rt)
	rec := serveWithin(h, api.DeadlineMargin+300*time.Millisecond)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("a slow route = %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	req := httptest.NewRequest("GET", "/api/things/2/", nil)
	ctx, cancel := context.WithTimeout(req.Context(), 5*time.Second)
	defer cancel()
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("a panic = %d %s", rec.Code, rec.Body)
	}
}
