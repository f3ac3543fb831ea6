package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
)

func TestCleanRequestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"GET /api/templates/%ZZ/ HTTP/1.1\r\nHost: x\r\n\r\n", "GET /api/templates/%25ZZ/ HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"GET /a/%4/?q=%zz&r=1 HTTP/1.1\r\n\r\n", "GET /a/%254/?q=%25zz&r=1 HTTP/1.1\r\n\r\n"},
		{"GET /api/templates/%D9%86/ HTTP/1.1\r\n\r\n", ""}, // valid escapes: untouched
		{`{"a": "%ZZ"}` + "\r\n", ""}, // a body, not a request line
		{"GET /%ZZ", ""},              // no whole line
	}
	for _, tt := range tests {
		got, ok := cleanRequestLine([]byte(tt.in))
		if tt.want == "" && ok || tt.want != "" && string(got) != tt.want {
			t.Errorf("cleanRequestLine(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestStrayEscapeAnswersTheContract: a request line with a '%' that starts
// no escape reaches the handler, on a new connection and on a kept-alive
// one, as API Gateway's adapter passes it on Lambda (Go's server alone
// answered its own plain-text 400).
func TestStrayEscapeAnswersTheContract(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"detail": "Not found.", "path": %q}`, r.URL.EscapedPath())
	})}
	go func() { _ = srv.Serve(strayEscapes{tcp}) }()
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for _, path := range []string{"/api/templates/%ZZ/", "/api/templates/ok/", "/api/templates/%ZZ/"} {
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" ||
			!strings.Contains(string(body), strings.ReplaceAll(path, "%ZZ", "%25ZZ")) {
			t.Errorf("GET %s: %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// TestRunStrayEscape is the hostile tester's /api/templates/%ZZ/ against
// make run itself: the contract's JSON 404, not Go's plain-text 400.
func TestRunStrayEscape(t *testing.T) {
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"TABLE_NAME": "strayescape", "PORT": freePort(t), "HOME": os.Getenv("HOME"),
	}
	_, base := startLocal(t, env)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/templates/%%ZZ/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" || string(body) != `{"detail":"Not found."}` {
		t.Errorf("GET /api/templates/%%ZZ/: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}
