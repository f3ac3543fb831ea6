package gateway_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
)

func TestSafePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"root", "/", "/"},
		{"plain", "/api/templates/customer-satisfaction/", "/api/templates/customer-satisfaction/"},
		{"valid escapes", "/api/templates/a%20b%2Fc/", "/api/templates/a%20b%2Fc/"},
		{"lower-case hex", "/a%2fb%e2%80%8c/", "/a%2fb%e2%80%8c/"},
		{"persian percent-encoded",
			"/api/templates/%D9%86%D8%B8%D8%B1%D8%B3%D9%86%D8%AC%DB%8C/",
			"/api/templates/%D9%86%D8%B8%D8%B1%D8%B3%D9%86%D8%AC%DB%8C/"},
		{"persian raw", "/api/templates/نظرسنجی-رضایت/", "/api/templates/نظرسنجی-رضایت/"},
		{"query-like characters kept", "/a;b=c/d:e@f!$&'()*+,/", "/a;b=c/d:e@f!$&'()*+,/"},
		{"bad escape", "/api/templates/%zz/", "/api/templates/%25zz/"},
		{"half-hex escape", "/a%2g/", "/a%252g/"},
		{"trailing percent", "/api/templates/a%", "/api/templates/a%25"},
		{"percent and one digit", "/api/templates/%4", "/api/templates/%254"},
		{"lone percent", "%", "%25"},
		{"double percent", "/%%41/", "/%25%41/"},
		{"bad escape keeps the good ones", "/%41%zz%42/", "/%41%25zz%42/"},
		{"space", "/a b/", "/a%20b/"},
		{"space only", "/a b", "/a%20b"},
		{"tab and newline", "/a\tb\n", "/a%09b%0A"},
		{"NUL", "/a\x00b/", "/a%00b/"},
		{"DEL", "/a\x7fb/", "/a%7Fb/"},
		{"control and bad escape", "/\x01%/", "/%01%25/"},
		{"unicode kept beside an escaped control", "/ش\x1f/", "/ش%1F/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := gateway.SafePath(tt.in)
			if got != tt.want {
				t.Errorf("SafePath(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if _, err := url.PathUnescape(got); err != nil {
				t.Errorf("SafePath(%q) = %q does not unescape: %v", tt.in, got, err)
			}
		})
	}
}

// thingRouter has one public GET route answering its id.
func thingRouter() *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/things/{id}/", Name: "Thing Detail", Public: true},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			api.Respond(w, r, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}))
	return rt
}

// event is what API Gateway (HTTP API, payload 2.0) sends for method and raw
// path, the routed path decoded as API Gateway decodes it.
func event(method, rawPath, rawQuery string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	path := rawPath
	if p, err := url.PathUnescape(rawPath); err == nil {
		path = p
	}
	if headers == nil {
		headers = map[string]string{}
	}
	return events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RouteKey:       "$default",
		RawPath:        rawPath,
		RawQueryString: rawQuery,
		Headers:        headers,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:   "$default",
			AccountID:  "123456789012",
			Stage:      "$default",
			RequestID:  "req-1",
			DomainName: "api.example.com",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.9", UserAgent: "test",
			},
		},
	}
}

// header reads a response header whatever the case of its name (the adapter
// keeps Go's canonical form: "Etag", not "ETag").
func header(resp events.APIGatewayV2HTTPResponse, name string) string {
	for k, v := range resp.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func quiet(t *testing.T) {
	t.Helper()
	if !testing.Verbose() {
		old := slog.Default()
		slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
		t.Cleanup(func() { slog.SetDefault(old) })
	}
}

func TestNew(t *testing.T) {
	quiet(t) // changes the default logger: not parallel
	handler := gateway.New(thingRouter())
	notFound := `{"detail":"Not found."}`
	tests := []struct {
		name        string
		ev          events.APIGatewayV2HTTPRequest
		wantStatus  int
		wantBody    string // exact; "-" to skip
		wantHeaders map[string]string
	}{
		{"found", event("GET", "/api/things/42/", "", nil), 200, `{"id":"42"}`,
			map[string]string{"Content-Type": "application/json", "Allow": "GET, HEAD, OPTIONS", "Vary": "Accept,Accept-Encoding", "X-Content-Type-Options": "nosniff"}},
		{"no final slash", event("GET", "/api/things/42", "", nil), 200, `{"id":"42"}`, nil},
		{"persian id", event("GET", "/api/things/%D8%B4%D9%85%D8%A7%D8%B1%D9%87/", "", nil), 200, `{"id":"شماره"}`, nil},
		{"raw path empty, routed path used", func() events.APIGatewayV2HTTPRequest {
			ev := event("GET", "", "", nil)
			ev.RequestContext.HTTP.Path = "/api/things/7/"
			return ev
		}(), 200, `{"id":"7"}`, nil},
		{"format json", event("GET", "/api/things/42/", "format=json", map[string]string{"accept": "text/html"}), 200, `{"id":"42"}`, nil},
		{"format api", event("GET", "/api/things/42/", "format=api", nil), 200, "-", map[string]string{"Content-Type": "text/html; charset=utf-8"}},
		{"unknown format", event("GET", "/api/things/42/", "format=xml", nil), 404, notFound, nil},
		{"not acceptable", event("GET", "/api/things/42/", "", map[string]string{"accept": "application/xml"}), 406, `{"detail":"Could not satisfy the request Accept header."}`, nil},
		{"unknown path", event("GET", "/api/nothing/", "", nil), 404, notFound, nil},

		// Raw paths the adapter could not parse: they reach the router, which
		// answers them, rather than failing the invocation.
		{"bad escape in an unknown path", event("GET", "/api/th%zzings/1/", "", nil), 404, notFound, map[string]string{"Content-Type": "application/json"}},
		{"trailing percent", event("GET", "/api/things/1/%", "", nil), 404, notFound, nil},
		{"percent and one digit", event("GET", "/api/things/1/%4", "", nil), 404, notFound, nil},
		{"control byte in the query", event("GET", "/api/things/42/", "a=\x01&b=%zz", nil), 200, `{"id":"42"}`, nil},
		{"hash in the raw path", event("GET", "/api/things/a#b/", "", nil), 200, `{"id":"a#b"}`, nil},
		{"lone percent", event("GET", "/%", "", nil), 404, notFound, nil},
		{"control character", event("GET", "/api/\x01/", "", nil), 404, notFound, nil},
		{"routed path with bad escape", func() events.APIGatewayV2HTTPRequest {
			ev := event("GET", "", "", nil)
			ev.RequestContext.HTTP.Path = "/api/%zz/"
			return ev
		}(), 404, notFound, nil},
		// The id route matches any segment; the handler sees it decoded.
		{"bad escape as the id", event("GET", "/api/things/%zz/", "", nil), 200, `{"id":"%zz"}`, nil},
		{"space in the id", event("GET", "/api/things/a b/", "", nil), 200, `{"id":"a b"}`, nil},

		{"head", event("HEAD", "/api/things/42/", "", nil), 200, "",
			map[string]string{"Content-Type": "application/json", "Content-Length": "11", "Allow": "GET, HEAD, OPTIONS"}},
		{"post", event("POST", "/api/things/42/", "", map[string]string{"content-type": "application/json"}), 405, `{"detail":"Method \"POST\" not allowed."}`,
			map[string]string{"Allow": "GET, HEAD, OPTIONS", "Content-Type": "application/json"}},
		{"lower-case method", event("delete", "/api/things/42/", "", nil), 405, `{"detail":"Method \"DELETE\" not allowed."}`,
			map[string]string{"Allow": "GET, HEAD, OPTIONS"}},
		{"options", event("OPTIONS", "/api/things/42/", "", nil), 200,
			`{"name":"Thing Detail","description":"","renders":["application/json","text/html"],"parses":["application/json"]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := handler(context.Background(), tt.ev)
			if err != nil {
				t.Fatalf("invocation error %v (API Gateway would answer 5xx); response %+v", err, resp)
			}
			if got, want := resp.StatusCode, tt.wantStatus; got != want {
				t.Fatalf("status = %d, want %d; body %s", got, want, resp.Body)
			}
			if resp.IsBase64Encoded {
				t.Errorf("body is base64-encoded")
			}
			if tt.wantBody != "-" && resp.Body != tt.wantBody {
				t.Errorf("body = %q, want %q", resp.Body, tt.wantBody)
			}
			if tt.wantBody != "-" && tt.wantBody != "" && !json.Valid([]byte(resp.Body)) {
				t.Errorf("body is not JSON: %s", resp.Body)
			}
			for k, want := range tt.wantHeaders {
				if got := header(resp, k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if header(resp, "X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
}

// TestNewGzip: a text answer the function gzips (API Gateway HTTP APIs do
// not) reaches API Gateway base64-encoded, as its binary bodies must.
func TestNewGzip(t *testing.T) {
	quiet(t)
	long := strings.Repeat("a", 2000)
	resp, err := gateway.New(thingRouter())(context.Background(), event("GET", "/api/things/"+long+"/", "", map[string]string{"accept-encoding": "gzip, deflate, br"}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !resp.IsBase64Encoded || header(resp, "Content-Encoding") != "gzip" {
		t.Fatalf("status %d, base64 %v, Content-Encoding %q", resp.StatusCode, resp.IsBase64Encoded, header(resp, "Content-Encoding"))
	}
	raw, err := base64.StdEncoding.DecodeString(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || string(body) != `{"id":"`+long+`"}` {
		t.Fatalf("body %.80q (%v)", body, err)
	}
	if len(raw) > 200 {
		t.Errorf("%d gzip bytes for %d", len(raw), len(body))
	}
}

func TestNewHeadMatchesGet(t *testing.T) {
	quiet(t)
	handler := gateway.New(thingRouter())
	get, err := handler(context.Background(), event("GET", "/api/things/9/", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	head, err := handler(context.Background(), event("HEAD", "/api/things/9/", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if head.StatusCode != get.StatusCode || head.Body != "" {
		t.Fatalf("HEAD = %d with body %q; GET = %d", head.StatusCode, head.Body, get.StatusCode)
	}
	for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Allow", "Vary"} {
		if got, want := header(head, k), header(get, k); got != want || got == "" {
			t.Errorf("HEAD %s = %q, GET has %q", k, got, want)
		}
	}
}

func FuzzSafePath(f *testing.F) {
	for _, s := range []string{
		"", "/", "/api/templates/customer-satisfaction/", "/api/templates/%D9%86%D8%B8/", "/%zz/", "/a%", "/a%4",
		"%", "%%", "%%41", "/a b/", "/\x00\x1f\x7f/", "/ش/", "/\xff%/", "/a%2Fb/", "/%E2%80%8C/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := gateway.SafePath(p)
		if _, err := url.PathUnescape(got); err != nil {
			t.Fatalf("SafePath(%q) = %q does not unescape: %v", p, got, err)
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; c <= ' ' || c == 0x7f {
				t.Fatalf("SafePath(%q) = %q has byte %#x", p, got, c)
			}
		}
		_, err := url.PathUnescape(p)
		clean := !strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '?' || r == '#' })
		if strings.ContainsAny(got, "?#") {
			t.Fatalf("SafePath(%q) = %q keeps a '?' or '#'", p, got)
		}
		if err == nil && clean && got != p {
			t.Fatalf("SafePath(%q) = %q, want it unchanged", p, got)
		}
		if again := gateway.SafePath(got); again != got {
			t.Fatalf("SafePath is not idempotent: %q -> %q -> %q", p, got, again)
		}
	})
}
