// Package pages is the hosted responder's page and the public report
// (contract section 14), and the page's embedding: oEmbed and the frame
// policy from embed_origins (section 17); server-rendered HTML under a strict
// Content-Security-Policy, with one small same-origin script that pages,
// counts down and submits through the public JSON API (section 11).
package pages

import (
	"context"
	"net/http"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads; *store.Store implements it.
type Store interface {
	CountView(ctx context.Context, aid, fid, sid int64) error
	responding.Store
	SurveyIDByReportCode(ctx context.Context, code string) (int64, error)
	// SurveyIDByPreviewCode finds the survey Porsline's WordPress plugins
	// embed by its preview code (contract section 21).
	SurveyIDByPreviewCode(ctx context.Context, code string) (int64, error)
	Aggregates(ctx context.Context, sid int64) (store.Aggregate, error)
	// Survey reads the survey an appreciation page's button opens
	// (contract section 16).
	Survey(ctx context.Context, aid, sid int64) (survey.Survey, error)
	// MemberReaches tells whether the member who set that button's
	// survey still reaches it (contract section 19 as amended).
	MemberReaches(ctx context.Context, aid, sub, fid int64) (bool, error)
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	// Sealer starts and opens sessions for the plain form.
	Sealer responding.Sealer
	// Now is the clock of the survey's state and of the time to respond.
	Now func() time.Time
	// Config is the deployment's addresses (section 16).
	Config Config
	// Media is the bucket of the themes' background images (section 22);
	// nil answers their addresses 404.
	Media Media
}

// Media reads a theme's background image by its file name (the last
// segment of its address); backgrounds.Bucket implements it.
type Media interface {
	Media(ctx context.Context, name string) ([]byte, error)
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	st, svc, cfg := d.Store, responding.Service{Store: d.Store, Sealer: d.Sealer, Now: d.Now}, d.Config
	rt := api.NewRouter(nil)
	rt.AnswerRefusals(refusalPage(st))
	page := api.Route{Path: "/s/{url_slug}/", Name: "Responder Page", Public: true}
	rt.Handle(page.With("GET"), handleSurvey(st, d.Sealer, d.Now, cfg))
	rt.Handle(page.With("POST"), handleForm(st, svc, cfg))
	rt.Handle(api.Route{Method: "GET", Path: "/s/{url_slug}/sheet/{sheet_token}/", Name: "Answer Sheet", Public: true}, handleSheet(svc))
	rt.Handle(api.Route{Method: "GET", Path: "/r/{report_code}/", Name: "Report Page", Public: true}, handleReport(st))
	rt.Handle(api.Route{Method: "GET", Path: serviceWorkerPath + "/", Name: "Service Worker", Public: true}, handleServiceWorker())
	rt.Handle(api.Route{Method: "GET", Path: "/assets/{name}/", Name: "Page Asset", Public: true}, handleAsset())
	rt.Handle(api.Route{Method: "GET", Path: "/media/themes/thumbnails/{file}/", Name: "Theme Thumbnail", Public: true}, handleThemeThumbnail(d.Media))
	rt.Handle(api.Route{Method: "GET", Path: "/media/themes/images/{file}/", Name: "Theme Background Image", Public: true}, handleThemeImage(d.Media))
	rt.Handle(api.Route{Method: "GET", Path: "/", Name: "Home", Public: true}, handleHome())
	rt.Handle(api.Route{Method: "GET", Path: "/docs/", Name: "Documentation", Public: true}, handleDocsIndex())
	rt.Handle(api.Route{Method: "GET", Path: "/docs/{topic}/", Name: "Documentation Topic", Public: true}, handleDoc())
	rt.Handle(api.Route{Method: "GET", Path: "/docs/images/{file}/", Name: "Documentation Image", Public: true}, handleDocImage())
	// oEmbed's own format parameter: json (the router's), or xml, which
	// reaches the handler to answer 501.
	oembed := api.Route{Method: "GET", Path: "/api/oembed/", Name: "oEmbed", Public: true,
		Formats: []api.Format{{Name: "xml", MediaType: "text/xml+oembed"}}}
	rt.Handle(oembed, handleOEmbed(st, d.Now, cfg))
	// A hosted page's 404 is always the HTML page; oEmbed's is the API's.
	rt.NotFound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.Error(w, r, survey.ErrNotFound)
			return
		}
		writeNotFound(w, r)
	}))
	return rt
}
