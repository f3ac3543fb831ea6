package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// jsonSpace is what JSON (RFC 8259) counts as white space; Unicode spaces are
// not among them.
const jsonSpace = " \t\r\n"

func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[1,2,{"c":null}]}`, ` {"title":"نظرسنجی"} `, "\n{\"a\":\"\\u0000\"}\r\n",
		``, ` `, `[]`, `[1,2]`, `"x"`, `5`, `1.5e3`, `true`, `null`, `{`, `{"a":}`, `{"a":1} x`,
		`{"a":1}{"b":2}`, `nul`, `{"a":1,"a":2}`, "{\"a\":\"\xff\"}", "\xef\xbb\xbf{}", `{"a":1}]`, `{"a":1},`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/things/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		obj, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			var e *survey.Error
			if !errors.As(err, &e) {
				t.Fatalf("body %q: error %T %v is not a *survey.Error", body, err, err)
			}
			if e.Code != survey.EINVALID && e.Code != survey.ETOOLARGE {
				t.Fatalf("body %q: code %q, want %q or %q", body, e.Code, survey.EINVALID, survey.ETOOLARGE)
			}
			if e.Detail == "" && len(e.Fields) == 0 {
				t.Fatalf("body %q: error without detail or fields", body)
			}
			return
		}
		if obj == nil {
			t.Fatalf("body %q: nil object without error", body)
		}
		trimmed := bytes.Trim(body, jsonSpace)
		if len(trimmed) == 0 {
			if len(obj) != 0 {
				t.Fatalf("empty body %q decoded to %v, want {}", body, obj)
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("body %q is not UTF-8, yet decoded to %v", body, obj)
		}
		if !json.Valid(body) || trimmed[0] != '{' {
			t.Fatalf("body %q is not a JSON object, yet decoded to %v", body, obj)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("body %q: json.Unmarshal: %v", body, err)
		}
		if len(obj) != len(want) {
			t.Fatalf("body %q: %d fields, json.Unmarshal finds %d", body, len(obj), len(want))
		}
	})
}

// containsWellFormedKey reports whether some substring of s could be an API
// key: only such a header may cost a store read.
func containsWellFormedKey(s string) bool {
	n := len(survey.KeyPrefix) + 43
	for i := 0; i+n <= len(s); i++ {
		if strings.HasPrefix(s[i:], survey.KeyPrefix) && survey.WellFormedKey(s[i:i+n]) {
			return true
		}
	}
	return false
}

// acceptsKey is the contract's rule: `API-Key <key>`, the scheme in any case,
// white space around the header and between scheme and key.
func acceptsKey(header string) bool {
	scheme, key, found := strings.Cut(strings.TrimSpace(header), " ")
	return found && strings.EqualFold(scheme, "API-Key") && strings.TrimSpace(key) == goodKey
}

func FuzzAuthorizationHeader(f *testing.F) {
	for _, s := range []string{
		"API-Key " + goodKey, "api-key " + goodKey, "API-KEY " + goodKey, "  API-Key   " + goodKey + " \t",
		"API-Key " + goodKey + "x", "API-Key " + goodKey[:len(goodKey)-1], "API-Key " + strings.ToUpper(goodKey),
		"API-Key " + survey.NewKey(), "API-Key\t" + goodKey, "Bearer " + goodKey, "Token abc", goodKey,
		"API-Key " + goodKey + " " + goodKey, "API-Key", "API-Key ", "", "API-Key svk_\x00", "API-Key\u00a0" + goodKey,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		ks := newKeys()
		auth := api.NewAuthenticator(ks) // fresh: no answer cached across inputs
		acct, err := auth.Authenticate(context.Background(), []string{header})
		reads := ks.reads.Load()

		if want := acceptsKey(header); (err == nil) != want {
			t.Fatalf("header %q: authenticated = %v, want %v (err %v)", header, err == nil, want, err)
		}
		if err == nil {
			if acct.ID != 7 {
				t.Fatalf("header %q: account %d, want 7", header, acct.ID)
			}
			if !strings.Contains(header, goodKey) {
				t.Fatalf("header %q authenticated without the key", header)
			}
		} else if code := survey.ErrorCode(err); code != survey.EUNAUTHORIZED {
			t.Fatalf("header %q: code %q, want %q", header, code, survey.EUNAUTHORIZED)
		}
		if reads > 1 {
			t.Fatalf("header %q: %d store reads, want at most 1", header, reads)
		}
		if reads > 0 && !containsWellFormedKey(header) {
			t.Fatalf("header %q without a well-formed key reached the KeyStore", header)
		}
	})
}

// oneRoute is a router with a single public GET route.
func oneRoute() *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/things/{id}/", Name: "Thing Detail", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.Respond(w, r, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}))
	return rt
}

func FuzzAccept(f *testing.F) {
	for _, s := range []struct {
		accept, format string
		hasFormat      bool
	}{
		{"", "", false}, {"*/*", "", false}, {"application/json", "", false}, {"text/html", "", false},
		{"text/html;q=0.9, application/json;q=0.5", "", false}, {"application/xml", "", false},
		{"application/xml, */*;q=0.1", "", false}, {"garbage;;;", "", false}, {"text/*;q=0", "", false},
		{"text/html;q=NaN", "", false}, {"*/*;q=-1", "", false}, {"application/json", "json", true},
		{"text/html", "api", true}, {"", "xml", true}, {"", "", true}, {"application/xml", "json", true},
	} {
		f.Add(s.accept, s.format, s.hasFormat)
	}
	h := oneRoute()
	f.Fuzz(func(t *testing.T, accept, format string, hasFormat bool) {
		target := "/api/things/1/"
		if hasFormat {
			target += "?format=" + url.QueryEscape(format)
		}
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Header["Accept"] = []string{accept}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)

		switch rec.Code {
		case http.StatusOK, http.StatusNotFound, http.StatusNotAcceptable:
		default:
			t.Fatalf("Accept %q, format %q (%v): status %d: %s", accept, format, hasFormat, rec.Code, rec.Body)
		}
		ct := rec.Header().Get("Content-Type")
		switch ct {
		case "application/json":
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("Accept %q, format %q: JSON body is not JSON: %q", accept, format, rec.Body)
			}
		case "text/html; charset=utf-8":
			if !strings.HasPrefix(rec.Body.String(), "<!DOCTYPE html>") {
				t.Fatalf("Accept %q, format %q: HTML body does not start the page", accept, format)
			}
		default:
			t.Fatalf("Accept %q, format %q: Content-Type %q", accept, format, ct)
		}
		if _, _, err := mime.ParseMediaType(ct); err != nil {
			t.Fatalf("Content-Type %q: %v", ct, err)
		}
		if hasFormat {
			switch {
			case format == "json" && (rec.Code != http.StatusOK || ct != "application/json"):
				t.Fatalf("format json: %d %q", rec.Code, ct)
			case format == "api" && (rec.Code != http.StatusOK || ct != "text/html; charset=utf-8"):
				t.Fatalf("format api: %d %q", rec.Code, ct)
			case format != "json" && format != "api" && rec.Code != http.StatusNotFound:
				t.Fatalf("format %q: %d, want 404", format, rec.Code)
			}
		}
		if got := rec.Header().Get("Vary"); got != "Accept" {
			t.Fatalf("Vary = %q", got)
		}
	})
}
