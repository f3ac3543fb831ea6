package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Respond writes v as the response in the representation the request
// negotiated: compact JSON, or the browsable HTML page. A 200 answer to GET
// or HEAD carries a strong ETag of its bytes and answers If-None-Match with
// 304. HEAD gets every header and no body.
func Respond(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := marshal(v)
	if err != nil {
		logger(r.Context()).ErrorContext(r.Context(), "encode response", "error", err.Error())
		status, body = http.StatusInternalServerError, []byte(`{"detail":"A server error occurred."}`)
	}
	if len(body) > MaxAnswer {
		logger(r.Context()).ErrorContext(r.Context(), "answer over MaxAnswer: the route's size bound does not hold",
			"bytes", len(body), "max", MaxAnswer, "status", status)
		status, body = http.StatusInternalServerError, oversizeJSON
	}
	h := w.Header()
	contentType := "application/json"
	if renderingOf(r) == renderHTML {
		jsonLen := len(body)
		body = browsablePage(r, status, h, body)
		if len(body) > MaxAnswer {
			body = tooLargePage(r, status, h, jsonLen)
		}
		contentType = "text/html; charset=utf-8"
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	}
	RespondBody(w, r, status, contentType, body)
}

// RespondBody writes body as the response, of the given content type: what
// a route's own format (a CSV page) answers, with everything Respond does
// around the body (ETag and 304 on a 200 to GET or HEAD, no body on HEAD,
// Content-Length).
func RespondBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	if status == http.StatusOK && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		h.Set("ETag", etag)
		if etagMatches(r.Header.Values("If-None-Match"), etag) {
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if status == http.StatusNoContent {
		h.Del("Content-Type")
		w.WriteHeader(status)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if WritesBody(r) {
		_, _ = w.Write(body)
	}
}

// NoContent answers 204.
func NoContent(w http.ResponseWriter, r *http.Request) {
	Respond(w, r, http.StatusNoContent, nil)
}

func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		// Already JSON, made by the handler (a large answer built by
		// hand): no second pass over it.
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(headers []string, etag string) bool {
	for _, hv := range headers {
		for _, tag := range strings.Split(hv, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}
