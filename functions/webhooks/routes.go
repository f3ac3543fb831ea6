// Package webhooks is a survey's webhooks: create (the secret shown once),
// list, read, change and delete them, in two shapes (the webhooks routes
// and the real service's notifications routes, over the same webhooks),
// and each webhook's delivery log with a manual retry. Delivery itself is
// functions/dispatch and functions/deliver.
package webhooks

import (
	"context"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	SurveyWebhooks(ctx context.Context, aid, sid int64) (survey.Survey, []survey.Webhook, int64, error)
	ChangeWebhooks(ctx context.Context, aid, sid int64, change func([]survey.Webhook) ([]survey.Webhook, error)) ([]survey.Webhook, error)
	NewID(ctx context.Context, kind string) (int64, error)
	Deliveries(ctx context.Context, wid int64, before string, limit int) ([]survey.Delivery, bool, error)
	Delivery(ctx context.Context, wid int64, id string) (survey.Delivery, error)
	RetryDelivery(ctx context.Context, d survey.Delivery, due time.Time) (survey.Delivery, error)
	ResetBreaker(ctx context.Context, sid, wid int64, at time.Time) error
	ResumePaused(ctx context.Context, wid int64, now time.Time, limit int) ([]survey.Delivery, bool, error)
	MarkResume(ctx context.Context, sid, wid int64) error
}

var _ Store = (*store.Store)(nil)

// Sealer seals the secrets; *links.Sealer implements it.
type Sealer interface {
	SealFor(ctx context.Context, purpose links.Purpose, owner int64, plaintext []byte) (string, error)
}

var _ Sealer = (*links.Sealer)(nil)

// Queue takes the owner's retries; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

var _ Queue = webhook.Queue{}

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth   *api.Authenticator
	Store  Store
	Sealer Sealer
	Queue  Queue
	// Guard checks URLs at creation (the delivery checks them again).
	Guard webhook.Guard
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	if d.Now == nil {
		d.Now = time.Now
	}
	h := handlers{Deps: d}
	list := api.Route{Path: "/api/surveys/{survey_id}/webhooks/", Name: "Webhook List"}
	detail := api.Route{Path: "/api/surveys/{survey_id}/webhooks/{webhook_id}/", Name: "Webhook Detail"}
	deliveries := api.Route{Path: "/api/surveys/{survey_id}/webhooks/{webhook_id}/deliveries/", Name: "Webhook Delivery List"}
	retry := api.Route{Path: "/api/surveys/{survey_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry/", Name: "Webhook Delivery Retry"}
	nlist := api.Route{Path: "/api/v2/surveys/{survey_id}/notifications/", Name: "Notification List"}
	ndetail := api.Route{Path: "/api/v2/surveys/{survey_id}/notifications/{webhook_id}/", Name: "Notification Detail"}
	for _, s := range []shape{webhooksShape, notificationsShape} {
		l, d := list, detail
		if s.notification {
			l, d = nlist, ndetail
		}
		rt.Handle(l.With("GET"), h.list(s))
		rt.Handle(l.With("POST"), h.create(s))
		rt.Handle(d.With("GET"), h.get(s))
		rt.Handle(d.With("PATCH"), h.patch(s))
		rt.Handle(d.With("DELETE"), h.delete())
	}
	rt.Handle(deliveries.With("GET"), h.deliveries())
	rt.Handle(retry.With("POST"), h.retry())
	return rt
}

type handlers struct{ Deps }
