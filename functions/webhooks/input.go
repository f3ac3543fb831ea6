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
	"surveyservice/shared/mobile"
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

// shows reports whether the shape shows the webhook: the webhooks routes
// show webhooks only, the notifications routes email and SMS
// notifications too.
func (s shape) shows(w survey.Webhook) bool { return s.notification || !w.Sends() }

// input is a validated create or PATCH body: nil fields were not sent.
type input struct {
	url     *string
	events  []string
	active  *bool
	headers map[string]string // nil: not sent
	// method is the sending method the webhook has after the change (a
	// webhook's, unless the notifications shape named email or SMS);
	// recipientType and recipients are an email or SMS notification's
	// (nil: not sent).
	method        int64
	recipientType *int64
	recipients    []string
}

// withHeaders is in's headers over the webhook's stored ones: a value sent
// as survey.MaskedHeader keeps the stored value of its header (the
// round trip of a masked read); a masked header the webhook lacks is a
// 400 on the shape's headers field.
func (in input) withHeaders(s shape, stored map[string]string) (map[string]string, error) {
	out, problems := survey.UnmaskHeaders(in.headers, stored)
	if problems != nil {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{s.headers: problems}}
	}
	return out, nil
}

// readable is the webhook as the request's principal may read it
// (contract section 19 as amended): to a member who may not write under
// the survey's folder (a viewer) every header value is masked; the owner
// and editors, who may set them, read them whole.
func readable(ctx context.Context, folderID int64, wh survey.Webhook) survey.Webhook {
	p, _ := api.PrincipalFrom(ctx)
	if p.MayFolder(survey.ActWrite, folderID) != nil {
		wh.Headers = survey.MaskedHeaders(wh.Headers)
	}
	return wh
}

// realShape reports whether a body on the webhooks route is in the
// notifications shape (the n8n node posts it there: contract section 21).
func realShape(obj map[string]json.RawMessage) bool {
	for _, k := range []string{"webhook_endpoint", "recipient_type", "sending_method"} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// readInput validates a body in the shape's fields, without any I/O:
// every field's errors at once. current is the sending method of the
// webhook a PATCH changes (0 on create).
func readInput(obj map[string]json.RawMessage, s shape, create bool, current int64) (input, error) {
	f := api.NewForm(obj)
	in := input{method: survey.SendingWebhook}
	if current != 0 {
		in.method = current
	}
	if s.notification {
		if v, ok := f.Int("sending_method", api.Int{}); ok {
			switch {
			case v < survey.SendingEmail || v > survey.SendingWebhook:
				// The other fields mean nothing without a method.
				f.Fail("sending_method", fmt.Sprintf("\"%d\" is not a valid choice.", v))
				return in, f.Err()
			case current != 0 && v != current:
				f.Fail("sending_method", "The sending method of a notification cannot be changed; create another.")
				return in, f.Err()
			default:
				in.method = v
			}
		}
	}
	if in.method != survey.SendingWebhook {
		readSending(f, &in, create)
		return in, f.Err()
	}
	if u, ok := f.String(s.url, api.Str{Required: create, Max: webhook.MaxURL, NoTrim: false}); ok {
		in.url = &u
	}
	if b, ok := f.Bool(s.active, false); ok {
		in.active = &b
	}
	if raw, ok := f.Raw(s.headers); ok {
		in.headers = readHeaders(f, s.headers, raw)
		if _, problems := survey.UnmaskHeaders(in.headers, nil); create && problems != nil {
			f.FailNested(s.headers, problems) // a new webhook has no stored value to keep
			in.headers = nil
		}
	}
	if s.notification {
		if v, ok := f.Int("recipient_type", api.Int{}); ok && v != survey.NotificationWebhook {
			f.Fail("recipient_type", fmt.Sprintf("\"%d\" is not a valid choice.", v))
		}
		if m, ok := f.String("webhook_method", api.Str{}); ok && !strings.EqualFold(m, survey.WebhookMethod) {
			f.Fail("webhook_method", fmt.Sprintf("%q is not a valid choice; deliveries are POST requests.", m))
		}
		if raw, ok := f.Raw("recipients"); ok && api.JSONKind(raw) == "list" && !bytes.Equal(bytes.TrimSpace(raw), []byte("[]")) {
			f.Fail("recipients", "Only email and SMS notifications (sending_method 1 or 2) have recipients.")
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

// readSending reads an email or SMS notification's fields (the
// notifications shape): enabled, recipient_type 1-4 (default 1),
// recipients (1-10 addresses or numbers, required on create). It has no
// endpoint; its headers and method are ignored, as the real service's
// clients send them with every notification.
func readSending(f *api.Form, in *input, create bool) {
	if b, ok := f.Bool("enabled", false); ok {
		in.active = &b
	}
	if u, ok := f.String("webhook_endpoint", api.Str{AllowBlank: true, Nullable: true}); ok && u != "" {
		f.Fail("webhook_endpoint", "Only webhook notifications (sending_method 3) have an endpoint.")
	}
	if v, ok := f.Int("recipient_type", api.Int{}); ok {
		if v < survey.MinRecipientType || v > survey.MaxRecipientType {
			f.Fail("recipient_type", fmt.Sprintf("\"%d\" is not a valid choice.", v))
		} else {
			in.recipientType = &v
		}
	} else if create && !f.IsNull("recipient_type") {
		one := int64(survey.MinRecipientType)
		in.recipientType = &one
	}
	raw, ok := f.Raw("recipients")
	if !ok {
		if create {
			f.Fail("recipients", api.MsgRequired)
		}
		return
	}
	switch kind := api.JSONKind(raw); kind {
	case "list":
	case "NoneType": // DRF's answer to a null list
		f.Fail("recipients", api.MsgNull)
		return
	default:
		f.Fail("recipients", survey.MsgNotAList(kind))
		return
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	switch {
	case len(list) == 0:
		f.Fail("recipients", "This list may not be empty.")
		return
	case len(list) > survey.MaxRecipients:
		f.Fail("recipients", fmt.Sprintf("Ensure this field has no more than %d elements.", survey.MaxRecipients))
		return
	}
	nested := map[string]any{}
	out := []string{}
	for i, item := range list {
		var v string
		if err := json.Unmarshal(item, &v); err != nil {
			nested[fmt.Sprint(i)] = []string{api.MsgNotString}
			continue
		}
		norm, problem := survey.RecipientProblem(in.method, v)
		if problem == "" && in.method == survey.SendingSMS && !mobile.Admits(norm) {
			problem = survey.MsgInvalidPhone // a premium, toll-free, satellite or unassigned range (section 18 as amended)
		}
		if problem != "" {
			nested[fmt.Sprint(i)] = []string{problem}
			continue
		}
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	if len(nested) > 0 {
		f.FailNested("recipients", nested)
		return
	}
	in.recipients = out
}

func readEvents(f *api.Form, raw json.RawMessage) []string {
	var list []json.RawMessage
	switch kind := api.JSONKind(raw); kind {
	case "list":
	case "NoneType": // DRF's answer to a null list
		f.Fail("events", api.MsgNull)
		return nil
	default:
		f.Fail("events", survey.MsgNotAList(kind))
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
		f.Fail(name, survey.MsgNotAMap(kind))
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
