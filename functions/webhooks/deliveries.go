package webhooks

import (
	"net/http"
	"strconv"

	"surveyservice/shared/api"
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

// webhookOf reads the webhook of a survey of the account; one the account
// does not have is survey.ErrNotFound.
func (h handlers) webhookOf(r *http.Request) (survey.Survey, survey.Webhook, error) {
	aid, sid, wid, err := webhookIDs(r)
	if err != nil {
		return survey.Survey{}, survey.Webhook{}, err
	}
	sv, hooks, _, err := h.Store.SurveyWebhooks(r.Context(), aid, sid)
	if err != nil {
		return survey.Survey{}, survey.Webhook{}, err
	}
	i, found := find(hooks, wid)
	if !found {
		return survey.Survey{}, survey.Webhook{}, survey.ErrNotFound
	}
	return sv, hooks[i], nil
}

// deliveries lists the webhook's deliveries of the last 30 days, newest
// first: one BatchGetItem (survey and webhooks) and one Query a page.
func (h handlers) deliveries() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		size := defaultDeliveryPage
		if v, ok := q["page_size"]; ok {
			n, isInt := api.ParseInt(v[0])
			switch {
			case !isInt:
				return survey.FieldError("page_size", api.MsgNotInteger)
			case n < 1:
				return survey.FieldError("page_size", "Ensure this value is greater than or equal to 1.")
			}
			size = min(n, maxDeliveryPage)
		}
		cursor := q.Get("cursor")
		if _, _, ok := survey.ParseDeliveryID(cursor); cursor != "" && !ok {
			return survey.FieldError("cursor", "Invalid cursor.")
		}
		_, wh, err := h.webhookOf(r)
		if err != nil {
			return err
		}
		page, more, err := h.Store.Deliveries(r.Context(), wh.ID, cursor, size)
		if err != nil {
			return err
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
		return nil
	})
}

// retry sends a delivery again now: it is marked pending and a job goes to
// the queue (202). A failed delivery gets one more attempt; a pending one
// has its next attempt now instead of on its schedule (one chain: the job
// claims the attempt the delivery is at). A delivery that succeeded is
// sent once more, as the contract's retry says.
func (h handlers) retry() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		did := r.PathValue("delivery_id")
		if _, _, ok := survey.ParseDeliveryID(did); !ok {
			return survey.ErrNotFound
		}
		sv, wh, err := h.webhookOf(r)
		if err != nil {
			return err
		}
		ctx := r.Context()
		d, err := h.Store.Delivery(ctx, wh.ID, did)
		if err != nil {
			return err
		}
		switch {
		case sv.Deleted:
			return survey.ErrSurveyDeleted
		case !wh.Active:
			return survey.Errorf(survey.ECONFLICT, "The webhook is not active.")
		}
		survey.AnswerStatus(ctx, http.StatusAccepted) // the entry commits with the retry as answered
		d, err = h.Store.RetryDelivery(ctx, d, h.Now().Add(webhook.RequeueAfter))
		if err != nil {
			return err
		}
		job := webhook.Job{SurveyID: d.SurveyID, WebhookID: d.WebhookID, ResponseID: d.ResponseID, Delivery: d.ID(), Attempt: d.Step()}
		if err := h.Queue.Send(ctx, []webhook.Job{job}, 0); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusAccepted, d.View())
		return nil
	})
}
