package survey

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The events: a new response, and a response its responder edited
// (contract section 16).
const (
	EventResponseSubmitted = "response.submitted"
	EventResponseUpdated   = "response.updated"
	// EventResponsePartial is a session's partial response saved, at most
	// once a minute per session (contract section 20).
	EventResponsePartial = "response.partial"
	// EventSurveyFull is the response limit or a quota becoming full, once
	// each time (contract section 25).
	EventSurveyFull = "survey.full"
)

// Events lists the events a webhook may subscribe to.
var Events = []string{EventResponseSubmitted, EventResponseUpdated, EventResponsePartial, EventSurveyFull, EventDomainSuspended}

// CarriesPayload reports whether a delivery of the event carries its data
// (Delivery.Payload) rather than naming a response to read.
func CarriesPayload(event string) bool {
	return event == EventResponsePartial || event == EventSurveyFull || event == EventDomainSuspended
}

// NamesResponse reports whether a delivery of the event is about one
// response (or partial: its id is of the responses' id space), whose id
// the deliveries list shows. A survey's filling and a domain's suspension
// are about none: the id their deliveries carry only names the event among
// the survey's (CapFill.ID), and is no response's, so the list shows null.
func NamesResponse(event string) bool {
	return event != EventSurveyFull && event != EventDomainSuspended
}

// Webhook limits.
const (
	MaxWebhooks         = 10   // a survey's webhooks
	MaxWebhookHeaders   = 20   // extra headers of one webhook
	MaxHeaderName       = 100  // characters
	MaxHeaderValue      = 1000 // characters
	NotificationWebhook = 5    // recipient_type of a webhook notification
	NotificationSending = 3    // sending_method of a webhook notification
	WebhookMethod       = "POST"
)

// Sending methods of a notification (the real service's sending_method):
// an email, an SMS, or a webhook (contract sections 13 and 21).
const (
	SendingEmail   = 1
	SendingSMS     = 2
	SendingWebhook = NotificationSending
)

// Notification recipients.
const (
	// MaxRecipients bounds the people an email or SMS notification names.
	MaxRecipients = 10
	// MinRecipientType and MaxRecipientType bound the recipient_type of an
	// email or SMS notification (the real service's kinds of people; the
	// list of recipients is who is told).
	MinRecipientType = 1
	MaxRecipientType = 4
)

// Webhook is one endpoint of a survey.
//
// Webhooks (contract section 13): an owner's endpoint told of each new
// response of a survey, signed per the Standard Webhooks specification.
type Webhook struct {
	ID       int64
	SurveyID int64
	URL      string
	Events   []string
	Active   bool
	// Headers are added to every delivery (the notifications shape's
	// webhook_headers).
	Headers map[string]string
	Created time.Time
	// SealedSecret is the signing secret as sealed under the KMS data key
	// (shared/links); the plain secret is shown once, at creation.
	SealedSecret string
	// Breaker is its deliveries' circuit breaker, as the owner's reads
	// show it.
	Breaker Breaker
	// Method is how it tells: SendingWebhook (0 reads as it: webhooks
	// stored before email and SMS), SendingEmail or SendingSMS. An email
	// or SMS notification has no URL, headers nor secret, but its
	// RecipientType and Recipients (addresses, or numbers in E.164).
	Method        int64
	RecipientType int64
	Recipients    []string
}

// SendingMethod is the webhook's sending_method.
func (w Webhook) SendingMethod() int64 {
	if w.Method == 0 {
		return SendingWebhook
	}
	return w.Method
}

// Sends reports whether the webhook is an email or SMS notification
// (sent through shared/sending, not POSTed).
func (w Webhook) Sends() bool {
	m := w.SendingMethod()
	return m == SendingEmail || m == SendingSMS
}

// Subscribes reports whether the webhook wants the event now.
func (w Webhook) Subscribes(event string) bool {
	if !w.Active {
		return false
	}
	for _, e := range w.Events {
		if e == event {
			return true
		}
	}
	return false
}

// WebhookView is a webhook as the webhooks routes answer it. Secret is set
// only in the answer to its creation.
type WebhookView struct {
	ID        int64             `json:"id"`
	URL       string            `json:"url"`
	Events    []string          `json:"events"`
	Active    bool              `json:"active"`
	Headers   map[string]string `json:"headers"`
	CreatedAt string            `json:"created_at"`
	// ConsecutiveFailures counts the failed attempts since the last
	// success; PausedUntil is set while the circuit breaker holds the
	// deliveries back (a success or a PATCH of the webhook resumes them).
	ConsecutiveFailures int     `json:"consecutive_failures"`
	PausedUntil         *string `json:"paused_until"`
	Secret              *string `json:"secret,omitempty"`
}

// View renders the webhook for its owner.
func (w Webhook) View() WebhookView {
	v := WebhookView{ID: w.ID, URL: w.URL, Events: nonNil(w.Events), Active: w.Active,
		Headers: headersOrEmpty(w.Headers), CreatedAt: w.Created.UTC().Format(TimestampLayout),
		ConsecutiveFailures: w.Breaker.Failures}
	if !w.Breaker.OpenUntil.IsZero() {
		s := w.Breaker.OpenUntil.UTC().Format(TimestampLayout)
		v.PausedUntil = &s
	}
	return v
}

// NotificationView is the same webhook in the real service's notifications
// shape (recipient_type 5 and sending_method 3 mean "webhook").
type NotificationView struct {
	ID              int64             `json:"id"`
	RecipientType   int64             `json:"recipient_type"`
	SendingMethod   int64             `json:"sending_method"`
	WebhookEndpoint string            `json:"webhook_endpoint"`
	WebhookHeaders  map[string]string `json:"webhook_headers"`
	WebhookMethod   string            `json:"webhook_method"`
	// Recipients are an email or SMS notification's people (empty for
	// a webhook).
	Recipients []string `json:"recipients"`
	Enabled    bool     `json:"enabled"`
	Secret     *string  `json:"secret,omitempty"`
	// Events: contract section 20 (response.partial on this route too).
	Events []string `json:"events"`
}

// Notification renders the webhook in the notifications shape.
func (w Webhook) Notification() NotificationView {
	v := NotificationView{ID: w.ID, RecipientType: NotificationWebhook, SendingMethod: NotificationSending,
		WebhookEndpoint: w.URL, WebhookHeaders: headersOrEmpty(w.Headers), WebhookMethod: WebhookMethod, Recipients: []string{}, Enabled: w.Active,
		Events: w.Events}
	if w.Sends() {
		v.RecipientType, v.SendingMethod, v.Recipients = w.RecipientType, w.SendingMethod(), nonNil(w.Recipients)
	}
	return v
}

func headersOrEmpty(h map[string]string) map[string]string {
	if h == nil {
		return map[string]string{}
	}
	return h
}

// reservedHeaders are set by the delivery itself (or by HTTP): a webhook's
// own headers may not replace them. Content-Type is not one: a webhook may
// name its own (it replaces the delivery's application/json; the body and
// its signature are the same), as the real service's clients send it
// (contract section 21).
var reservedHeaders = map[string]bool{
	"webhook-id": true, "webhook-timestamp": true, "webhook-signature": true,
	"content-length": true, "host": true, "user-agent": true,
	"connection": true, "keep-alive": true, "transfer-encoding": true, "te": true, "trailer": true,
	"upgrade": true, "proxy-authorization": true, "proxy-connection": true, "expect": true,
}

// MaskedHeader replaces every header value a viewer reads (contract
// section 19 as amended): a header's value is often a credential
// (Authorization: Bearer ...), and viewers write nothing.
const MaskedHeader = "********"

// MaskedHeaders is the headers with every value replaced by MaskedHeader,
// for a reader who may not write the webhook.
func MaskedHeaders(h map[string]string) map[string]string {
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = MaskedHeader
	}
	return out
}

// MsgMaskedUnknown refuses a masked value for a header the webhook does not
// have: there is no value for it to keep.
const MsgMaskedUnknown = "\"********\" keeps a header's stored value; this webhook has no such header."

// UnmaskHeaders makes a read-then-write round trip safe: in the headers a
// write sends, a value that is exactly MaskedHeader keeps the stored
// value of the header of that name (compared case-insensitively, as HTTP
// does), so that a client writing back what it read never replaces a
// secret with the mask. A masked value for a header not stored is a
// problem by name (400 on it); nil problems otherwise.
func UnmaskHeaders(sent, stored map[string]string) (map[string]string, map[string]any) {
	var problems map[string]any
	out := make(map[string]string, len(sent))
	for k, v := range sent {
		if v != MaskedHeader {
			out[k] = v
			continue
		}
		kept, ok := "", false
		for sk, sv := range stored {
			if strings.EqualFold(sk, k) {
				kept, ok = sv, true
			}
		}
		if !ok {
			if problems == nil {
				problems = map[string]any{}
			}
			problems[k] = []string{MsgMaskedUnknown}
			continue
		}
		out[k] = kept
	}
	return out, problems
}

// HeaderProblem returns why a webhook header may not be sent, or "".
func HeaderProblem(name, value string) string {
	switch {
	case name == "" || len(name) > MaxHeaderName:
		return "Enter a header name of 1 to 100 characters."
	case strings.ContainsFunc(name, func(r rune) bool { return !tokenChar(r) }):
		return "A header name may contain only letters, digits and !#$%&'*+-.^_`|~."
	case reservedHeaders[strings.ToLower(name)]:
		return "This header is set by the delivery itself."
	case len([]rune(value)) > MaxHeaderValue:
		return "Ensure this value has no more than 1000 characters."
	case strings.IndexByte(value, 0) >= 0: // section 3: as every string field
		return MsgNullCharacter
	case strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
		return "A header value may not contain control characters."
	}
	return ""
}

func tokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// The statuses of a delivery.
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliverySucceeded DeliveryStatus = "succeeded"
	DeliveryFailed    DeliveryStatus = "failed"
)

// DeliveryRetention is how long deliveries are listed (and kept).
const DeliveryRetention = 30 * 24 * time.Hour

// Delivery is one event on its way to one webhook, and its attempts.
type Delivery struct {
	WebhookID  int64
	SurveyID   int64
	ResponseID int64
	Event      string
	// Created is the event's time (the response's submission): with the
	// response id it makes the delivery's id, so the same event always
	// makes the same delivery.
	Created time.Time
	Status  DeliveryStatus
	// Attempts counts the requests sent (one cut short by a timeout
	// included); Held the scheduled attempts the webhook's open breaker
	// held back, no request made. See Step.
	Attempts       int
	Held           int
	LastStatusCode int       // 0: no HTTP answer yet
	LastAttempt    time.Time // zero: no request yet
	NextAttempt    time.Time // zero: none planned
	LastError      string
	// Payload is the event's data.response when the event carries it
	// fixed at its time (response.partial: the partial as it was then,
	// a PartialView), else nil.
	Payload json.RawMessage
}

// Step is the delivery's place in its retry schedule: the attempts made
// and the ones the breaker held back. A paused delivery goes on through
// its schedule (so it still fails after the schedule's span), and each
// step is claimed once: jobs name the step they are for.
func (d Delivery) Step() int { return d.Attempts + d.Held }

// ID is the delivery's id: its event's time (Unix microseconds) and
// response id, so ids sort by time within a webhook.
func (d Delivery) ID() string { return DeliveryID(d.Created, d.ResponseID) }

// DeliveryID makes a delivery id.
func DeliveryID(created time.Time, rid int64) string {
	return strconv.FormatInt(created.UnixMicro(), 10) + "-" + strconv.FormatInt(rid, 10)
}

// ParseDeliveryID reads a delivery id; ok is false for anything that is
// not one.
func ParseDeliveryID(s string) (created time.Time, rid int64, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found || !digits(a, 18) || !digits(b, 19) {
		return time.Time{}, 0, false
	}
	micros, err1 := strconv.ParseInt(a, 10, 64)
	rid, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || rid < 1 || micros < 1 {
		return time.Time{}, 0, false
	}
	return time.UnixMicro(micros).UTC(), rid, true
}

func digits(s string, max int) bool {
	if s == "" || len(s) > max || s[0] == '0' {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// MessageID is the Standard Webhooks webhook-id of a delivery: the same at
// every attempt, so receivers can drop a repeat.
func (d Delivery) MessageID() string {
	return "msg_" + strconv.FormatInt(d.WebhookID, 10) + "_" + d.ID()
}

// DeliveryView is a delivery as the deliveries route answers it.
type DeliveryView struct {
	ID             string         `json:"id"`
	Event          string         `json:"event"`
	ResponseID     *int64         `json:"response_id"` // null for an event about no response (NamesResponse)
	Status         DeliveryStatus `json:"status"`
	Attempts       int            `json:"attempts"`
	LastStatusCode *int           `json:"last_status_code"`
	LastAttemptAt  *string        `json:"last_attempt_at"`
	NextAttemptAt  *string        `json:"next_attempt_at"`
	LastError      *string        `json:"last_error"`
	CreatedAt      string         `json:"created_at"`
}

// View renders the delivery for its owner.
func (d Delivery) View() DeliveryView {
	v := DeliveryView{ID: d.ID(), Event: d.Event, Status: d.Status, Attempts: d.Attempts,
		CreatedAt: d.Created.UTC().Format(TimestampLayout)}
	if NamesResponse(d.Event) {
		rid := d.ResponseID
		v.ResponseID = &rid
	}
	if d.LastStatusCode != 0 {
		c := d.LastStatusCode
		v.LastStatusCode = &c
	}
	if !d.LastAttempt.IsZero() {
		s := d.LastAttempt.UTC().Format(TimestampLayout)
		v.LastAttemptAt = &s
	}
	if !d.NextAttempt.IsZero() {
		s := d.NextAttempt.UTC().Format(TimestampLayout)
		v.NextAttemptAt = &s
	}
	if d.LastError != "" {
		e := d.LastError
		v.LastError = &e
	}
	return v
}

// EventBody is a delivery's JSON body (Standard Webhooks' type, timestamp
// and data). It is the same at every attempt.
type EventBody struct {
	Type      string    `json:"type"`
	Timestamp string    `json:"timestamp"`
	Data      EventData `json:"data"`
	// FormResponse repeats the response for the Porsline n8n trigger node
	// (asedmammad/n8n-nodes-porsline), which throws away any body without
	// form_response.definition and form_response.answers
	// (PorslineTrigger.node.ts, webhook()): Typeform's shape, which the
	// node was written against.
	FormResponse FormResponse `json:"form_response"`
}

// FormResponse is a response as Typeform's form_response: the form (the
// survey, with the fields answered) and the answers in element order.
type FormResponse struct {
	FormID      string         `json:"form_id"`
	Token       string         `json:"token"`
	SubmittedAt string         `json:"submitted_at"`
	Definition  FormDefinition `json:"definition"`
	Answers     []FormAnswer   `json:"answers"`
}

// FormDefinition is the form of a FormResponse.
type FormDefinition struct {
	ID     string      `json:"id"`
	Fields []FormField `json:"fields"`
}

// FormField names an element of the survey.
type FormField struct {
	ID string `json:"id"`
}

// FormAnswer is one element's answer, as the API gives it.
type FormAnswer struct {
	Field FormField       `json:"field"`
	Value json.RawMessage `json:"value"`
}

// EventData is what a response.submitted event carries.
type EventData struct {
	SurveyID int64        `json:"survey_id"`
	Response ResponseView `json:"response"`
}

// SubmittedEvent is the body of the response.submitted event of r.
func SubmittedEvent(r Response) EventBody {
	return eventBody(EventResponseSubmitted, r.SubmittedAt, r)
}

// eventBody is the body of an event of r stamped at: the response as its
// owner sees it, twice (data.response and form_response).
func eventBody(event string, at time.Time, r Response) EventBody {
	v := r.View()
	return EventBody{Type: event, Timestamp: at.UTC().Format(TimestampLayout),
		Data: EventData{SurveyID: r.SurveyID, Response: v}, FormResponse: formResponse(r.SurveyID, v)}
}

// formResponse is a response's view as Typeform's form_response: the very
// answers data.response carries (a file's name and size, never its
// upload), in element order.
func formResponse(sid int64, v ResponseView) FormResponse {
	ids := slices.SortedFunc(maps.Keys(v.Answers), func(a, b string) int {
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		return cmp.Compare(x, y)
	})
	form := strconv.FormatInt(sid, 10)
	f := FormResponse{FormID: form, Token: strconv.FormatInt(v.ID, 10), SubmittedAt: v.SubmittedAt,
		Definition: FormDefinition{ID: form, Fields: make([]FormField, len(ids))}, Answers: make([]FormAnswer, len(ids))}
	for i, id := range ids {
		f.Definition.Fields[i], f.Answers[i] = FormField{ID: id}, FormAnswer{Field: FormField{ID: id}, Value: v.Answers[id]}
	}
	return f
}

// PartialEvent is the body of a response.partial delivery: the partial
// (a PartialView, as JSON) as it was when it was saved at.
func PartialEvent(sid int64, at time.Time, partial json.RawMessage) ([]byte, error) {
	return json.Marshal(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      any    `json:"data"`
	}{Type: EventResponsePartial, Timestamp: at.UTC().Format(TimestampLayout), Data: struct {
		SurveyID int64           `json:"survey_id"`
		Response json.RawMessage `json:"response"`
	}{sid, partial}})
}

// FullEvent is the body of a survey.full delivery: its data (CapFill's
// payload) as it was when the cap filled, at.
func FullEvent(at time.Time, data json.RawMessage) ([]byte, error) {
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{Type: EventSurveyFull, Timestamp: at.UTC().Format(TimestampLayout), Data: data})
}

// PayloadEvent is the body of a delivery whose data travels with it
// (survey.full, domain.suspended): {"type", "timestamp", "data"}.
func PayloadEvent(event string, at time.Time, data json.RawMessage) ([]byte, error) {
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{Type: event, Timestamp: at.UTC().Format(TimestampLayout), Data: data})
}

// EventOf is the body of a delivery's event of r: response.updated
// carries the response as edited, stamped with its edited_at.
func EventOf(event string, r Response) EventBody {
	if event != EventResponseUpdated {
		return SubmittedEvent(r)
	}
	return eventBody(EventResponseUpdated, r.EditedAt, r)
}
