package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

func surveyID(r *http.Request) (aid, sid int64, err error) {
	acct, sid, err := api.AccountAndID(r, "survey_id")
	return acct.ID, sid, err
}

// webhookIDs reads the survey and webhook ids of a path; ids that cannot
// exist are survey.ErrNotFound.
func webhookIDs(r *http.Request) (aid, sid, wid int64, err error) {
	if aid, sid, err = surveyID(r); err != nil {
		return 0, 0, 0, err
	}
	wid, ok := api.PathID(r, "webhook_id")
	if !ok {
		return 0, 0, 0, survey.ErrNotFound
	}
	return aid, sid, wid, nil
}

func find(hooks []survey.Webhook, wid int64) (int, bool) {
	for i, w := range hooks {
		if w.ID == wid {
			return i, true
		}
	}
	return 0, false
}

func (h handlers) list(s shape) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		sv, hooks, _, err := h.Store.SurveyWebhooks(r.Context(), aid, sid)
		if err != nil {
			return err
		}
		out := []any{}
		for _, wh := range hooks {
			if s.shows(wh) {
				out = append(out, s.render(readable(r.Context(), sv.FolderID, wh)))
			}
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

func (h handlers) get(s shape) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, wid, err := webhookIDs(r)
		if err != nil {
			return err
		}
		sv, wh, err := h.shown(r.Context(), s, aid, sid, wid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, s.render(readable(r.Context(), sv.FolderID, wh)))
		return nil
	})
}

// create validates the body (400 before anything is read), checks where
// the URL leads, and adds the webhook with a fresh secret, sealed; the
// answer shows the secret, this once. One BatchGetItem and one
// transaction (the id is leased and the data key cached: usually no other
// call). An email or SMS notification (the notifications shape's
// sending_method 1 or 2) has no URL nor secret. The webhooks route also
// takes the notifications shape (createReal).
func (h handlers) create(s shape) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		obj, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		if !s.notification && realShape(obj) {
			return h.createReal(w, r, aid, sid, obj)
		}
		in, err := readInput(obj, s, true, 0)
		if err != nil {
			return err
		}
		return h.added(w, r, aid, sid, s, in)
	})
}

// shown reads webhook wid of the survey, if the shape shows it.
func (h handlers) shown(ctx context.Context, s shape, aid, sid, wid int64) (survey.Survey, survey.Webhook, error) {
	sv, hooks, _, err := h.Store.SurveyWebhooks(ctx, aid, sid)
	if err != nil {
		return survey.Survey{}, survey.Webhook{}, err
	}
	i, found := find(hooks, wid)
	if !found || !s.shows(hooks[i]) {
		return survey.Survey{}, survey.Webhook{}, survey.ErrNotFound
	}
	return sv, hooks[i], nil
}

// added adds the webhook of a create's body and answers 201 (a webhook
// with its secret, shown this once).
func (h handlers) added(w http.ResponseWriter, r *http.Request, aid, sid int64, s shape, in input) error {
	wh, secret, err := h.add(r.Context(), aid, sid, s, in)
	if err != nil {
		return err
	}
	if wh.Sends() {
		api.Respond(w, r, http.StatusCreated, s.render(wh))
		return nil
	}
	api.Respond(w, r, http.StatusCreated, s.renderCreated(wh, secret))
	return nil
}

// add checks the URL of a webhook and adds it with a fresh secret, or adds
// an email or SMS notification; it answers the webhook and its secret.
func (h handlers) add(ctx context.Context, aid, sid int64, s shape, in input) (survey.Webhook, string, error) {
	wh := survey.Webhook{SurveyID: sid, Events: in.events, Active: true, Headers: in.headers,
		Created: h.Now().UTC().Truncate(time.Microsecond)}
	if in.method != survey.SendingWebhook {
		wh.Events, wh.Headers = []string{survey.EventResponseSubmitted}, nil
		wh.Method, wh.RecipientType, wh.Recipients = in.method, *in.recipientType, in.recipients
	} else {
		url, err := h.checkURL(ctx, s, *in.url)
		if err != nil {
			return survey.Webhook{}, "", err
		}
		wh.URL = url
	}
	wid, err := h.Store.NewID(ctx, store.KindWebhook)
	if err != nil {
		return survey.Webhook{}, "", err
	}
	wh.ID = wid
	var secret string
	if !wh.Sends() {
		secret = webhook.NewSecret()
		if wh.SealedSecret, err = h.Sealer.SealFor(ctx, links.PurposeWebhookSecret, wid, []byte(secret)); err != nil {
			return survey.Webhook{}, "", err
		}
	}
	if in.active != nil {
		wh.Active = *in.active
	}
	_, err = h.Store.ChangeWebhooks(ctx, aid, sid, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
		if len(hooks) >= survey.MaxWebhooks {
			return nil, tooMany()
		}
		return append(hooks, wh), nil
	})
	if err != nil {
		return survey.Webhook{}, "", err
	}
	return wh, secret, nil
}

func tooMany() error {
	return survey.FieldError("non_field_errors", fmt.Sprintf("A survey holds at most %d webhooks.", survey.MaxWebhooks))
}

// patch changes only the fields sent; a new URL is checked as at creation.
func (h handlers) patch(s shape) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, wid, err := webhookIDs(r)
		if err != nil {
			return err
		}
		obj, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		// The webhook's sending method decides which fields the body may
		// change (one read; the change reads again under its version).
		_, current, err := h.shown(r.Context(), s, aid, sid, wid)
		if err != nil {
			return err
		}
		in, err := readInput(obj, s, false, current.SendingMethod())
		if err != nil {
			return err
		}
		if in.url != nil {
			url, err := h.checkURL(r.Context(), s, *in.url)
			if err != nil {
				return err
			}
			in.url = &url
		}
		var changed survey.Webhook
		_, err = h.Store.ChangeWebhooks(r.Context(), aid, sid, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
			i, found := find(hooks, wid)
			if !found {
				return nil, survey.ErrNotFound
			}
			next := append([]survey.Webhook(nil), hooks...)
			wh := next[i]
			if in.url != nil {
				wh.URL = *in.url
			}
			if in.events != nil {
				wh.Events = in.events
			}
			if in.active != nil {
				wh.Active = *in.active
			}
			if in.headers != nil {
				headers, err := in.withHeaders(s, wh.Headers)
				if err != nil {
					return nil, err
				}
				wh.Headers = headers
			}
			if in.recipientType != nil {
				wh.RecipientType = *in.recipientType
			}
			if in.recipients != nil {
				wh.Recipients = in.recipients
			}
			next[i], changed = wh, wh
			return next, nil
		})
		if err == nil {
			// The owner's change resumes a paused webhook, and sends what
			// its pause held back now rather than at each one's next
			// scheduled attempt. Attempts in flight, begun before the
			// change, do not count against the reset breaker.
			err = h.Store.ResetBreaker(r.Context(), sid, wid, h.Now())
			if err == nil {
				err = h.resume(r.Context(), sid, wid)
			}
			changed.Breaker = survey.Breaker{}
		}
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, s.render(changed))
		return nil
	})
}

// delete removes the webhook: nothing more is sent to it (queued attempts
// find it gone); its deliveries expire with the retention.
func (h handlers) delete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, wid, err := webhookIDs(r)
		if err != nil {
			return err
		}
		_, err = h.Store.ChangeWebhooks(r.Context(), aid, sid, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
			i, found := find(hooks, wid)
			if !found {
				return nil, survey.ErrNotFound
			}
			return append(append([]survey.Webhook(nil), hooks[:i]...), hooks[i+1:]...), nil
		})
		if err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}

// ResumeInRequest bounds the paused deliveries a PATCH resumes itself
// (one conditional UpdateItem each, 16 at a time): a webhook paused on a
// busy survey can hold thousands. When more are left, the breakers item
// says so, and the webhook's next success (the deliver function, which
// has the time) resumes the rest.
const ResumeInRequest = 200

// resume makes the webhook's paused deliveries due now and queues them.
// They are due now in the due index before their jobs go, so a job lost
// here is the retrier's within a minute.
func (h handlers) resume(ctx context.Context, sid, wid int64) error {
	resumed, more, err := h.Store.ResumePaused(ctx, wid, h.Now(), ResumeInRequest)
	if err != nil {
		return err
	}
	if more {
		if err := h.Store.MarkResume(ctx, sid, wid); err != nil {
			return err
		}
	}
	if len(resumed) > 0 && h.Queue != nil {
		if err := h.Queue.Send(ctx, webhook.JobsOf(resumed), 0); err != nil {
			slog.ErrorContext(ctx, "webhooks: queue resumed deliveries", "webhook_id", wid, "error", err.Error())
		}
	}
	return nil
}
