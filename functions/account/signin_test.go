package account_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/account"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/ratelimit"
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
		{"form, unknown key", formType, form("API-key " + survey.NewKey()), no},
		{"form, revoked key", formType, form("API-key " + revoked), no},
		{"form, no scheme", formType, form(key), no},
		{"form, another scheme", formType, form("Bearer " + key), no},
		{"empty form", formType, "", no},
		{"no body", "", "", no},
		{"JSON, a number", "application/json", `{"authorization": 12}`, no},
		{"not JSON", "application/json", `{"authorization"`, no},
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
	// Section 3's 415 rule (kept by section 21 amended): form or JSON
	// bodies only, and a body needs its Content-Type.
	for _, tt := range []struct{ name, contentType, body, want string }{
		{"plain text", "text/plain", "API-Key " + key, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{"JSON without a content type", "", jsonBody("API-KEY " + key), `{"detail":"Unsupported media type \"\" in request."}`},
		{"form without a content type", "", form("API-key " + key), `{"detail":"Unsupported media type \"\" in request."}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/whoami/", strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 415 || rec.Body.String() != tt.want {
				t.Fatalf("%d %q, want 415 %q", rec.Code, rec.Body, tt.want)
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

// TestWhoAmIKeyGuesses (contract section 21 amended): failed keys in
// POST /api/whoami/'s body are counted per client, as section 18's guard
// counts failed codes: 10 a minute, then 429 with Retry-After for every
// attempt from that client, a right key included; another client and the
// header's sign-in are untouched.
func TestWhoAmIKeyGuesses(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanFree)
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st), Store: st}))
	// A client of its own: the tests share the table.
	ip := fmt.Sprintf("198.51.100.%d", time.Now().UnixNano()%250+1)
	post := func(from, value string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/whoami/", strings.NewReader(url.Values{"authorization": {value}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = from + ":1234"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := range int(ratelimit.KeyGuessRate.Limit) {
		if rec := post(ip, "API-Key "+survey.NewKey()); rec.Code != 200 || rec.Body.String() != `{"authenticated": false}` {
			t.Fatalf("guess %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	for _, value := range []string{"API-Key " + survey.NewKey(), "API-Key " + key} {
		if rec := post(ip, value); rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !strings.HasPrefix(rec.Body.String(), `{"detail":"Request was throttled.`) {
			t.Fatalf("past the limit: %d %s", rec.Code, rec.Body)
		}
	}
	if rec := post("203.0.113.9", "API-Key "+key); rec.Code != 200 || rec.Body.String() != `{"authenticated": true}` {
		t.Errorf("another client: %d %s", rec.Code, rec.Body)
	}
}

// TestRestAuthUserPKsDistinct (contract section 19 amended): account ids
// and sub_user ids are counted apart, so account 25 and member 25 both
// exist; /rest-auth/user/ answered pk 25 for both. An owner's pk is the
// account id, a member's account.MemberPK(sub_user), above every account
// id (before, the member answered its bare sub_user).
func TestRestAuthUserPKsDistinct(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	owner, ownerKey := testenv.NewAccount(t, survey.PlanEnterprise)
	m, memberKey, err := st.CreateMember(t.Context(), owner.ID, survey.Member{Email: fmt.Sprintf("m-%d@example.com", owner.ID), FirstName: "M"})
	if err != nil {
		t.Fatal(err)
	}
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st), Store: st}))
	pk := func(key string) int64 {
		req := httptest.NewRequest("GET", "/rest-auth/user/", nil)
		req.Header.Set("Authorization", "API-Key "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var u account.User
		if err := json.Unmarshal(rec.Body.Bytes(), &u); rec.Code != 200 || err != nil {
			t.Fatalf("rest-auth/user: %d %s", rec.Code, rec.Body)
		}
		return u.PK
	}
	ownerPK, memberPK := pk(ownerKey), pk(memberKey)
	if ownerPK != owner.ID || memberPK != account.MemberPK(m.SubUser) || memberPK <= account.MemberPKBase {
		t.Errorf("owner pk %d (account %d), member pk %d (sub_user %d)", ownerPK, owner.ID, memberPK, m.SubUser)
	}
}
