package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"surveyservice/shared/api"
)

// TestRequestsOutliveTheirClient: make run serves a request as Lambda
// does, to its end when its client leaves (asOnLambda). net/http cancels
// the request's context when the connection closes; a submission whose
// client gave up mid-way then committed without its fence, and the
// client's retry answered 410 for a response that stayed recorded (an
// outside test, hostile9). Each function the local API serves is checked:
// its handler sees a request whose client has left (a context cancelled
// before it is served) not cancelled, its values kept.
func TestRequestsOutliveTheirClient(t *testing.T) {
	type key struct{}
	cases := []struct {
		name, fn, path string
	}{
		{"a responder's route", "RespondersFunction", "/api/public/surveys/s/probe/"},
		{"an owner's route", "FoldersFunction", "/api/folders/probe/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen error = context.Canceled
			var value any
			rt := api.NewRouter(nil)
			rt.Handle(api.Route{Method: http.MethodPost, Path: tc.path, Name: "probe", Public: true},
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					seen, value = r.Context().Err(), r.Context().Value(key{})
					w.WriteHeader(http.StatusNoContent)
				}))
			fns := map[string]*api.Router{}
			for _, r := range gatewayRoutes.Routes() {
				fns[r.Target] = api.NewRouter(nil)
			}
			fns[tc.fn] = rt
			h := serve(fns)
			ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "kept"))
			cancel() // the client has left
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, tc.path, nil).WithContext(ctx))
			if rec.Code != http.StatusNoContent {
				t.Fatalf("%s %s: %d, want the probe's 204 (routed to %s)", http.MethodPost, tc.path, rec.Code, tc.fn)
			}
			if seen != nil || value != "kept" {
				t.Errorf("the handler saw its context %v with value %v; want it not cancelled, its values kept", seen, value)
			}
		})
	}
}
