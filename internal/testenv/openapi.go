package testenv

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"surveyservice/shared/api"
	"surveyservice/shared/openapi"
)

// conformance holds every response the integration tests receive to the
// OpenAPI document (shared/openapi), so that the document cannot lie: a
// response it does not describe fails the test binary.
type conformance struct {
	router  routers.Router
	mu      sync.Mutex
	errs    map[string]bool
	checked int
}

func newConformance() (*conformance, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapi.YAML)
	if err != nil {
		return nil, fmt.Errorf("testenv: load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("testenv: the OpenAPI document is invalid: %w", err)
	}
	doc.Servers = openapi3.Servers{{URL: "/"}} // match any host the tests use
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("testenv: route the OpenAPI document: %w", err)
	}
	return &conformance{router: router, errs: map[string]bool{}}, nil
}

// check validates one response against the document's description of its
// route, method and status. Requests the document has no route for (the
// shared edge's own tests, unknown paths), bodiless answers (HEAD, 304)
// and the 499 of a request its client gave up on (logged so, received by
// nobody: a browser test's page that moved on, a loaded machine) are not
// checked.
func (c *conformance) check(r *http.Request, status int, header http.Header, body []byte) {
	if r.Method == http.MethodHead || status == http.StatusNotModified || status == api.StatusClientClosedRequest {
		return
	}
	req := r.Clone(context.Background())
	if !strings.HasSuffix(req.URL.Path, "/") {
		req.URL.Path += "/"
		if req.URL.RawPath != "" {
			req.URL.RawPath += "/"
		}
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: status,
		Header: header,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            false,
		},
	}
	if strings.HasPrefix(header.Get("Content-Type"), "text/html") {
		in.Options.ExcludeResponseBody = true
	}
	err = openapi3filter.ValidateResponse(context.Background(), in)
	c.mu.Lock()
	c.checked++
	c.mu.Unlock()
	if err != nil {
		msg := err.Error()
		if len(msg) > 600 {
			msg = msg[:600] + "..."
		}
		c.fail(fmt.Sprintf("%s %s -> %d: %s", r.Method, route.Path, status, msg))
	}
}

// fail records one response the document does not describe.
func (c *conformance) fail(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs[msg] = true
}

// report prints what the document got wrong, and answers whether all was
// well.
func (c *conformance) report(w io.Writer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) == 0 {
		return true
	}
	lines := make([]string, 0, len(c.errs))
	for e := range c.errs {
		lines = append(lines, e)
	}
	sort.Strings(lines)
	fmt.Fprintf(w, "testenv: %d responses of %d checked do not match shared/openapi/openapi.yaml:\n", len(lines), c.checked)
	for _, l := range lines {
		fmt.Fprintln(w, "  "+l)
	}
	return false
}

// installed is the binary's conformance check, nil when none runs
// (benchmarks, -short, a binary whose TestMain is not Main).
var installed atomic.Pointer[conformance]

func installConformance() (*conformance, error) {
	c, err := newConformance()
	if err != nil {
		return nil, err
	}
	installed.Store(c)
	return c, nil
}

// StopConformance turns the check of Conform off for the rest of the
// binary: a benchmark that times handlers after the tests checked them.
func StopConformance() { installed.Store(nil) }

// Conform holds every response h sends to the OpenAPI document while the
// binary's check runs (Main installs it): tests wrap each handler they
// serve in it, as `make run` and the Lambdas, which check nothing, do not.
// A gzipped answer is checked as the client reads it, uncompressed.
func Conform(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := installed.Load()
		if c == nil {
			h.ServeHTTP(w, r)
			return
		}
		rec := &recordingWriter{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		body := rec.body.Bytes()
		if w.Header().Get("Content-Encoding") == "gzip" && len(body) > 0 {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				c.fail(fmt.Sprintf("%s %s -> %d: unreadable gzip body: %v", r.Method, r.URL.Path, status, err))
				return
			}
		}
		c.check(r, status, w.Header(), body)
	})
}

// recordingWriter keeps the status and the body a handler writes, and
// passes everything on.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Flush passes a streamed answer's flush on.
func (w *recordingWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
