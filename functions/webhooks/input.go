package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// shape names the fields of one of the two views of a webhook.
type shape struct {
	notification         bool
	url, active, headers string
	render               func(survey.Webhook) any
	renderCreated        func(survey.Webhook, string) any
}

var webhooksShape = shape{url: "url", active: "active", headers: "headers",
	render: func(w survey.Webhook) any { return w.View() },
	renderCreated: func(w survey.Webhook, secret string) any {
		v := w.View()
		v.Secret = &secret
		return v
	}}

var notificationsShape = shape{notification: true, url: "webhook_endpoint", active: "enabled", headers: "webhook_headers",
	render: func(w survey.Webhook) any { return w.Notification() },
	renderCreated: func(w survey.Webhook, secret string) any {
		v := w.Notification()
		v.Secret = &secret
		return v
	}}

// input is a validated create or PATCH body: nil fields were not sent.
type input struct {
	url     *string
	events  []string
	active  *bool
	headers map[string]string // nil: not sent
}

// readInput validates a body in the shape's fields, without any I/O:
// every field's errors at once.
func readInput(obj map[string]json.RawMessage, s shape, create bool) (input, error) {
	f := api.NewForm(obj)
	var in input
	if u, ok := f.String(s.url, api.Str{Required: create, Max: webhook.MaxURL, NoTrim: false}); ok {
		in.url = &u
	}
	if b, ok := f.Bool(s.active, false); ok {
		in.active = &b
	}
	if raw, ok := f.Raw(s.headers); ok {
		in.headers = readHeaders(f, s.headers, raw)
	}
	if s.notification {
		for name, want := range map[string]int64{"recipient_type": survey.NotificationWebhook, "sending_method": survey.NotificationSending} {
			if v, ok := f.Int(name, api.Int{}); ok && v != want {
				f.Fail(name, fmt.Sprintf("\"%d\" is not a valid choice.", v))
			}
		}
		if m, ok := f.String("webhook_method", api.Str{}); ok && !strings.EqualFold(m, survey.WebhookMethod) {
			f.Fail("webhook_method", fmt.Sprintf("%q is not a valid choice; deliveries are POST requests.", m))
		}
	}
	// Both shapes take events (the notifications shape too, so that its
	// clients may subscribe to response.partial, contract section 20).
	if raw, ok := f.Raw("events"); ok {
		in.events = readEvents(f, raw)
	}
	if create && in.events == nil {
		in.events = []string{survey.EventResponseSubmitted}
	}
	return in, f.Err()
}

func readEvents(f *api.Form, raw json.RawMessage) []string {
	var list []json.RawMessage
	if kind := api.JSONKind(raw); kind != "list" {
		f.Fail("events", fmt.Sprintf("Expected a list of items but got type %q.", kind))
		return nil
	}
	_ = json.Unmarshal(raw, &list)
	if len(list) == 0 {
		f.Fail("events", "This list may not be empty.")
		return nil
	}
	var out []string
	for _, item := range list {
		var e string
		if err := json.Unmarshal(item, &e); err != nil {
			f.Fail("events", api.MsgNotString)
			return nil
		}
		if !slices.Contains(survey.Events, e) {
			f.Fail("events", fmt.Sprintf("%q is not a valid choice.", e))
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func readHeaders(f *api.Form, name string, raw json.RawMessage) map[string]string {
	out := map[string]string{}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return out
	}
	if kind := api.JSONKind(raw); kind != "dict" {
		f.Fail(name, fmt.Sprintf("Expected a dictionary of items but got type %q.", kind))
		return nil
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(raw, &obj)
	if len(obj) > survey.MaxWebhookHeaders {
		f.Fail(name, fmt.Sprintf("Ensure this field has no more than %d headers.", survey.MaxWebhookHeaders))
		return nil
	}
	nested := map[string]any{}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for _, k := range names {
		var v string
		if err := json.Unmarshal(obj[k], &v); err != nil {
			nested[k] = []string{api.MsgNotString}
			continue
		}
		if p := survey.HeaderProblem(k, v); p != "" {
			nested[k] = []string{p}
			continue
		}
		if seen[strings.ToLower(k)] {
			nested[k] = []string{"This header is given twice."}
			continue
		}
		seen[strings.ToLower(k)] = true
		out[k] = v
	}
	if len(nested) > 0 {
		f.FailNested(name, nested)
		return nil
	}
	return out
}

// checkURL runs the guard on a URL that passed the form: its shape, then
// where its host resolves. A refusal is a 400 on the shape's url field.
func (h handlers) checkURL(ctx context.Context, s shape, raw string) (string, error) {
	u, err := h.Guard.CheckURL(ctx, raw)
	var re *webhook.RefusedError
	if errors.As(err, &re) {
		return "", survey.FieldError(s.url, re.Msg)
	}
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
