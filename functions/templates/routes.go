// Package templates is the public template catalog: one template by its
// slug, and the paginated, filterable list. No route needs an API key.
package templates

import (
	"context"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Catalog is what the group reads; *store.Store implements it.
type Catalog interface {
	TemplateBySlug(ctx context.Context, slug string) (survey.Template, error)
	Catalog(ctx context.Context) ([]survey.Template, error)
}

// Deps are the group's dependencies: the catalog and its base addresses,
// shown on the browsable page.
type Deps struct {
	Catalog      Catalog
	MediaURL     string // where /media/ paths of thumbnail_image resolve
	TemplatesURL string // where embedding_link points
}

// cacheControl lets browsers and shared caches keep catalog answers a
// short while: the catalog changes only on an import.
const cacheControl = "public, max-age=60, s-maxage=300"

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/templates/", Name: "Template List", Public: true, CORS: true}, handleList(d))
	rt.Handle(api.Route{Method: "GET", Path: "/api/templates/{url_slug}/", Name: "Template Detail", Public: true, CORS: true}, handleDetail(d))
	return rt
}
