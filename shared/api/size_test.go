package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/shared/api"
)

// respond answers v through api.Respond behind a router (which negotiates
// the representation) for a GET of path.
func respond(t *testing.T, path string, v any) *httptest.ResponseRecorder {
	t.Helper()
	rt := api.NewRouter(api.NewAuthenticator(newKeys()))
	rt.Handle(api.Route{Method: "GET", Path: "/api/big/", Name: "Big", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { api.Respond(w, r, http.StatusOK, v) }))
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}

// jsonOfSize is a JSON string value of n-2 fills between its quotes.
func jsonOfSize(n int, fill string) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat(fill, n-2) + `"`)
}

func TestAnswerSizeBound(t *testing.T) {
	t.Run("JSON at the bound is sent", func(t *testing.T) {
		rec := respond(t, "/api/big/", jsonOfSize(api.MaxAnswer, "a"))
		if rec.Code != 200 || rec.Body.Len() != api.MaxAnswer {
			t.Fatalf("status %d, %d bytes; want 200 and %d", rec.Code, rec.Body.Len(), api.MaxAnswer)
		}
	})
	t.Run("JSON over the bound is a 500, never an answer Lambda cannot deliver", func(t *testing.T) {
		rec := respond(t, "/api/big/", jsonOfSize(api.MaxAnswer+1, "a"))
		if rec.Code != 500 || rec.Body.String() != `{"detail":"A server error occurred."}` {
			t.Fatalf("status %d, body %.100s", rec.Code, rec.Body.String())
		}
	})
	t.Run("a browsable page over the bound shows a note instead", func(t *testing.T) {
		// Escaped quotes grow threefold on the page (\&#34;): 4 MiB of JSON
		// is a 12 MiB page.
		rec := respond(t, "/api/big/?format=api", jsonOfSize(2<<20, `\"`))
		body := rec.Body.String()
		if rec.Code != 200 || len(body) > 64<<10 || !strings.Contains(body, "too large to show") || !strings.Contains(body, "?format=json") {
			t.Fatalf("status %d, %d bytes: %.300s", rec.Code, len(body), body)
		}
		if !strings.Contains(body, "4.0 MiB") {
			t.Errorf("the note does not say the JSON's size: %.600s", body)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("Content-Type %q", ct)
		}
	})
	t.Run("a browsable page under the bound is the whole page", func(t *testing.T) {
		rec := respond(t, "/api/big/?format=api", jsonOfSize(1<<20, "a"))
		if rec.Code != 200 || rec.Body.Len() < 1<<20 || strings.Contains(rec.Body.String(), "too large to show") {
			t.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
		}
	})
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int64]string{5 << 20: "5 MiB", 5<<20 + 400<<10: "5.4 MiB", 812 << 10: "812 KiB", 300: "300 bytes"} {
		if got := api.SizeName(n); got != want {
			t.Errorf("SizeName(%d) = %q, want %q", n, got, want)
		}
	}
}
