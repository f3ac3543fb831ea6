package account_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/functions/account"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func serve(t *testing.T, h http.Handler, method, key, contentType, body string) (*httptest.ResponseRecorder, *awsenv.Calls) {
	t.Helper()
	req := httptest.NewRequest(method, "/api/whoami/", strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "API-Key "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return rec, calls
}

func TestWhoAmI(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st)}))
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	tests := []struct {
		name, method, contentType, body string
	}{
		{"GET", "GET", "", ""},
		{"POST answers as GET", "POST", "application/json", `{"ignored": true}`},
		{"POST ignores a body it does not read", "POST", "text/plain", "not json"},
	}
	for i, tt := range tests {
		rec, calls := serve(t, h, tt.method, key, tt.contentType, tt.body)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", tt.name, rec.Code, rec.Body)
		}
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"authenticated": true, "email": acct.Email, "first_name": acct.FirstName, "last_name": acct.LastName, "plan": "pro",
			"user_type": float64(survey.UserTypeOwner), "sub_user": nil}
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", tt.name, k, got[k], v)
			}
		}
		// The key is read on every request (a revocation counts on the
		// next one); its account once a container keeps it.
		if calls.DynamoDB() != 0 {
			t.Errorf("%s: %d DynamoDB calls besides the key's, want 0", tt.name, calls.DynamoDB())
		}
		if i == 0 && calls.Auth() != 2 {
			t.Errorf("first request: %d reads of the key, want 2 (key, account)", calls.Auth())
		}
		if i > 0 && (calls.Auth() < 1 || calls.Auth() > 2) {
			t.Errorf("next request: %d reads of the key, want 1 (the key; its account kept 30 s), 2 past that", calls.Auth())
		}
		if rec.Header().Get("Allow") != "GET, POST, HEAD, OPTIONS" || rec.Header().Get("Cache-Control") != "private, no-cache" {
			t.Errorf("%s: headers %v", tt.name, rec.Header())
		}
	}
}

// TestRevokedKeyAtOnce (contract section 2): a key that just worked
// answers 401 on the request after its revocation (the admin command's
// `key revoke`), in the same container; another key of the account still
// works.
func TestRevokedKeyAtOnce(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st)}))
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	other, err := st.CreateKey(context.Background(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{key, other} {
		if rec, _ := serve(t, h, "GET", k, "", ""); rec.Code != 200 {
			t.Fatalf("before: %d %s", rec.Code, rec.Body)
		}
	}
	if err := st.RevokeKey(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if rec, _ := serve(t, h, "GET", key, "", ""); rec.Code != 401 || strings.TrimSpace(rec.Body.String()) != `{"detail":"Invalid API key."}` {
		t.Errorf("the revoked key's next request: %d %s, want 401", rec.Code, rec.Body)
	}
	if rec, _ := serve(t, h, "GET", other, "", ""); rec.Code != 200 {
		t.Errorf("the account's other key: %d %s, want 200", rec.Code, rec.Body)
	}
}

func TestWhoAmIRefusals(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	_, key := testenv.NewAccount(t, survey.PlanFree)
	_, revoked := testenv.NewAccount(t, survey.PlanFree)
	if err := st.RevokeKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	h := testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st)}))
	tests := []struct {
		name, method, header string
		want                 int
		body                 string
	}{
		{"no header", "GET", "", 401, `{"detail":"Authentication credentials were not provided."}`},
		{"basic auth", "GET", "Basic dXNlcjpwYXNz", 401, `{"detail":"Authentication credentials were not provided."}`},
		{"revoked key", "GET", "API-Key " + revoked, 401, `{"detail":"Invalid API key."}`},
		{"unknown key", "GET", "API-Key " + survey.NewKey(), 401, `{"detail":"Invalid API key."}`},
		{"truncated key", "GET", "API-Key " + key[:len(key)-1], 401, `{"detail":"Invalid API key."}`},
		{"8 KB header", "GET", "API-Key " + strings.Repeat("k", 8192), 401, `{"detail":"Invalid API key."}`},
		{"PUT", "PUT", "API-Key " + key, 405, `{"detail":"Method \"PUT\" not allowed."}`},
		{"DELETE unauthenticated is 401 first", "DELETE", "", 401, `{"detail":"Authentication credentials were not provided."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "/api/whoami", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want || strings.TrimSpace(rec.Body.String()) != tt.body {
				t.Fatalf("%d %s, want %d %s", rec.Code, rec.Body, tt.want, tt.body)
			}
			if tt.want == 401 && rec.Header().Get("WWW-Authenticate") != "API-Key" {
				t.Errorf("WWW-Authenticate = %q", rec.Header().Get("WWW-Authenticate"))
			}
		})
	}
}
