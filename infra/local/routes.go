package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"surveyservice"
	"surveyservice/functions/account"
	"surveyservice/functions/elements"
	"surveyservice/functions/folders"
	"surveyservice/functions/pages"
	"surveyservice/functions/responders"
	"surveyservice/functions/responses"
	"surveyservice/functions/schema"
	"surveyservice/functions/settings"
	"surveyservice/functions/surveys"
	"surveyservice/functions/templates"
	"surveyservice/functions/themeimages"
	"surveyservice/functions/variables"
	"surveyservice/functions/webhooks"
	"surveyservice/internal/routing"
	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/exports"
	"surveyservice/shared/hosts"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

// config is what the local server reads from the environment, the sealer
// of personalised links and the exports bucket (nil where no route is
// served, as in the tests that only list routes).
type config struct {
	// templates are the catalog's base addresses (its Catalog is the
	// store); surveyURL is where personalised links point.
	templates templates.Deps
	surveyURL string
	hosts     hosts.Config
	// domains configures the custom domain routes (DOMAINS_TARGET_SUFFIX,
	// DNS_RESOLVER).
	domains account.Domains
	sealer  *links.Sealer
	// queue takes the owner's retries of webhook deliveries; guard checks
	// webhook URLs (loopback allowed locally, by configuration).
	queue webhooks.Queue
	guard webhook.Guard
	// exports is the bucket of response exports; exportJobs the queue of
	// export jobs.
	exports    *exports.Bucket
	exportJobs responses.JobQueue
	// pages are the hosted pages' addresses (section 16).
	pages pages.Config
	// uploads is the bucket of the responders' files (section 16).
	uploads *uploads.Bucket
	// sender sends email and SMS (kept in the local outbox too); limits
	// are the sending budgets (VERIFY_LIMITS).
	sender sending.Sender
	limits sending.Limits
	// smsDaily is the whole service's SMS a day (SMS_DAILY_LIMIT).
	smsDaily int64
}

// routers returns every resource group, each as its Lambda function serves
// it, by the function's logical id in template.yaml.
func routers(st *store.Store, cfg config) map[string]*api.Router {
	auth := api.NewAuthenticator(st)
	mediaURL := "" // the routes tests build the routers without a store
	if st != nil {
		mediaURL = st.MediaURL
	}
	var respUploads responders.Uploads
	var images backgrounds.Bucket // themes' background images (section 22), in the uploads bucket
	var media pages.Media
	var files surveys.Files
	owner := responses.Deps{Auth: auth, Store: st, Sealer: cfg.sealer, Exports: cfg.exports, Jobs: cfg.exportJobs, Now: time.Now}
	if cfg.uploads != nil { // a nil *uploads.Bucket in the interface would not be nil
		respUploads = cfg.uploads
		owner.Uploads = cfg.uploads
		images.Bucket = cfg.uploads
		media, files = images, images
	}
	return map[string]*api.Router{
		"TemplatesFunction":   templates.New(withCatalog(cfg.templates, st)),
		"AccountFunction":     account.New(account.Deps{Auth: auth, Store: st, Domains: cfg.domains}),
		"FoldersFunction":     folders.New(folders.Deps{Auth: auth, Store: st, Now: time.Now}),
		"SurveysFunction":     surveys.New(surveys.Deps{Auth: auth, Store: st, Now: time.Now, MediaURL: mediaURL, Files: files}),
		"ThemeImagesFunction": themeimages.New(themeimages.Deps{Auth: auth, Store: st, MediaURL: mediaURL, Backgrounds: images}),
		"ElementsFunction":    elements.New(elements.Deps{Auth: auth, Store: st}),
		"SettingsFunction":    settings.New(settings.Deps{Auth: auth, Store: st, Now: time.Now}),
		"RespondersFunction": responders.New(responders.Deps{Store: st, Sealer: cfg.sealer, Now: time.Now, Uploads: respUploads,
			Sender: cfg.sender, Budgets: sending.NewBudgets(st, time.Now).WithSMSDaily(cfg.smsDaily), Limits: cfg.limits}),
		"PagesFunction":     pages.New(pages.Deps{Store: st, Sealer: cfg.sealer, Now: time.Now, Config: cfg.pages, Media: media}),
		"VariablesFunction": variables.New(variables.Deps{Auth: auth, Store: st, Sealer: cfg.sealer, SurveyURL: cfg.surveyURL, Hosts: cfg.hosts}),
		"ResponsesFunction": responses.New(owner),
		"SchemaFunction":    schema.New(),
		"WebhooksFunction": webhooks.New(webhooks.Deps{Auth: auth, Store: st, Sealer: cfg.sealer, Queue: cfg.queue,
			Guard: cfg.guard}),
	}
}

// withCatalog is the catalog's dependencies with the store as its catalog.
func withCatalog(d templates.Deps, st *store.Store) templates.Deps {
	d.Catalog = st
	return d
}

// gatewayRoutes are the routes of template.yaml's HttpApi events, read from
// the embedded template (package surveyservice) when the server starts: per
// group its prefix without a final slash and a greedy child route, plus
// $default. A new function adds its events to template.yaml only.
var gatewayRoutes = mustGatewayRoutes(surveyservice.Template)

// mustGatewayRoutes is the route table of the template data; a template
// whose routes API Gateway would refuse is a programming error.
func mustGatewayRoutes(data []byte) *routing.Table {
	tpl, err := parseTemplate(data)
	if err == nil {
		var routes []routing.Route
		if routes, err = tpl.httpRoutes(); err == nil {
			var table *routing.Table
			if table, err = routing.New(routes); err == nil {
				return table
			}
		}
	}
	panic(fmt.Sprintf("local: template.yaml: %v", err))
}

// samTemplate is the part of template.yaml the local server and its tests
// read. CloudFormation tags (!Ref, !GetAtt, !Sub) decode as their plain
// values.
type samTemplate struct {
	Resources map[string]struct {
		Type           string         `yaml:"Type"`
		DeletionPolicy string         `yaml:"DeletionPolicy"`
		Metadata       map[string]any `yaml:"Metadata"`
		Properties     map[string]any `yaml:"Properties"`
	} `yaml:"Resources"`
}

func parseTemplate(data []byte) (samTemplate, error) {
	var tpl samTemplate
	err := yaml.Unmarshal(data, &tpl)
	return tpl, err
}

// httpRoutes lists the HttpApi events of the template's functions as routes
// targeting each function's logical id, sorted by function and path. Every
// event must be ANY (the function answers 405 itself) on the template's
// HttpApi; the error names each one that is not.
func (tpl samTemplate) httpRoutes() ([]routing.Route, error) {
	var out []routing.Route
	var errs []error
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		events, _ := res.Properties["Events"].(map[string]any)
		for evName, ev := range events {
			ev, _ := ev.(map[string]any)
			if ev["Type"] != "HttpApi" {
				continue
			}
			props, _ := ev["Properties"].(map[string]any)
			if props["Method"] != routing.Any {
				errs = append(errs, fmt.Errorf("%s.%s: Method %v, want ANY (the function answers 405 itself)", name, evName, props["Method"]))
			}
			if props["ApiId"] != "HttpApi" {
				errs = append(errs, fmt.Errorf("%s.%s: ApiId %v, want !Ref HttpApi", name, evName, props["ApiId"]))
			}
			method, _ := props["Method"].(string)
			path, _ := props["Path"].(string)
			out = append(out, routing.Route{Method: method, Path: path, Target: name})
		}
	}
	slices.SortFunc(out, func(a, b routing.Route) int {
		return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Path, b.Path))
	})
	return out, errors.Join(errs...)
}

// localReading is how `make run` treats a final slash. Every path of the
// contract reaches the same function under either reading (a test holds
// it); the events in events/ are written in this one too.
const localReading = routing.SlashIgnored

// serve is the whole API as the deployed HTTP API serves it: each request
// goes to the function its route in template.yaml targets, then through
// that function's own router (its 404, final-slash handling and access log),
// exactly as on Lambda.
func serve(fns map[string]*api.Router) http.Handler { return serveWithin(fns, nil) }

// serveWithin is serve with the functions that wrap names each mounted
// within it: `make run` serves the public functions within their limits
// (limited), tests that are not about limits without them (they share
// 127.0.0.1 and the counters' table).
func serveWithin(fns map[string]*api.Router, wrap map[string]func(*api.Router) *api.Router) http.Handler {
	targets := make(map[string]http.Handler, len(fns))
	for name, rt := range fns {
		if w := wrap[name]; w != nil {
			rt = w(rt)
		}
		targets[name] = asOnLambda(conform(api.Mount(rt)))
	}
	h, err := gatewayRoutes.Handler(localReading, targets)
	if err != nil {
		panic(fmt.Sprintf("local: %v", err)) // a route and routers() disagree: a programming error
	}
	return h
}

// asOnLambda serves a request as Lambda does: a client that leaves does
// not end its invocation, so the request's context is not cancelled when
// the connection closes (its values, the request id among them, kept).
// net/http cancels it, and a submission whose client gave up mid-way
// committed without its fence (its transaction cancelled in the SDK after
// DynamoDB took it), and the client's retry answered 410 for a response
// that stayed recorded (an outside test, hostile9, on make run).
func asOnLambda(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithoutCancel(r.Context())))
	})
}

// conform wraps each function's router, inside the limits as the router's
// own middleware is: this package's tests hold every answer of the
// routers to the OpenAPI document with it (testenv.Conform, set in
// TestMain); `make run` checks nothing.
var conform = func(h http.Handler) http.Handler { return h }

// limited are the public functions' limits per client and per survey
// (shared/ratelimit) at rates, counted in counters' table: each function's
// own constructor, the one its Lambda main serves.
func limited(counters ratelimit.Counters, rates ratelimit.Rates) map[string]func(*api.Router) *api.Router {
	return map[string]func(*api.Router) *api.Router{
		"RespondersFunction": func(rt *api.Router) *api.Router { return responders.Limited(rt, counters, rates, time.Now) },
		"PagesFunction":      func(rt *api.Router) *api.Router { return pages.Limited(rt, counters, rates, time.Now) },
	}
}
