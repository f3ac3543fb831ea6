package webhooks

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// createReal is POST /api/surveys/{survey_id}/webhooks/ with a body in the
// notifications shape, as the n8n node (asedmammad/n8n-nodes-porsline)
// posts it there (contract section 21). Its node has no webhook id to
// keep, so, as it uses the real service:
//   - activating posts its endpoint; a webhook of the survey already on
//     that endpoint is updated (enabled, headers, its breaker reset) and
//     answered 200, so that turning a workflow off and on again does not
//     pile up webhooks (nor hit the limit of 10);
//   - deactivating posts "enabled": false with an empty webhook_endpoint:
//     every webhook of the survey (sending_method 3) is disabled, and the
//     answer (200) lists them. Email and SMS notifications are untouched.
//
// Anything else is a create in the notifications shape (201).
func (h handlers) createReal(w http.ResponseWriter, r *http.Request, aid, sid int64, obj map[string]json.RawMessage) error {
	s := notificationsShape
	if disablesAll(obj) {
		hooks, err := h.Store.ChangeWebhooks(r.Context(), aid, sid, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
			next := append([]survey.Webhook(nil), hooks...)
			for i := range next {
				if !next[i].Sends() {
					next[i].Active = false
				}
			}
			return next, nil
		})
		if err != nil {
			return err
		}
		out := []any{}
		for _, wh := range hooks {
			if !wh.Sends() {
				out = append(out, s.render(wh))
			}
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	}
	in, err := readInput(obj, s, true, 0)
	if err != nil {
		return err
	}
	if in.method == survey.SendingWebhook {
		url, err := h.checkURL(r.Context(), s, *in.url)
		if err != nil {
			return err
		}
		in.url = &url
		var updated *survey.Webhook
		_, err = h.Store.ChangeWebhooks(r.Context(), aid, sid, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
			updated = nil
			for i, wh := range hooks {
				if wh.Sends() || wh.URL != url {
					continue
				}
				next := append([]survey.Webhook(nil), hooks...)
				wh.Active = in.active == nil || *in.active
				if in.headers != nil {
					headers, err := in.withHeaders(s, wh.Headers)
					if err != nil {
						return nil, err
					}
					wh.Headers = headers
				}
				next[i], updated = wh, &wh
				return next, nil
			}
			return nil, errNoSuchEndpoint
		})
		switch {
		case err == nil && updated != nil:
			if err := h.Store.ResetBreaker(r.Context(), sid, updated.ID, h.Now()); err != nil {
				return err
			}
			if err := h.resume(r.Context(), sid, updated.ID); err != nil {
				return err
			}
			updated.Breaker = survey.Breaker{}
			api.Respond(w, r, http.StatusOK, s.render(*updated))
			return nil
		case !errors.Is(err, errNoSuchEndpoint):
			return err
		}
	}
	return h.added(w, r, aid, sid, s, in)
}

// errNoSuchEndpoint ends a change that found no webhook on the endpoint
// (the body is then a create); it never reaches a client.
var errNoSuchEndpoint = &survey.Error{Code: survey.ECONFLICT, Detail: "no webhook on this endpoint"}

// disablesAll reports the n8n node's deactivation: the notifications
// shape with "enabled": false and an empty webhook_endpoint, for a webhook
// (sending_method absent or 3).
func disablesAll(obj map[string]json.RawMessage) bool {
	var enabled *bool
	var endpoint *string
	if json.Unmarshal(obj["enabled"], &enabled) != nil || enabled == nil || *enabled {
		return false
	}
	if json.Unmarshal(obj["webhook_endpoint"], &endpoint) != nil || endpoint == nil || strings.TrimSpace(*endpoint) != "" {
		return false
	}
	var method *int64
	if raw, ok := obj["sending_method"]; ok && (json.Unmarshal(raw, &method) != nil || method != nil && *method != survey.SendingWebhook) {
		return false
	}
	return true
}
