package api

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"surveyservice/shared/survey"
)

// Route is one method on one path of the API.
type Route struct {
	Method string
	// Path is the route as the contract writes it, with its final slash:
	// "/api/templates/{url_slug}/". (template.yaml routes each group's
	// paths to its function by prefix; see internal/routing.)
	Path string
	// Name is the DRF view name, shown by OPTIONS and the browsable page.
	Name string
	// Public routes need no API key and ignore any Authorization header.
	Public bool
	// CORS lets any web origin read the path (public, read-only routes
	// only): the answers carry Access-Control-Allow-Origin: * and a
	// preflight OPTIONS is answered.
	CORS bool
	// KeyOptional lets this method serve a request that carries no
	// Authorization header at all, without an account (AccountFrom is
	// false) for the handler to decide: the plugins' sign-in sends its key
	// in the body (contract section 21). A header, when sent, is checked
	// as on every other route.
	KeyOptional bool
	// Formats are representations the path offers beyond JSON and the
	// browsable page, which its handlers write themselves (see
	// RequestedFormat); any other ?format= stays 404.
	Formats []Format
	// Access is how the method is authorized beyond the key (access.go);
	// the zero value derives it from the method and path.
	Access Access
}

// methodOrder is DRF's order of methods in the Allow header.
var methodOrder = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// Router holds one resource group's routes. It is an http.Handler that
// serves them with every behaviour of the shared edge; Mount serves several.
type Router struct {
	auth      *Authenticator
	endpoints map[string]*endpoint
	routes    []Route

	// notFound answers the 404s the router gives itself; nil: the API's
	// JSON (or browsable) 404.
	notFound http.Handler

	once    sync.Once
	mounted http.Handler

	gate    Gate
	refusal func(w http.ResponseWriter, r *http.Request, err error)
}

// Gate decides, before any route of a router, whether a request is
// served: nil serves it, an error (a limit's 429) is the answer. It runs
// inside the request log, so a refused request is logged with its id,
// route, status and duration as every other.
type Gate func(r *http.Request) error

// Guard puts gate in front of every route of the router, and of the paths
// it does not know; install it before the router serves.
func (rt *Router) Guard(gate Gate) { rt.gate = gate }

// AnswerRefusals makes the router answer its gate's refusals with answer
// rather than the contract's JSON: a group of pages answers a page. answer
// may fall back to Error.
func (rt *Router) AnswerRefusals(answer func(w http.ResponseWriter, r *http.Request, err error)) {
	rt.refusal = answer
}

// passes runs the router's gate: true when the request goes on, else the
// refusal is answered.
func (rt *Router) passes(w http.ResponseWriter, r *http.Request) bool {
	if rt == nil || rt.gate == nil {
		return true
	}
	err := rt.gate(r)
	if err == nil {
		return true
	}
	if rt.refusal != nil {
		rt.refusal(w, r, err)
	} else {
		Error(w, r, err)
	}
	return false
}

// NotFound makes h the answer to the 404s the router gives itself (a path
// it does not serve, a format none of its routes renders): the hosted
// pages answer their HTML page, never the API's JSON.
func (rt *Router) NotFound(h http.Handler) { rt.notFound = h }

// NewRouter returns an empty router; auth checks the API key of the
// non-public routes and may be nil for a group that has none.
func NewRouter(auth *Authenticator) *Router {
	return &Router{auth: auth, endpoints: map[string]*endpoint{}}
}

// Handle adds a route. It panics on a route that contradicts an earlier one,
// as http.ServeMux does: that is a programming error found at start.
func (rt *Router) Handle(route Route, h http.Handler) {
	if !strings.HasPrefix(route.Path, "/") || !strings.HasSuffix(route.Path, "/") {
		panic(fmt.Sprintf("api: route path %q must start and end with /", route.Path))
	}
	e, ok := rt.endpoints[route.Path]
	if !ok {
		if route.CORS && !route.Public {
			panic(fmt.Sprintf("api: route %s %s: CORS is for public routes only", route.Method, route.Path))
		}
		e = &endpoint{path: route.Path, name: route.Name, public: route.Public, cors: route.CORS, methods: map[string]http.Handler{},
			access:  map[string]Access{},
			renders: append([]string(nil), Renders...), router: rt}
		if !route.Public {
			if rt.auth == nil {
				panic(fmt.Sprintf("api: route %s %s needs an Authenticator", route.Method, route.Path))
			}
			e.auth = rt.auth
		}
		rt.endpoints[route.Path] = e
	}
	if e.public != route.Public || e.name != route.Name || e.cors != route.CORS {
		panic(fmt.Sprintf("api: route %s %s disagrees with the path's name or publicity", route.Method, route.Path))
	}
	if _, dup := e.methods[route.Method]; dup {
		panic(fmt.Sprintf("api: route %s %s registered twice", route.Method, route.Path))
	}
	for _, f := range route.Formats {
		if !slices.Contains(e.formats, f) {
			e.formats = append(e.formats, f)
			e.renders = append(e.renders, f.MediaType)
		}
	}
	e.methods[route.Method] = h
	if route.Access != AccessDerived {
		if route.Public {
			panic(fmt.Sprintf("api: route %s %s: Access is for routes with a key", route.Method, route.Path))
		}
		e.access[route.Method] = route.Access
	}
	if route.KeyOptional {
		if route.Public {
			panic(fmt.Sprintf("api: route %s %s: KeyOptional is for routes with a key", route.Method, route.Path))
		}
		e.keyOptional = append(e.keyOptional, route.Method)
	}
	e.allow = allowHeader(e.methods)
	rt.routes = append(rt.routes, route)
}

// Routes lists the routes, in the order they were added.
func (rt *Router) Routes() []Route { return append([]Route(nil), rt.routes...) }

// ServeHTTP serves the router's own routes, as its Lambda function does.
// The handler is built once, on the first request, so a container serves
// every request with the same mux.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt.once.Do(func() { rt.mounted = Mount(rt) })
	rt.mounted.ServeHTTP(w, r)
}

// Mount serves the routes of one or several groups on one handler; paths
// are matched with or without their final slash, unknown paths answer 404,
// and every request is logged. `make run` mounts each group on its own, as
// its Lambda function serves it, behind the routes of template.yaml.
func Mount(routers ...*Router) http.Handler {
	mux := http.NewServeMux()
	var paths []string
	for _, rt := range routers {
		for path, e := range rt.endpoints {
			served := *e
			served.router = rt
			mux.Handle(path+"{$}", &served)
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	var notFound http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Error(w, r, survey.ErrNotFound)
	})
	for _, rt := range routers {
		if rt.notFound != nil {
			notFound = rt.notFound
			break
		}
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routers {
			if !rt.passes(w, r) {
				return
			}
		}
		notFound.ServeHTTP(w, r)
	}))
	return Compress(Observe(Recover(secure(Deadline(DeadlineMargin)(withFinalSlash(mux))))))
}

func allowHeader(methods map[string]http.Handler) string {
	var allow []string
	for _, m := range methodOrder {
		_, ok := methods[m]
		if ok || m == "OPTIONS" || (m == "HEAD" && methods["GET"] != nil) {
			allow = append(allow, m)
		}
	}
	return strings.Join(allow, ", ")
}

type endpoint struct {
	path    string
	name    string
	public  bool
	cors    bool
	auth    *Authenticator
	allow   string
	methods map[string]http.Handler
	access  map[string]Access // the methods' declared Access
	formats []Format          // the path's own formats
	// keyOptional are the methods that serve a request without an
	// Authorization header (Route.KeyOptional).
	keyOptional []string
	renders     []string // what OPTIONS reports
	router      *Router  // whose gate the path passes and whose NotFound answers an unknown format (set by Mount)
}

// ServeHTTP runs DRF's order: content negotiation (404 on an unknown format,
// 406), then authentication, then the method (405).
func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setRoute(r.Context(), e.path, e.name)
	h := w.Header()
	h.Set("Allow", e.allow)
	h.Set("Vary", "Accept")
	if e.cors {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "Allow, ETag, X-Request-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", e.allow)
			h.Set("Access-Control-Allow-Headers", "Accept, Content-Type, If-None-Match")
			h.Set("Access-Control-Max-Age", "86400")
		}
	}
	if !e.router.passes(w, r) {
		return
	}
	rend, err := negotiate(r, e.formats)
	r = withRendering(r, rend)
	if err != nil && e.router.notFound != nil && survey.ErrorCode(err) == survey.ENOTFOUND {
		e.router.notFound.ServeHTTP(w, r)
		return
	}
	if err != nil {
		Error(w, r, err)
		return
	}
	next, ok := e.methods[r.Method]
	access := e.access[r.Method]
	switch {
	case ok:
	case r.Method == http.MethodHead && e.methods[http.MethodGet] != nil:
		next = e.methods[http.MethodGet]
		access = e.access[http.MethodGet]
	case r.Method == http.MethodOptions:
		next = http.HandlerFunc(e.options)
	default:
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Error(w, r, survey.Errorf(survey.EMETHOD, "Method %q not allowed.", r.Method))
		})
	}
	if e.auth != nil && !(len(r.Header.Values("Authorization")) == 0 && ok && slices.Contains(e.keyOptional, r.Method)) {
		if ok || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			next = e.auth.authorize(access, scopeOf(e.path), e.path, e.name, next)
		} else {
			next = e.auth.Require(next) // 405 after the key, before any decision (as DRF)
		}
	}
	next.ServeHTTP(w, r)
}

// options answers DRF's metadata for the view.
func (e *endpoint) options(w http.ResponseWriter, r *http.Request) {
	Respond(w, r, http.StatusOK, metadata{Name: e.name, Renders: e.renders, Parses: Parses})
}

// metadata is DRF's SimpleMetadata answer to OPTIONS, in its key order.
type metadata struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Renders     []string `json:"renders"`
	Parses      []string `json:"parses"`
}

// withFinalSlash serves /a/b as /a/b/ (no redirect), as the contract says.
// A path that is not clean (//a, /a/../b, /a/./b) is not a route: it answers
// 404 here rather than the ServeMux redirect.
func withFinalSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || path.Clean(p) != strings.TrimSuffix(p, "/") && p != "/" {
			Error(w, r, survey.ErrNotFound)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") && !strings.HasSuffix(r.URL.EscapedPath(), "/") {
			// A final "%2F" is not the path's final "/" (http.ServeMux
			// would redirect to the decoded path): 404 as a doubled "/".
			Error(w, r, survey.ErrNotFound)
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/") {
			r2 := r.Clone(r.Context())
			r2.URL.Path += "/"
			if r2.URL.RawPath != "" {
				r2.URL.RawPath += "/"
			}
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

// routeInfo is filled by the endpoint for the access log.
type routeInfo struct{ path, name string }

type routeKey struct{}

func setRoute(ctx context.Context, path, name string) {
	if ri, ok := ctx.Value(routeKey{}).(*routeInfo); ok {
		ri.path, ri.name = path, name
	}
}

func routeName(r *http.Request) string {
	if ri, ok := r.Context().Value(routeKey{}).(*routeInfo); ok && ri.name != "" {
		return ri.name
	}
	return "Not Found"
}

// With returns the route with the method set, so that a group declares a
// path once and each of its methods from it.
func (r Route) With(method string) Route {
	r.Method = method
	return r
}
