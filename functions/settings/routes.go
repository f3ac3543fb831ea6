// Package settings is a survey's settings object, with plan gating, its
// lists (authentication codes and allowed phone numbers), its quotas, and
// its languages and translations (contract section 24).
package settings

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	SurveySettings(ctx context.Context, aid, sid int64) (survey.Survey, survey.Settings, error)
	CodeCount(ctx context.Context, aid, sid int64) (int64, error)
	UpdateSettings(ctx context.Context, aid, sid int64, u store.SettingsUpdate) error
	SurveyCollection(ctx context.Context, aid, sid int64) (store.SurveyCollection, error)
	SetLanguages(ctx context.Context, aid, sid int64, langs []string) error
	PutTranslation(ctx context.Context, aid, sid int64, lang string, t survey.Translation) error
	AddCodes(ctx context.Context, aid, sid int64, codes []string) error
	DeleteCodes(ctx context.Context, aid, sid int64, codes []string) error
	DeleteAllCodes(ctx context.Context, aid, sid int64) error
	CodesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error)
	PhoneCount(ctx context.Context, aid, sid int64) (int64, error)
	AddPhones(ctx context.Context, aid, sid int64, numbers []string) error
	DeletePhones(ctx context.Context, aid, sid int64, numbers []string) error
	DeleteAllPhones(ctx context.Context, aid, sid int64) error
	PhonesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error)
	// Quotas (contract section 25).
	WithQuotaCounts(ctx context.Context, sid int64, qs []survey.Quota) ([]survey.Quota, error)
	CreateQuota(ctx context.Context, aid, sid int64, q survey.Quota) (survey.Quota, error)
	UpdateQuota(ctx context.Context, aid, sid int64, q survey.Quota) error
	DeleteQuota(ctx context.Context, aid, sid, id int64) error
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth  *api.Authenticator
	Store Store
	// Now is the clock that decides what "after today" means for an
	// expiration date; nil means time.Now.
	Now func() time.Time
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	if d.Now == nil {
		d.Now = time.Now
	}
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store, now: d.Now}
	settings := api.Route{Path: "/api/surveys/{survey_id}/settings/", Name: "Survey Settings"}
	codes := api.Route{Path: "/api/surveys/{survey_id}/settings/authentication-codes/", Name: "Authentication Code List"}
	rt.Handle(settings.With("GET"), h.get())
	rt.Handle(settings.With("PATCH"), h.update())
	phones := api.Route{Path: "/api/surveys/{survey_id}/settings/phone-numbers/", Name: "Phone Number List"}
	for _, l := range []struct {
		route api.Route
		list  itemList
	}{{codes, h.codes()}, {phones, h.phones()}} {
		rt.Handle(l.route.With("GET"), l.list.list())
		rt.Handle(l.route.With("POST"), l.list.create())
		rt.Handle(l.route.With("DELETE"), l.list.delete())
	}
	quotas := api.Route{Path: "/api/surveys/{survey_id}/quotas/", Name: "Quota List"}
	quota := api.Route{Path: "/api/surveys/{survey_id}/quotas/{quota_id}/", Name: "Quota Detail"}
	rt.Handle(quotas.With("GET"), h.quotaList())
	rt.Handle(quotas.With("POST"), h.quotaCreate())
	rt.Handle(quota.With("GET"), h.quotaGet())
	rt.Handle(quota.With("PATCH"), h.quotaUpdate())
	rt.Handle(quota.With("DELETE"), h.quotaDelete())
	// Contract section 24: languages and translations.
	languages := api.Route{Path: "/api/surveys/{survey_id}/languages/", Name: "Survey Languages"}
	rt.Handle(languages.With("GET"), h.getLanguages())
	rt.Handle(languages.With("PUT"), h.putLanguages())
	translation := api.Route{Path: "/api/surveys/{survey_id}/translations/{lang}/", Name: "Survey Translation"}
	rt.Handle(translation.With("GET"), h.getTranslation())
	rt.Handle(translation.With("PUT"), h.putTranslation())
	return rt
}

type handlers struct {
	st  Store
	now func() time.Time
}
