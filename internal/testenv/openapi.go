package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

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
// shared edge's own tests, unknown paths) and bodiless answers (HEAD, 304)
// are not checked.
func (c *conformance) check(r *http.Request, status int, header http.Header, body []byte) {
	if r.Method == http.MethodHead || status == http.StatusNotModified {
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
	defer c.mu.Unlock()
	c.checked++
	if err != nil {
		msg := err.Error()
		if len(msg) > 600 {
			msg = msg[:600] + "..."
		}
		c.errs[fmt.Sprintf("%s %s -> %d: %s", r.Method, route.Path, status, msg)] = true
	}
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

func installConformance() (*conformance, error) {
	c, err := newConformance()
	if err != nil {
		return nil, err
	}
	api.CheckResponses(c.check)
	return c, nil
}
