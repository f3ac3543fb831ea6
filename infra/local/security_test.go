package main

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
)

// TestLogsHoldNoSecrets: the access log carries the request id, route,
// status and duration, and never a key, a body, a query string, a code or
// a link token, whatever the request (including one that fails).
func TestLogsHoldNoSecrets(t *testing.T) {
	fx := newFaultFixture(t)
	h := fx.mk()
	var buf bytes.Buffer
	defer func(old *slog.Logger) { slog.SetDefault(old) }(slog.Default())
	api.JSONLogging(&buf)
	secretBody := `{"code":"SECRET-CODE-123","name":"SECRET-NAME"}`
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/api/whoami/", ""},
		{"POST", "/api/folders/", secretBody},
		{"POST", "/api/public/surveys/{slug}/authenticate/", secretBody},
		{"GET", "/api/public/surveys/{slug}/variables/?qs={token}", ""},
		{"POST", "/api/public/surveys/{slug}/sessions/", `{"code":"SECRET-CODE-123","qs":"{token}"}`},
		{"POST", "/api/public/surveys/{slug}/responses/", `{"session":"{session}","answers":{"{question}":"SECRET-NAME"}}`},
		{"POST", "/api/folders/", `{not json SECRET-NAME`},
		{"GET", "/api/nothing/?SECRET-QUERY=1", ""},
	} {
		fx.serve(h, rt.method, rt.path, rt.body)
	}
	// A request with a bad key, too.
	req := httptest.NewRequest("GET", "/api/whoami/", nil)
	req.Header.Set("Authorization", "API-Key svk_"+strings.Repeat("S", 43))
	h.ServeHTTP(httptest.NewRecorder(), req)

	logs := buf.String()
	if !strings.Contains(logs, `"route":"/api/folders/"`) || !strings.Contains(logs, `"request_id"`) || !strings.Contains(logs, `"status":201`) {
		t.Fatalf("the access log lacks route, request id or status:\n%s", logs)
	}
	for _, secret := range []string{fx.key, fx.key[4:], "svk_SSSS", "SECRET-CODE-123", "SECRET-NAME", "SECRET-QUERY", fx.ids["token"], fx.ids["session"]} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
	_ = testenv.Store
}

// TestCORSForTheCatalogOnly: any web origin may read the public catalog;
// no other route says so (an owner's data is not for other sites' scripts).
func TestCORSForTheCatalogOnly(t *testing.T) {
	fx := newFaultFixture(t)
	h := fx.mk()
	for _, rt := range []struct {
		method, path string
		cors         bool
	}{
		{"GET", "/api/templates/", true},
		{"OPTIONS", "/api/templates/x/", true},
		{"GET", "/api/whoami/", false},
		{"GET", "/api/folders/", false},
		{"GET", "/api/v2/surveys/{survey}/", false},
		{"OPTIONS", "/api/folders/", false},
		{"POST", "/api/public/surveys/{slug}/authenticate/", false},
		{"GET", "/api/public/surveys/{slug}/", false},
		{"GET", "/api/nothing/", false},
	} {
		req := httptest.NewRequest(rt.method, fx.fill(rt.path), nil)
		req.Header.Set("Authorization", "API-Key "+fx.key)
		req.Header.Set("Origin", "https://elsewhere.example")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Access-Control-Allow-Origin") != ""; got != rt.cors {
			t.Errorf("%s %s: CORS %v, want %v", rt.method, rt.path, got, rt.cors)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no nosniff", rt.method, rt.path)
		}
	}
}
