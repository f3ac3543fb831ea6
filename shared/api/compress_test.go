package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"surveyservice/shared/api"
)

// TestCompress: a text answer of 1 KiB or more goes out gzipped to a
// client that accepts it, and as it is to any other; small, binary, HEAD
// and 304 answers are never compressed (API Gateway HTTP
// APIs do not compress, so the function must).
func TestCompress(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(`{"name":"a question title"},`, 100)
	rt := api.NewRouter(nil)
	serveBody := func(ct, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("ETag", `"v1"`)
			if api.WritesBody(r) {
				_, _ = io.WriteString(w, body)
			}
		})
	}
	rt.Handle(api.Route{Method: "GET", Path: "/big/", Name: "Big", Public: true}, serveBody("application/json", big))
	rt.Handle(api.Route{Method: "GET", Path: "/page/", Name: "Page", Public: true}, serveBody("text/html; charset=utf-8", big))
	rt.Handle(api.Route{Method: "GET", Path: "/small/", Name: "Small", Public: true}, serveBody("application/json", `{"a":1}`))
	rt.Handle(api.Route{Method: "GET", Path: "/png/", Name: "Png", Public: true}, serveBody("image/png", big))
	rt.Handle(api.Route{Method: "GET", Path: "/same/", Name: "Same", Public: true}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotModified)
	}))
	tests := []struct {
		name, path, accept string
		gzipped            bool
	}{
		{"json", "/big/", "gzip, deflate, br", true},
		{"html", "/page/", "br;q=1.0, gzip;q=0.8", true},
		{"any encoding", "/big/", "*", true},
		{"gzip refused", "/big/", "gzip;q=0, identity", false},
		{"no Accept-Encoding", "/big/", "", false},
		{"small", "/small/", "gzip", false},
		{"binary", "/png/", "gzip", false},
		{"not modified", "/same/", "gzip", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			rt.ServeHTTP(rec, req)
			got := rec.Body.Bytes()
			if enc := rec.Header().Get("Content-Encoding"); (enc == "gzip") != tt.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip %v", enc, tt.gzipped)
			}
			if tt.path != "/same/" && tt.path != "/png/" && !strings.Contains(strings.Join(rec.Header().Values("Vary"), ","), "Accept-Encoding") {
				t.Errorf("Vary %q lacks Accept-Encoding", rec.Header().Values("Vary"))
			}
			if !tt.gzipped {
				return
			}
			zr, err := gzip.NewReader(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || string(plain) != big {
				t.Fatalf("gunzipped body differs (%v)", err)
			}
			if len(got) >= len(big)/4 {
				t.Errorf("gzip body %d bytes of %d", len(got), len(big))
			}
			if et := rec.Header().Get("ETag"); et != `W/"v1"` {
				t.Errorf("ETag %q, want the weak W/\"v1\"", et)
			}
		})
	}
	// HEAD has the headers of the GET with the same Accept-Encoding: its
	// Content-Length and ETag are the compressed answer's (contract
	// section 3), and no body.
	for _, accept := range []string{"gzip", ""} {
		get, head := httptest.NewRecorder(), httptest.NewRecorder()
		for _, c := range []struct {
			method string
			rec    *httptest.ResponseRecorder
		}{{"GET", get}, {"HEAD", head}} {
			req := httptest.NewRequest(c.method, "/big/", nil)
			if accept != "" {
				req.Header.Set("Accept-Encoding", accept)
			}
			rt.ServeHTTP(c.rec, req)
		}
		for _, name := range []string{"Content-Length", "ETag", "Content-Encoding"} {
			if g, h := get.Header().Get(name), head.Header().Get(name); g != h {
				t.Errorf("Accept-Encoding %q: HEAD %s %q, GET %q", accept, name, h, g)
			}
		}
		if head.Body.Len() != 0 {
			t.Errorf("Accept-Encoding %q: HEAD has %d body bytes", accept, head.Body.Len())
		}
	}
}
