package webhooks

import (
	"net/http"
	"strconv"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// Delivery pages.
const (
	defaultDeliveryPage = 100
	maxDeliveryPage     = 1000
)

// deliveryPage is the deliveries' cursor pagination: next is the absolute
// URL of the following (older) page, or null.
type deliveryPage struct {
	Next    *string               `json:"next"`
	Results []survey.DeliveryView `json:"results"`
}

// webhookOf answers the webhook of a survey of the account, or writes the
// 404 itself.
func (h handlers) webhookOf(w http.ResponseWriter, r *http.Request) (survey.Survey, survey.Webhook, bool) {
	aid, sid, wid, ok := webhookIDs(w, r)
	if !ok {
		return survey.Survey{}, survey.Webhook{}, false
	}
	sv, hooks, _, err := h.Store.SurveyWebhooks(r.Context(), aid, sid)
	if err != nil {
		api.Error(w, r, err)
		return survey.Survey{}, survey.Webhook{}, false
	}
	i, found := find(hooks, wid)
	if !found {
		api.Error(w, r, survey.ErrNotFound)
		return survey.Survey{}, survey.Webhook{}, false
	}
	return sv, hooks[i], true
}

// deliveries lists the webhook's deliveries of the last 30 days, newest
// first: one BatchGetItem (survey and webhooks) and one Query a page.
func (h handlers) deliveries() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		size := defaultDeliveryPage
		if v, ok := q["page_size"]; ok {
			n, isInt := api.ParseInt(v[0])
			switch {
			case !isInt:
				api.Error(w, r, survey.FieldError("page_size", api.MsgNotInteger))
				return
			case n < 1:
				api.Error(w, r, survey.FieldError("page_size", "Ensure this value is greater than or equal to 1."))
				return
			}
			size = min(n, maxDeliveryPage)
		}
		cursor := q.Get("cursor")
		if _, _, ok := survey.ParseDeliveryID(cursor); cursor != "" && !ok {
			api.Error(w, r, survey.FieldError("cursor", "Invalid cursor."))
			return
		}
		_, wh, ok := h.webhookOf(w, r)
		if !ok {
			return
		}
		page, more, err := h.Store.Deliveries(r.Context(), wh.ID, cursor, size)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		out := deliveryPage{Results: make([]survey.DeliveryView, len(page))}
		for i, d := range page {
			out.Results[i] = d.View()
		}
		if more {
			q.Set("cursor", page[len(page)-1].ID())
			q.Set("page_size", strconv.Itoa(size))
			next := api.AbsoluteURL(r, q)
			out.Next = &next
		}
		api.Respond(w, r, http.StatusOK, out)
	})
}

// retry sends a delivery again now: it is marked pending and a job goes to
// the queue (202). A failed delivery gets one more attempt; a pending one
// has its next attempt now instead of on its schedule (one chain: the job
// claims the attempt the delivery is at). A delivery that succeeded is
// final (409).
func (h handlers) retry() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		did := r.PathValue("delivery_id")
		if _, _, ok := survey.ParseDeliveryID(did); !ok {
			api.Error(w, r, survey.ErrNotFound)
			return
		}
		sv, wh, ok := h.webhookOf(w, r)
		if !ok {
			return
		}
		ctx := r.Context()
		d, err := h.Store.Delivery(ctx, wh.ID, did)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		switch {
		case sv.Deleted:
			api.Error(w, r, store.ErrSurveyDeleted)
			return
		case !wh.Active:
			api.Error(w, r, survey.Errorf(survey.ECONFLICT, "The webhook is not active."))
			return
		}
		d, err = h.Store.RetryDelivery(ctx, d, h.Now().Add(webhook.RequeueAfter))
		if err != nil {
			api.Error(w, r, err)
			return
		}
		job := webhook.Job{SurveyID: d.SurveyID, WebhookID: d.WebhookID, ResponseID: d.ResponseID, Delivery: d.ID(), Attempt: d.Attempts}
		if err := h.Queue.Send(ctx, []webhook.Job{job}, 0); err != nil {
			api.Error(w, r, err)
			return
		}
		api.Respond(w, r, http.StatusAccepted, d.View())
	})
}
