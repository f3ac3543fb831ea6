package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// keys is a KeyStore with one valid key, counting its reads.
type keys struct {
	valid   map[string]survey.Account
	reads   atomic.Int64
	failure error
}

func (k *keys) AccountByKeyHash(_ context.Context, hash string) (survey.Account, error) {
	k.reads.Add(1)
	if k.failure != nil {
		return survey.Account{}, k.failure
	}
	a, ok := k.valid[hash]
	if !ok {
		return survey.Account{}, survey.ErrNotFound
	}
	return a, nil
}

// checkedKeys is keys that can read a key alone (api.KeyChecker), as the
// store does.
type checkedKeys struct {
	*keys
	lives atomic.Int64
}

func (k *checkedKeys) KeyLive(_ context.Context, hash string) (int64, error) {
	k.lives.Add(1)
	a, ok := k.valid[hash]
	if !ok {
		return 0, survey.ErrNotFound
	}
	return a.ID, nil
}

var goodKey = survey.NewKey()

func newKeys() *keys {
	return &keys{valid: map[string]survey.Account{survey.HashKey(goodKey): {ID: 7, Email: "o@example.com", Plan: survey.PlanPro}}}
}

// testRouter has a public and a private path, a panicking route and a body
// route, like the groups do.
func testRouter(ks api.KeyStore) *api.Router {
	rt := api.NewRouter(api.NewAuthenticator(ks))
	rt.Handle(api.Route{Method: "GET", Path: "/api/things/{id}/", Name: "Thing Detail", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.Respond(w, r, http.StatusOK, map[string]string{"id": r.PathValue("id"), "html": "<b>x</b>"})
		}))
	rt.Handle(api.Route{Method: "GET", Path: "/api/mine/", Name: "Mine"},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a, _ := api.AccountFrom(r.Context())
			api.Respond(w, r, http.StatusOK, map[string]int64{"account": a.ID})
		}))
	rt.Handle(api.Route{Method: "POST", Path: "/api/mine/", Name: "Mine"},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			obj, err := api.DecodeObject(r, 64)
			if err != nil {
				api.Error(w, r, err)
				return
			}
			api.Respond(w, r, http.StatusCreated, map[string]int{"fields": len(obj)})
		}))
	rt.Handle(api.Route{Method: "GET", Path: "/api/boom/", Name: "Boom", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("secret internal detail") }))
	rt.Handle(api.Route{Method: "GET", Path: "/api/fail/", Name: "Fail", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.Error(w, r, errFromDeep)
		}))
	return rt
}

var errFromDeep = &deepError{}

type deepError struct{}

func (*deepError) Error() string { return "dynamodb: table arn:aws:secret exploded" }

type call struct {
	method, path, body string
	header             map[string]string
}

func do(t *testing.T, h http.Handler, c call) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestRouting(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	auth := map[string]string{"Authorization": "API-Key " + goodKey}
	tests := []struct {
		name       string
		call       call
		wantStatus int
		wantBody   string // exact JSON, or "" to skip
		wantAllow  string
	}{
		{"found", call{method: "GET", path: "/api/things/5/"}, 200, `{"id":"5","html":"<b>x</b>"}`, "GET, HEAD, OPTIONS"},
		{"no final slash", call{method: "GET", path: "/api/things/5"}, 200, `{"id":"5","html":"<b>x</b>"}`, "GET, HEAD, OPTIONS"},
		{"unknown path", call{method: "GET", path: "/api/nothing/"}, 404, `{"detail":"Not found."}`, ""},
		{"unknown deeper path", call{method: "GET", path: "/api/things/5/more/"}, 404, `{"detail":"Not found."}`, ""},
		{"root", call{method: "GET", path: "/"}, 404, `{"detail":"Not found."}`, ""},
		{"method not allowed", call{method: "POST", path: "/api/things/5/"}, 405, `{"detail":"Method \"POST\" not allowed."}`, "GET, HEAD, OPTIONS"},
		{"delete not allowed", call{method: "DELETE", path: "/api/things/5"}, 405, `{"detail":"Method \"DELETE\" not allowed."}`, "GET, HEAD, OPTIONS"},
		{"options", call{method: "OPTIONS", path: "/api/things/5/"}, 200,
			`{"description":"","name":"Thing Detail","parses":["application/json"],"renders":["application/json","text/html"]}`, "GET, HEAD, OPTIONS"},
		{"public ignores bad auth", call{method: "GET", path: "/api/things/5/", header: map[string]string{"Authorization": "API-Key nope"}}, 200, "", ""},
		{"private allow lists methods in DRF order", call{method: "PUT", path: "/api/mine/", header: auth}, 405, `{"detail":"Method \"PUT\" not allowed."}`, "GET, POST, HEAD, OPTIONS"},
		{"private needs auth before 405", call{method: "PUT", path: "/api/mine/"}, 401, `{"detail":"Authentication credentials were not provided."}`, ""},
		{"unknown format", call{method: "GET", path: "/api/things/5/?format=xml"}, 404, `{"detail":"Not found."}`, ""},
		{"badly escaped format", call{method: "GET", path: "/api/things/5/?format=%zz"}, 404, `{"detail":"Not found."}`, ""},
		{"double slash is not a route", call{method: "GET", path: "//api/things/5/"}, 404, `{"detail":"Not found."}`, ""},
		{"dot segments are not a route", call{method: "GET", path: "/api/x/../things/5/"}, 404, `{"detail":"Not found."}`, ""},
		{"trailing double slash", call{method: "GET", path: "/api/things/5//"}, 404, `{"detail":"Not found."}`, ""},
		// An encoded final slash is not the path's final "/": 404 as the
		// doubled one above, never the redirect to the decoded path that
		// http.ServeMux would answer (the contract: no redirect).
		{"encoded final slash", call{method: "GET", path: "/api/things/5%2F"}, 404, `{"detail":"Not found."}`, ""},
		{"encoded final slash, lower case", call{method: "GET", path: "/api/things/5%2f"}, 404, `{"detail":"Not found."}`, ""},
		{"encoded slash then the final one", call{method: "GET", path: "/api/things/5%2F/"}, 404, `{"detail":"Not found."}`, ""},
		{"encoded final slash on a private path", call{method: "GET", path: "/api/mine%2F", header: auth}, 404, `{"detail":"Not found."}`, ""},
		{"encoded final slash on an unknown path", call{method: "GET", path: "/api/nothing%2F"}, 404, `{"detail":"Not found."}`, ""},
		{"format json", call{method: "GET", path: "/api/things/5/?format=json", header: map[string]string{"Accept": "text/html"}}, 200, `{"id":"5","html":"<b>x</b>"}`, ""},
		{"unacceptable", call{method: "GET", path: "/api/things/5/", header: map[string]string{"Accept": "application/xml"}}, 406, `{"detail":"Could not satisfy the request Accept header."}`, ""},
		{"panic is a generic 500", call{method: "GET", path: "/api/boom/"}, 500, `{"detail":"A server error occurred."}`, ""},
		{"internal error is a generic 500", call{method: "GET", path: "/api/fail/"}, 500, `{"detail":"A server error occurred."}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, h, tt.call)
			if got := rec.Code; got != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", got, tt.wantStatus, rec.Body)
			}
			if tt.wantBody != "" {
				assertJSON(t, rec.Body.Bytes(), tt.wantBody)
			}
			if tt.wantAllow != "" {
				if got := rec.Header().Get("Allow"); got != tt.wantAllow {
					t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
				}
			}
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if rec.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("body = %s, want %s", gb, wb)
	}
}

func TestHeadHasGetHeadersAndNoBody(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	get := do(t, h, call{method: "GET", path: "/api/things/9/"})
	head := do(t, h, call{method: "HEAD", path: "/api/things/9/"})
	if head.Code != 200 || head.Body.Len() != 0 {
		t.Fatalf("HEAD = %d with %d body bytes", head.Code, head.Body.Len())
	}
	for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Allow", "Vary"} {
		if got, want := head.Header().Get(k), get.Header().Get(k); got != want || got == "" {
			t.Errorf("HEAD %s = %q, GET has %q", k, got, want)
		}
	}
}

func TestETag(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	first := do(t, h, call{method: "GET", path: "/api/things/1/"})
	etag := first.Header().Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Fatalf("ETag = %q", etag)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		rec := do(t, h, call{method: "GET", path: "/api/things/1/", header: map[string]string{"If-None-Match": inm}})
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: %d with body %q", inm, rec.Code, rec.Body)
		}
	}
	rec := do(t, h, call{method: "GET", path: "/api/things/1/", header: map[string]string{"If-None-Match": `"stale"`}})
	if rec.Code != 200 {
		t.Errorf("stale ETag: %d", rec.Code)
	}
}

func TestBrowsablePageEscapes(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	for _, c := range []call{
		{method: "GET", path: "/api/things/%3Cscript%3Ealert(1)%3C%2Fscript%3E/?format=api"},
		{method: "GET", path: "/api/things/x/", header: map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}},
	} {
		rec := do(t, h, c)
		body := rec.Body.String()
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("%s: %d %q", c.path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if strings.Contains(body, "<script") || strings.Contains(body, "<b>x</b>") {
			t.Errorf("%s: live markup in page:\n%s", c.path, body)
		}
		if !strings.Contains(body, "&lt;b&gt;x&lt;/b&gt;") || !strings.Contains(body, "Thing Detail") {
			t.Errorf("%s: page lacks the escaped body or the view name", c.path)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("CSP = %q", csp)
		}
	}
}

func TestNegotiation(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	tests := []struct{ accept, want string }{
		{"", "application/json"},
		{"*/*", "application/json"},
		{"application/json", "application/json"},
		{"application/json, text/html", "application/json"},
		{"text/html", "text/html; charset=utf-8"},
		{"text/html;q=0.5, application/json;q=0.9", "application/json"},
		{"text/html;q=0.9, application/json;q=0.5", "text/html; charset=utf-8"},
		{"application/xml, */*;q=0.1", "application/json"},
		{"garbage;;;", "application/json"},
	}
	for _, tt := range tests {
		rec := do(t, h, call{method: "GET", path: "/api/things/1/", header: map[string]string{"Accept": tt.accept}})
		if got := rec.Header().Get("Content-Type"); got != tt.want {
			t.Errorf("Accept %q: Content-Type %q, want %q", tt.accept, got, tt.want)
		}
		if got := rec.Header().Get("Vary"); got != "Accept" {
			t.Errorf("Vary = %q", got)
		}
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	ks := newKeys()
	h := testRouter(ks)
	notProvided := `{"detail":"Authentication credentials were not provided."}`
	invalid := `{"detail":"Invalid API key."}`
	tests := []struct {
		name, header string
		want         int
		body         string
	}{
		{"valid", "API-Key " + goodKey, 200, `{"account":7}`},
		{"scheme case-insensitive", "api-key " + goodKey, 200, `{"account":7}`},
		{"scheme upper", "API-KEY " + goodKey, 200, `{"account":7}`},
		{"missing", "", 401, notProvided},
		{"other scheme", "Bearer " + goodKey, 401, notProvided},
		{"token scheme", "Token abc", 401, notProvided},
		{"empty key", "API-Key", 401, invalid},
		{"blank key", "API-Key    ", 401, invalid},
		{"malformed key", "API-Key not a key", 401, invalid},
		{"unknown key", "API-Key " + survey.NewKey(), 401, invalid},
		{"huge header", "API-Key " + strings.Repeat("A", 100000), 401, invalid},
		{"control chars", "API-Key svk_\x01\x02", 401, invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr map[string]string
			if tt.header != "" {
				hdr = map[string]string{"Authorization": tt.header}
			}
			rec := do(t, h, call{method: "GET", path: "/api/mine/", header: hdr})
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			assertJSON(t, rec.Body.Bytes(), tt.body)
			if tt.want == 401 && rec.Header().Get("WWW-Authenticate") != "API-Key" {
				t.Errorf("WWW-Authenticate = %q", rec.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

// TestAuthRevocationAtOnce (contract section 2: a revoked key answers 401):
// a valid key is read on every request, so its revocation counts on the
// next one: with a store that reads a key alone (KeyChecker), the account
// is kept AuthCacheTTL and only the key is read; without, every request
// reads both. An unknown key is remembered for AuthCacheTTL (a client
// retrying it costs no read), a malformed one costs none.
func TestAuthRevocationAtOnce(t *testing.T) {
	t.Parallel()
	for _, checked := range []bool{true, false} {
		t.Run(fmt.Sprintf("checker %v", checked), func(t *testing.T) {
			t.Parallel()
			ks := newKeys()
			ck := &checkedKeys{keys: ks}
			var store api.KeyStore = ks
			if checked {
				store = ck
			}
			auth := api.NewAuthenticator(store)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			auth.Now = func() time.Time { return now }
			hdr := []string{"API-Key " + goodKey}
			for range 5 {
				if _, err := auth.Authenticate(context.Background(), hdr); err != nil {
					t.Fatal(err)
				}
			}
			wantWhole, wantLive := int64(5), int64(0)
			if checked {
				wantWhole, wantLive = 1, 4
			}
			if ks.reads.Load() != wantWhole || ck.lives.Load() != wantLive {
				t.Fatalf("5 requests: %d whole reads and %d of the key alone, want %d and %d", ks.reads.Load(), ck.lives.Load(), wantWhole, wantLive)
			}
			delete(ks.valid, survey.HashKey(goodKey)) // revoked
			if _, err := auth.Authenticate(context.Background(), hdr); survey.ErrorCode(err) != survey.EUNAUTHORIZED {
				t.Fatalf("the request after the revocation: %v, want 401", err)
			}
			unknown := []string{"API-Key " + survey.NewKey()}
			before := ks.reads.Load()
			for range 3 {
				if _, err := auth.Authenticate(context.Background(), unknown); survey.ErrorCode(err) != survey.EUNAUTHORIZED {
					t.Fatalf("an unknown key: %v, want 401", err)
				}
			}
			if got := ks.reads.Load() - before; got != 1 {
				t.Errorf("an unknown key sent 3 times read the store %d times, want 1", got)
			}
			now = now.Add(api.AuthCacheTTL + time.Second)
			_, _ = auth.Authenticate(context.Background(), unknown)
			if got := ks.reads.Load() - before; got != 2 {
				t.Errorf("an unknown key after the TTL: %d reads in all, want 2", got)
			}
			junk := []string{"API-Key junk"}
			before = ks.reads.Load()
			_, _ = auth.Authenticate(context.Background(), junk)
			if ks.reads.Load() != before {
				t.Error("a malformed key cost a store read")
			}
		})
	}
}

func TestAuthStoreOutageIs503(t *testing.T) {
	t.Parallel()
	ks := newKeys()
	ks.failure = survey.Errorf(survey.EUNAVAILABLE, "busy")
	rec := do(t, testRouter(ks), call{method: "GET", path: "/api/mine/", header: map[string]string{"Authorization": "API-Key " + goodKey}})
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// TestRetryAfter: an error that says how long to wait gives Retry-After in
// whole seconds, rounded up; 429 and 503 without one say 1.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err    *survey.Error
		status int
		want   string
	}{
		{&survey.Error{Code: survey.ETOOMANY, Detail: "wait", RetryAfter: 40 * time.Second}, 429, "40"},
		{&survey.Error{Code: survey.ETOOMANY, Detail: "wait", RetryAfter: 1500 * time.Millisecond}, 429, "2"},
		{&survey.Error{Code: survey.ETOOMANY, Detail: "wait", RetryAfter: time.Millisecond}, 429, "1"},
		{&survey.Error{Code: survey.ETOOMANY, Detail: "wait"}, 429, "1"},
		{&survey.Error{Code: survey.EUNAVAILABLE, Detail: "busy"}, 503, "1"},
		{&survey.Error{Code: survey.EUNAVAILABLE, Detail: "busy", RetryAfter: 5 * time.Second}, 503, "5"},
		{&survey.Error{Code: survey.EFORBIDDEN, Detail: "no"}, 403, ""},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		api.Error(rec, httptest.NewRequest("POST", "/x/", nil), c.err)
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.want {
			t.Errorf("%+v: %d, Retry-After %q; want %d, %q", c.err, rec.Code, rec.Header().Get("Retry-After"), c.status, c.want)
		}
	}
}

func TestBodies(t *testing.T) {
	t.Parallel()
	h := testRouter(newKeys())
	auth := "API-Key " + goodKey
	tests := []struct {
		name, contentType, body string
		want                    int
		wantBody                string
	}{
		{"object", "application/json", `{"a":1,"b":2}`, 201, `{"fields":2}`},
		{"charset param", "application/json; charset=utf-8", `{"a":1}`, 201, `{"fields":1}`},
		{"empty body is {}", "application/json", ``, 201, `{"fields":0}`},
		{"no content type", "", `{"a":1}`, 415, `{"detail":"Unsupported media type \"\" in request."}`},
		{"no content type, no body", "", ``, 201, `{"fields":0}`},
		{"text/plain", "text/plain", `{"a":1}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{"form", "application/x-www-form-urlencoded", `a=1`, 415, `{"detail":"Unsupported media type \"application/x-www-form-urlencoded\" in request."}`},
		{"list", "application/json", `[1,2]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{"string", "application/json", `"x"`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{"number", "application/json", `5`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{"null", "application/json", `null`, 400, `{"non_field_errors":["No data provided"]}`},
		{"bad byte in a string", "application/json", "{\"name\":\"a\xffb\"}", 400, `{"detail":"JSON parse error - invalid UTF-8 byte 0xff at offset 10"}`},
		{"bad byte outside strings", "application/json", "{\"a\":1}\xc3", 400, `{"detail":"JSON parse error - invalid UTF-8 byte 0xc3 at offset 7"}`},
		{"surrogate encoded as UTF-8", "application/json", "{\"a\":\"\xed\xa0\x80\"}", 400, `{"detail":"JSON parse error - invalid UTF-8 byte 0xed at offset 6"}`},
		{"too large", "application/json", `{"a":"` + strings.Repeat("x", 100) + `"}`, 413, `{"detail":"Request body is larger than 64 bytes."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"Authorization": auth}
			if tt.contentType != "" {
				hdr["Content-Type"] = tt.contentType
			}
			rec := do(t, h, call{method: "POST", path: "/api/mine/", body: tt.body, header: hdr})
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body)
			}
			assertJSON(t, rec.Body.Bytes(), tt.wantBody)
		})
	}
	for _, bad := range []string{`{`, `{"a":}`, `{"a":1} x`, `nul`, `{"a":1}{"b":2}`} {
		rec := do(t, h, call{method: "POST", path: "/api/mine/", body: bad, header: map[string]string{"Authorization": auth, "Content-Type": "application/json"}})
		var got map[string]string
		_ = json.Unmarshal(rec.Body.Bytes(), &got)
		if rec.Code != 400 || !strings.HasPrefix(got["detail"], "JSON parse error - ") {
			t.Errorf("body %q: %d %s", bad, rec.Code, rec.Body)
		}
	}
}

// TestPageLinks: next and previous keep the request's other parameters
// and start with the API's configured address (API_BASE_URL, ServeAt),
// never with the Host or X-Forwarded-* headers a client sends (contract
// section 3); without an address they are relative to the host.
func TestPageLinks(t *testing.T) {
	t.Parallel()
	var p, last api.Page[int]
	var abs string
	h := api.ServeAt("https://api.example.net/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p = api.NewPage(r, 2, 5, 12, []int{6, 7, 8, 9, 10})
		last = api.NewPage(r, 3, 5, 12, []int{11, 12})
		abs = api.AbsoluteURL(r, nil)
	}))
	req := httptest.NewRequest("GET", "http://attacker.example/api/templates/?page=2&page_size=5&search=a+b", nil)
	req.Header.Set("X-Forwarded-Host", "attacker.example")
	req.Header.Set("X-Forwarded-Proto", "http")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if p.Next == nil || *p.Next != "https://api.example.net/v1/api/templates/?page=3&page_size=5&search=a+b" {
		t.Errorf("next = %v", deref(p.Next))
	}
	if p.Previous == nil || *p.Previous != "https://api.example.net/v1/api/templates/?page_size=5&search=a+b" {
		t.Errorf("previous = %v", deref(p.Previous))
	}
	if last.Next != nil {
		t.Errorf("last page has next %v", *last.Next)
	}
	if abs != "https://api.example.net/v1/api/templates/" {
		t.Errorf("AbsoluteURL = %q", abs)
	}
	if got := api.AbsoluteURL(req, nil); got != "/api/templates/" {
		t.Errorf("AbsoluteURL without a configured address = %q, want the path alone", got)
	}
}

func TestParseBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.example.com":     "https://api.example.com",
		"https://api.example.com/":    "https://api.example.com",
		"http://127.0.0.1:3000":       "http://127.0.0.1:3000",
		"https://example.com/survey/": "https://example.com/survey",
	} {
		if got, err := api.ParseBaseURL(in); err != nil || got != want {
			t.Errorf("ParseBaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "api.example.com", "/api", "ftp://example.com", "https://", "https://u:p@example.com",
		"https://example.com/?a=1", "https://example.com/#x", "javascript:alert(1)"} {
		if got, err := api.ParseBaseURL(bad); err == nil {
			t.Errorf("ParseBaseURL(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := api.BaseURLFromEnv(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "API_BASE_URL") {
		t.Errorf("BaseURLFromEnv without API_BASE_URL: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestParseInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   int
		wantOK bool
	}{
		{"1", 1, true}, {"-3", -3, true}, {"007", 7, true},
		{"", 0, false}, {"-", 0, false}, {"abc", 0, false}, {"1.5", 0, false}, {"+2", 0, false}, {"1e3", 0, false},
		{"99999999999999999999999", int(^uint(0) >> 1), true},
	}
	for _, tt := range tests {
		got, ok := api.ParseInt(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestOwnFormats: a route's own format (?format=csv, or an Accept that
// names its media type) reaches the handler, which writes it with
// RespondBody; other routes keep answering 404 to it, and unknown formats
// stay 404 everywhere.
func TestOwnFormats(t *testing.T) {
	t.Parallel()
	rt := testRouter(newKeys())
	csv := api.Format{Name: "csv", MediaType: "text/csv"}
	rt.Handle(api.Route{Method: "GET", Path: "/api/table/", Name: "Table", Public: true, Formats: []api.Format{csv}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if api.RequestedFormat(r) == "csv" {
				api.RespondBody(w, r, http.StatusOK, "text/csv; charset=utf-8", []byte("a,b\r\n1,2\r\n"))
				return
			}
			api.Respond(w, r, http.StatusOK, map[string]string{"a": "1"})
		}))
	for _, tc := range []struct {
		name       string
		call       call
		wantStatus int
		wantType   string
		wantBody   string
	}{
		{"format csv", call{method: "GET", path: "/api/table/?format=csv"}, 200, "text/csv; charset=utf-8", "a,b\r\n1,2\r\n"},
		{"accept csv", call{method: "GET", path: "/api/table/", header: map[string]string{"Accept": "text/csv"}}, 200, "text/csv; charset=utf-8", "a,b\r\n1,2\r\n"},
		{"json by default", call{method: "GET", path: "/api/table/"}, 200, "application/json", `{"a":"1"}`},
		{"json wins a tie", call{method: "GET", path: "/api/table/", header: map[string]string{"Accept": "text/csv, application/json"}}, 200, "application/json", `{"a":"1"}`},
		{"unknown format", call{method: "GET", path: "/api/table/?format=xml"}, 404, "application/json", `{"detail":"Not found."}`},
		{"csv elsewhere", call{method: "GET", path: "/api/things/5/?format=csv"}, 404, "application/json", `{"detail":"Not found."}`},
		{"csv not acceptable elsewhere", call{method: "GET", path: "/api/things/5/", header: map[string]string{"Accept": "text/csv"}}, 406, "application/json", ""},
		{"options lists csv", call{method: "OPTIONS", path: "/api/table/"}, 200, "application/json",
			`{"name":"Table","description":"","renders":["application/json","text/html","text/csv"],"parses":["application/json"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, api.Mount(rt), tc.call)
			if rec.Code != tc.wantStatus || rec.Header().Get("Content-Type") != tc.wantType {
				t.Fatalf("%d %s, want %d %s: %s", rec.Code, rec.Header().Get("Content-Type"), tc.wantStatus, tc.wantType, rec.Body)
			}
			if tc.wantBody != "" && rec.Body.String() != tc.wantBody {
				t.Errorf("body %q, want %q", rec.Body, tc.wantBody)
			}
		})
	}
	rec := do(t, api.Mount(rt), call{method: "GET", path: "/api/table/?format=csv"})
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatal("a CSV answer has no ETag")
	}
	again := do(t, api.Mount(rt), call{method: "GET", path: "/api/table/?format=csv", header: map[string]string{"If-None-Match": etag}})
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d %q, want 304 and no body", again.Code, again.Body)
	}
	head := do(t, api.Mount(rt), call{method: "HEAD", path: "/api/table/?format=csv"})
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != "10" {
		t.Errorf("HEAD: %d %q length %s", head.Code, head.Body, head.Header().Get("Content-Length"))
	}
}

// TestFrameCookie: in a frame the responder's cookie is SameSite=None;
// Secure; Partitioned, else SameSite=Lax (Secure over https).
func TestFrameCookie(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dest, proto, want string
	}{
		{"iframe", "", "r=1; Path=/s/; HttpOnly; Secure; SameSite=None; Partitioned"},
		{"frame", "https", "r=1; Path=/s/; HttpOnly; Secure; SameSite=None; Partitioned"},
		{"document", "https", "r=1; Path=/s/; HttpOnly; Secure; SameSite=Lax"},
		{"", "", "r=1; Path=/s/; HttpOnly; SameSite=Lax"},
	} {
		r := httptest.NewRequest("GET", "/s/abc/", nil)
		if c.dest != "" {
			r.Header.Set("Sec-Fetch-Dest", c.dest)
		}
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		got := api.FrameCookie(r, &http.Cookie{Name: "r", Value: "1", Path: "/s/"}).String()
		if got != c.want {
			t.Errorf("dest %q proto %q: %s, want %s", c.dest, c.proto, got, c.want)
		}
	}
}
