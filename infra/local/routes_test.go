package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/infra/seed"
	"surveyservice/internal/routing"
	"surveyservice/shared/sending"
	"surveyservice/shared/uploads"
)

// TestGatewayRoutesAreTemplateYAML holds the table `make run` dispatches
// with (read from the template embedded at build time) to template.yaml's
// HttpApi events as on disk, and both to the functions.
func TestGatewayRoutesAreTemplateYAML(t *testing.T) {
	t.Parallel()
	got := templateRoutes(t, loadTemplate(t))
	for _, r := range got {
		// The root "/" is a route of its own on API Gateway; any other
		// path that ends with / is not.
		if r.Path != routing.Default && r.Path != "/" && strings.HasSuffix(r.Path, "/") {
			t.Errorf("%s: route %q ends with /: API Gateway creates no such route (SAM drops it silently)", r.Target, r.Key())
		}
	}
	if _, err := routing.New(got); err != nil {
		t.Errorf("template.yaml: %v", err)
	}
	key := func(r routing.Route) string { return r.Target + " " + r.Key() }
	var have, want []string
	for _, r := range got {
		have = append(have, key(r))
	}
	for _, r := range gatewayRoutes.Routes() {
		want = append(want, key(r))
	}
	sort.Strings(have)
	sort.Strings(want)
	if !slices.Equal(have, want) {
		t.Errorf("template.yaml routes\n  %s\ngatewayRoutes (the embedded template)\n  %s", strings.Join(have, "\n  "), strings.Join(want, "\n  "))
	}
	fns := routers(nil, routesConfig())
	targeted := map[string]bool{}
	for _, r := range got {
		targeted[r.Target] = true
		if fns[r.Target] == nil {
			t.Errorf("template.yaml routes %q to %s, which routers() does not know", r.Key(), r.Target)
		}
	}
	for fn := range fns {
		if !targeted[fn] {
			t.Errorf("%s serves routes but template.yaml routes nothing to it", fn)
		}
	}
}

// deployedRoutes are the routes API Gateway creates from template.yaml:
// none whose path ends in "/" (TestGatewayRoutesAreTemplateYAML fails on
// those; here they are left out, as on AWS, so the paths they were meant to
// serve show where they really land).
func deployedRoutes(t *testing.T) *routing.Table {
	t.Helper()
	routes := slices.DeleteFunc(templateRoutes(t, loadTemplate(t)), func(r routing.Route) bool {
		return r.Path != routing.Default && r.Path != "/" && strings.HasSuffix(r.Path, "/")
	})
	table, err := routing.New(routes)
	if err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	return table
}

// sampleValues are real values for each path variable of the contract:
// the smallest id and the largest 32-bit one, and every slug of the sample
// catalog (Persian and Arabic ones among them), percent-encoded as clients
// send them and raw.
func sampleValues(t *testing.T) map[string][]string {
	t.Helper()
	var catalog []struct {
		URLSlug string `json:"url_slug"`
	}
	if err := json.Unmarshal(seed.Templates, &catalog); err != nil {
		t.Fatal(err)
	}
	ids := []string{"1", "2147483647"}
	slugs := []string{"Ab3De5Gh7J"} // a survey's public slug
	for _, c := range catalog {
		slugs = append(slugs, url.PathEscape(c.URLSlug))
		if e := url.PathEscape(c.URLSlug); e != c.URLSlug {
			slugs = append(slugs, c.URLSlug)
		}
	}
	out := map[string][]string{"url_slug": slugs, "token": {"AQIDBAUGBwgJCgsMDQ4PEA"}, "export_id": {"0123456789abcdef0123456789abcdef"}, "sheet_token": {"AQIDBAUGBwgJCgsMDQ4PEA"},
		"report_code": {"Ab3De5Gh7JkLmN0p"}, "name": {"app.0123456789ab.css", "app.0123456789ab.js"}, "topic": {"api", "operating"},
		"lang": {"en", "fa"}, "file": {"page.png"}}
	for _, name := range []string{"survey_id", "folder_id", "question_id", "variable_id", "webhook_id", "delivery_id", "response_id", "notification_id", "sub_user", "id", "domain_id",
		"quota_id", "theme_id"} {
		out[name] = ids
	}
	return out
}

// instances writes path (a contract path such as /api/folders/{folder_id}/)
// with every combination of the sample values.
func instances(t *testing.T, path string, values map[string][]string) []string {
	t.Helper()
	if path == "/" {
		return []string{""} // the root: "/" alone
	}
	out := []string{""}
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		opts := []string{seg}
		if strings.HasPrefix(seg, "{") {
			opts = values[strings.Trim(seg, "{}")]
			if len(opts) == 0 {
				t.Fatalf("%s: no sample values for %s", path, seg)
			}
		}
		var next []string
		for _, prefix := range out {
			for _, o := range opts {
				next = append(next, prefix+"/"+o)
			}
		}
		out = next
	}
	return out
}

// TestContractPathsReachTheirFunction evaluates every path every function
// serves, with real ids and slugs, with and without the final slash,
// against template.yaml's routes under both readings of a final slash
// (package routing): API Gateway must invoke the function that serves it,
// and that function's router must serve it. Every route of the template
// must be the one selected for some path.
func TestContractPathsReachTheirFunction(t *testing.T) {
	t.Parallel()
	table := deployedRoutes(t)
	values := sampleValues(t)
	selected := map[string]bool{}
	n := 0
	for fn, rt := range routers(nil, routesConfig()) {
		for _, route := range rt.Routes() {
			for _, p := range instances(t, route.Path, values) {
				paths := []string{p + "/", p}
				if p == "" {
					paths = paths[:1]
				}
				for _, path := range paths {
					for _, reading := range routing.Readings {
						n++
						m, ok := table.Select(route.Method, path, reading)
						if !ok || m.Route.Target != fn {
							t.Errorf("%s %s (%v): API Gateway invokes %q through %q, want %s", route.Method, path, reading, m.Route.Target, m.Route.Key(), fn)
							continue
						}
						selected[m.Route.Key()] = true
					}
					// The function's router serves the path (OPTIONS needs no
					// store: 200 on a public route, 401 without a key otherwise).
					rec := httptest.NewRecorder()
					rt.ServeHTTP(rec, httptest.NewRequest("OPTIONS", path, nil))
					if want := map[bool]int{true: 200, false: 401}[route.Public]; rec.Code != want || !strings.Contains(rec.Header().Get("Allow"), route.Method) {
						t.Errorf("%s: OPTIONS %s = %d Allow %q, want %d allowing %s", fn, path, rec.Code, rec.Header().Get("Allow"), want, route.Method)
					}
				}
			}
		}
	}
	for _, r := range table.Routes() {
		if r.Path != routing.Default && !selected[r.Key()] {
			t.Errorf("route %q (%s) serves no path of the contract under either reading", r.Key(), r.Target)
		}
	}
	t.Logf("%d path evaluations", n)
}

// TestUnknownPathsAnswer404: a path outside the contract lands on $default
// or on a function whose router answers the JSON 404 for it, under both
// readings.
func TestUnknownPathsAnswer404(t *testing.T) {
	t.Parallel()
	table := deployedRoutes(t)
	fns := routers(nil, routesConfig())
	// "/" is the home page (TestHome); these are the API's.
	for _, path := range []string{
		"/api", "/api/", "/api/nope/", "/api/nope", "/API/folders/", "/api/Folders/",
		"/api/surveys/", "/api/surveys/5/", "/api/surveys/5/unknown/", "/api/surveys/5/settings/x/", "/api/surveys/5/settings/authentication-codes/x/",
		"/api/surveys/5/variables/7/x/", "/api/surveys//settings/", "/api/v2/", "/api/v2/surveys/5/x/", "/api/v2/surveys/5/restore/x/",
		"/api/v2/surveys/5/questions/7/x/", "/api/v2/surveys//questions/", "/api/v2/surveys/5//", "/api/folders/12/x/", "/api/folders//",
		"/api/folders/12//", "/api/folders/%2F/", "/api/templates/a/b/", "/api/templates//", "/api/whoami/x/", "/api/whoami//",
		"/api/schema/x/", "/api/public/", "/api/public/surveys", "/api/public/surveys/",
		"/api/public/surveys/Ab3De5Gh7J/x/", "/api/public/surveys/Ab3De5Gh7J/authenticate/x", "/api/folders/../templates/",
		"/api/folders/./",
	} {
		for _, reading := range routing.Readings {
			m, ok := table.Select("GET", path, reading)
			if !ok {
				t.Errorf("%s (%v): no route, not even $default", path, reading)
				continue
			}
			rec := httptest.NewRecorder()
			fns[m.Route.Target].ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code != http.StatusNotFound || strings.TrimSpace(rec.Body.String()) != `{"detail":"Not found."}` {
				t.Errorf("%s (%v) reaches %s through %q, which answers %d %s; want the JSON 404", path, reading, m.Route.Target, m.Route.Key(), rec.Code, rec.Body)
			}
		}
	}
}

// TestLocalServerRoutesAsTheTemplate: `make run` sends each request to the
// function template.yaml's routes select, and to no other.
func TestLocalServerRoutesAsTheTemplate(t *testing.T) {
	t.Parallel()
	calls := map[string]int{}
	fns := routers(nil, routesConfig())
	targets := map[string]http.Handler{}
	for name := range fns {
		targets[name] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls[name]++ })
	}
	h, err := gatewayRoutes.Handler(localReading, targets)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/api/templates/":                   "TemplatesFunction",
		"/api/templates/%D9%86%D8%B8/":      "TemplatesFunction",
		"/api/whoami":                       "AccountFunction",
		"/api/folders/12/":                  "FoldersFunction",
		"/api/v2/surveys/12/restore":        "SurveysFunction",
		"/api/v2/surveys/12/questions/":     "ElementsFunction",
		"/api/v2/surveys/12/questions/3/":   "ElementsFunction",
		"/api/surveys/12/settings/":         "SettingsFunction",
		"/api/surveys/12/variables/hashes/": "VariablesFunction",
		"/api/public/surveys/x/variables/":  "RespondersFunction",
		"/api/schema/":                      "SchemaFunction",
		"/api/themes/5/background-image/":   "ThemeImagesFunction",
		"/api/themes/5/":                    "SurveysFunction",
		"/api/nope/":                        "AccountFunction",
	} {
		clear(calls)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		if len(calls) != 1 || calls[want] != 1 {
			t.Errorf("GET %s reached %v, want %s", path, calls, want)
		}
	}
}

// TestLocalServerKeepsTheEdge: through the dispatch, the functions keep
// the shared edge's behaviour (final slash optional, JSON 404, 405 with
// Allow, security headers, request id).
func TestLocalServerKeepsTheEdge(t *testing.T) {
	t.Parallel()
	h := serve(routers(nil, routesConfig()))
	for _, tt := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"OPTIONS", "/api/schema", 200, ""},
		{"OPTIONS", "/api/schema/", 200, ""},
		{"GET", "/api/nope/", 404, `{"detail":"Not found."}`},
		{"GET", "/api/folders/12/x/", 404, `{"detail":"Not found."}`},
		{"POST", "/api/schema/", 405, `{"detail":"Method \"POST\" not allowed."}`},
		{"GET", "/api/whoami/", 401, `{"detail":"Authentication credentials were not provided."}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status || tt.body != "" && strings.TrimSpace(rec.Body.String()) != tt.body {
			t.Errorf("%s %s = %d %s, want %d %s", tt.method, tt.path, rec.Code, rec.Body, tt.status, tt.body)
		}
		if rec.Header().Get("X-Request-Id") == "" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: headers %v", tt.method, tt.path, rec.Header())
		}
	}
}

// fixtureFunction is the function whose events a directory of events/ holds.
func fixtureFunction(dir string) string {
	return strings.ToUpper(dir[:1]) + dir[1:] + "Function"
}

// TestEventsMatchTheRoutes: each fixture in events/ carries the routeKey and
// pathParameters API Gateway sends for its rawPath under the table's routes
// (written in localReading), and its path reaches the fixture's function
// under both readings.
func TestEventsMatchTheRoutes(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../events/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		dir := filepath.Base(filepath.Dir(file))
		if dir == "sweeper" || dir == "retrier" {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := dir + "/" + filepath.Base(file)
		method := ev.RequestContext.HTTP.Method
		if method == "" {
			continue // a queue or stream event, not an HTTP one
		}
		m, ok := gatewayRoutes.Select(method, ev.RawPath, localReading)
		if !ok || ev.RouteKey != m.Route.Key() || ev.RequestContext.RouteKey != m.Route.Key() {
			t.Errorf("%s: routeKey %q, requestContext.routeKey %q; API Gateway selects %q for %s", name, ev.RouteKey, ev.RequestContext.RouteKey, m.Route.Key(), ev.RawPath)
		}
		if !maps.Equal(ev.PathParameters, m.Parameters) {
			t.Errorf("%s: pathParameters %v, API Gateway sends %v", name, ev.PathParameters, m.Parameters)
		}
		if p, err := url.PathUnescape(ev.RawPath); err == nil && ev.RequestContext.HTTP.Path != p {
			t.Errorf("%s: requestContext.http.path %q, want the decoded rawPath %q", name, ev.RequestContext.HTTP.Path, p)
		}
		for _, reading := range routing.Readings {
			if m, _ := gatewayRoutes.Select(method, ev.RawPath, reading); m.Route.Target != fixtureFunction(dir) {
				t.Errorf("%s (%v): %s reaches %s, want %s", name, reading, ev.RawPath, m.Route.Target, fixtureFunction(dir))
			}
		}
	}
}

// TestTemplateRoutesRefused: the local server refuses, at start-up, an
// HttpApi event the deployed API would not serve as the table assumes.
func TestTemplateRoutesRefused(t *testing.T) {
	t.Parallel()
	for name, event := range map[string]string{
		"MethodNotANY": "Method: GET, Path: /api/x, ApiId: !Ref HttpApi",
		"OtherAPI":     "Method: ANY, Path: /api/x, ApiId: !Ref OtherApi",
	} {
		t.Run(name, func(t *testing.T) {
			tpl, err := parseTemplate([]byte("Resources:\n  XFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n" +
				"      Events:\n        X:\n          Type: HttpApi\n          Properties: {" + event + "}\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tpl.httpRoutes(); err == nil {
				t.Errorf("%s: no error", event)
			}
		})
	}
}

// routesConfig is the configuration the route tests serve: every optional
// route on (the uploads bucket and the sender make no call until a
// request needs them).
func routesConfig() config {
	return config{uploads: uploads.New(aws.Config{}, "routes"), sender: sending.New(aws.Config{}, sending.Config{})}
}
