package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"surveyservice/internal/outbox"
	"surveyservice/internal/routing"
	"surveyservice/shared/sending"
)

type sendNothing struct{}

func (sendNothing) Send(context.Context, sending.Message) error { return nil }

// TestLocalOutboxRoute: `make run` serves its outbox at /local/outbox/
// (with or without the final slash) without authentication, and passes
// every other path on; AWS never serves it (no route of template.yaml
// other than $default's 404 takes it).
func TestLocalOutboxRoute(t *testing.T) {
	t.Parallel()
	box := outbox.New(nil)
	_ = box.Wrap(sendNothing{}).Send(context.Background(), sending.Message{Channel: sending.ChannelSMS, To: "+15551234567", Body: "123456"})
	h := withOutbox(box, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for _, path := range []string{"/local/outbox/", "/local/outbox"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %s", path, rec.Code, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/folders/", nil))
	if rec.Code != http.StatusTeapot {
		t.Errorf("another path = %d, want it passed on", rec.Code)
	}
	if m, ok := gatewayRoutes.Select(http.MethodGet, "/local/outbox/", routing.SlashIgnored); ok && m.Route.Path != routing.Default {
		t.Errorf("template.yaml routes /local/outbox/ to %+v", m.Route)
	}
}
