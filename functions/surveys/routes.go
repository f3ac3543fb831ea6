// Package surveys is the owner's surveys: create (empty, or from a
// template), copy, read the full detail, update (rename, move, change
// language), move to the trash and restore.
package surveys

import (
	"context"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	CreateSurvey(ctx context.Context, sv survey.Survey) (survey.Survey, error)
	SurveyCollection(ctx context.Context, aid, sid int64) (store.SurveyCollection, error)
	UpdateSurvey(ctx context.Context, aid, sid int64, u store.SurveyUpdate) error
	TrashSurvey(ctx context.Context, aid, sid int64) error
	RestoreSurvey(ctx context.Context, aid, sid int64, folderID *int64) error
	TemplateSurvey(ctx context.Context, ref string) (title string, sid int64, err error)
	CopySource(ctx context.Context, from, sid int64) (store.CopySource, error)
	CopySurvey(ctx context.Context, src store.CopySource, spec store.CopySpec) (store.CopyResult, error)
	// AccountAddresses are the account's subdomain every survey shows and
	// its active custom domains (custom_urls), in one read.
	AccountAddresses(ctx context.Context, aid int64) (*survey.Subdomain, []string, error)
	Themes(ctx context.Context, aid int64) ([]survey.Theme, error)
	Theme(ctx context.Context, aid, tid int64) (survey.Theme, error)
	CreateTheme(ctx context.Context, aid int64, t survey.Theme, hasOrder bool) (survey.Theme, error)
	UpdateTheme(ctx context.Context, aid int64, t survey.Theme) error
	DeleteTheme(ctx context.Context, aid, tid int64) error
	SetSurveyTheme(ctx context.Context, aid, sid, tid int64) error
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth  *api.Authenticator
	Store Store
	// Now is the clock that decides whether a survey with an expiration
	// date is closed; nil means time.Now.
	Now func() time.Time
	// MediaURL is where themes' /media/ paths resolve (MEDIA_URL).
	MediaURL string
	// Files deletes a deleted theme's background image files (the
	// uploads bucket; the themeimages function makes them). Nil leaves
	// them.
	Files Files
}

// Files removes objects of the uploads bucket; backgrounds.Bucket
// implements it.
type Files interface {
	Delete(ctx context.Context, keys []string) error
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	if d.Now == nil {
		d.Now = time.Now
	}
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store, now: d.Now, mediaURL: d.MediaURL, files: d.Files}
	list := api.Route{Path: "/api/v2/surveys/", Name: "Survey List"}
	detail := api.Route{Path: "/api/v2/surveys/{survey_id}/", Name: "Survey Detail"}
	restore := api.Route{Path: "/api/v2/surveys/{survey_id}/restore/", Name: "Survey Restore"}
	post := list.With("POST")
	post.Access = api.AccessFolderInBody // the folder_id of the body is checked (api.FolderWritable)
	rt.Handle(post, h.create())
	rt.Handle(detail.With("GET"), h.get())
	rt.Handle(detail.With("PATCH"), h.update())
	rt.Handle(detail.With("DELETE"), h.trash())
	rt.Handle(restore.With("POST"), h.restore())
	rt.Handle(api.Route{Method: "POST", Path: "/api/v2/surveys/{survey_id}/copy/", Name: "Survey Copy"}, h.copy())
	// The theme library (contract section 22): an editor of any folder
	// writes the account's themes (AccessEditor), every member reads them.
	themes := api.Route{Path: "/api/themes/", Name: "Theme List"}
	theme := api.Route{Path: "/api/themes/{theme_id}/", Name: "Theme Detail"}
	rt.Handle(themes.With("GET"), h.themeList())
	create := themes.With("POST")
	create.Access = api.AccessEditor
	rt.Handle(create, h.themeCreate())
	rt.Handle(theme.With("GET"), h.themeGet())
	for _, m := range []struct {
		method string
		h      http.Handler
	}{{"PATCH", h.themeUpdate()}, {"DELETE", h.themeDelete()}} {
		rt2 := theme.With(m.method)
		rt2.Access = api.AccessEditor
		rt.Handle(rt2, m.h)
	}
	rt.Handle(api.Route{Method: "GET", Path: "/api/themes/fonts/", Name: "Font List"}, fontList())
	return rt
}
