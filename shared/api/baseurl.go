package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The API's own address (contract section 3, "More rules every route
// keeps"): every absolute URL the API writes (pagination's next and
// previous, export links, an export job's Location, oEmbed's discovery
// link) starts with the address the deployment configures, API_BASE_URL,
// never with the request's Host header, which any client chooses.

type baseKey struct{}

// BaseURLFromEnv reads API_BASE_URL, the API's address as its clients
// reach it (ParseBaseURL). A function that writes links does not start
// without it.
func BaseURLFromEnv(getenv func(string) string) (string, error) {
	base, err := ParseBaseURL(getenv("API_BASE_URL"))
	if err != nil {
		return "", fmt.Errorf("API_BASE_URL: %w", err)
	}
	return base, nil
}

// ParseBaseURL checks an address the service writes links under: an
// absolute http or https URL (a path prefix allowed), without query,
// fragment or user. It answers it without its final slash.
func ParseBaseURL(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("not set: the service's own address (https://api.example.com) is needed to write links")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an absolute http(s) address without query or fragment", s)
	}
	return strings.TrimSuffix(s, "/"), nil
}

// ServeAt serves h at base (ParseBaseURL's answer): the absolute URLs h
// writes (AbsoluteURL, BaseURL) start with it. Each function's main wraps
// its handler in it with API_BASE_URL, and `make run` with its own address.
func ServeAt(base string, h http.Handler) http.Handler {
	base = strings.TrimSuffix(base, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), baseKey{}, base)))
	})
}

// BaseURL is the address the request is served at (ServeAt), without a
// final slash; "" when none is configured, and the links written are then
// relative to the host, never built from its Host header.
func BaseURL(r *http.Request) string {
	base, _ := r.Context().Value(baseKey{}).(string)
	return base
}
