package account_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"surveyservice/functions/account"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// TestWhoAmIKeyInBody: Porsline's WordPress plugins sign in with
// wp_remote_post('.../api/whoami/', ['body' => ['authorization' =>
// 'API-key '.$key]]) and no Authorization header (view/auth-api-ajax.php
// lines 9-16 of common-repository/porsline), then compare the body with
// '{"authenticated": true}' byte for byte. Before the fix every one of these
// was a 401.
func TestWhoAmIKeyInBody(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanFree)
	_, revoked := testenv.NewAccount(t, survey.PlanFree)
	if err := st.RevokeKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st)}))
	form := func(v string) string { return url.Values{"authorization": {v}}.Encode() }
	const (
		formType = "application/x-www-form-urlencoded"
		yes      = `{"authenticated": true}`
		no       = `{"authenticated": false}`
	)
	jsonBody := func(v string) string { b, _ := json.Marshal(map[string]string{"authorization": v}); return string(b) }
	for _, tt := range []struct {
		name, contentType, body, want string
	}{
		{"form, the plugins' API-key", formType, form("API-key " + key), yes},
		{"form, API-Key", formType, form("API-Key " + key), yes},
		{"form with a charset", formType + "; charset=UTF-8", form("api-key " + key), yes},
		{"JSON", "application/json", jsonBody("API-Key " + key), yes},
		{"JSON without a content type", "", jsonBody("API-KEY " + key), yes},
		{"form, unknown key", formType, form("API-key " + survey.NewKey()), no},
		{"form, revoked key", formType, form("API-key " + revoked), no},
		{"form, no scheme", formType, form(key), no},
		{"form, another scheme", formType, form("Bearer " + key), no},
		{"empty form", formType, "", no},
		{"no body", "", "", no},
		{"JSON, a number", "application/json", `{"authorization": 12}`, no},
		{"not JSON", "application/json", `{"authorization"`, no},
		{"plain text", "text/plain", "API-Key " + key, no},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/whoami/", strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 || rec.Body.String() != tt.want {
				t.Fatalf("%d %q, want 200 %q", rec.Code, rec.Body, tt.want)
			}
		})
	}
	t.Run("a header still answers as section 1", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/api/whoami/", strings.NewReader(form("API-key "+key)))
		req.Header.Set("Content-Type", formType)
		req.Header.Set("Authorization", "API-Key "+survey.NewKey())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 401 {
			t.Fatalf("%d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("GET keeps its header", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/whoami/", nil))
		if rec.Code != 401 {
			t.Fatalf("%d %s, want 401", rec.Code, rec.Body)
		}
	})
	t.Run("over 1 MiB", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/api/whoami/", strings.NewReader(form(strings.Repeat("k", api.MaxBody))))
		req.Header.Set("Content-Type", formType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 413 {
			t.Fatalf("%d %s, want 413", rec.Code, rec.Body)
		}
	})
}

// TestRestAuthUser: the plugins read GET /rest-auth/user/ with the key's
// header and take a "detail" key as a failed sign-in (view/settings.php
// lines 16-24 of common-repository/porsline); dj-rest-auth's user shape.
func TestRestAuthUser(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st)}))
	for _, path := range []string{"/rest-auth/user/", "/rest-auth/user"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "API-Key "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 200 || err != nil {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		want := map[string]any{"pk": float64(acct.ID), "email": acct.Email, "first_name": acct.FirstName, "last_name": acct.LastName}
		if len(got) != len(want) {
			t.Errorf("GET %s: %v, want %v", path, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("GET %s: %s = %v, want %v", path, k, got[k], v)
			}
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/rest-auth/user/", nil)
	req.Header.Set("Authorization", "API-Key "+survey.NewKey())
	h.ServeHTTP(rec, req)
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 401 || err != nil || got["detail"] == nil {
		t.Fatalf("unknown key: %d %s, want 401 with detail", rec.Code, rec.Body)
	}
}
