// Package deliver sends webhook deliveries: it consumes the delivery
// queue (Amazon SQS), signs each event per the Standard Webhooks
// specification and POSTs it through the SSRF guard, records the outcome,
// and lets the queue time the retries (visibility timeouts growing per the
// schedule), then marks the delivery failed. Lambda runs it on the queue
// (functions/deliver/lambda); `make run` feeds it the same events from
// moto's queue.
package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// Store is what delivery reads and writes; *store.Store implements it.
type Store interface {
	ReadDeliveryInputs(ctx context.Context, keys []store.DeliveryKey) (store.DeliveryInputs, error)
	RecordAttempt(ctx context.Context, d survey.Delivery) error
}

var _ Store = (*store.Store)(nil)

// Opener opens the sealed secrets; *links.Sealer implements it.
type Opener interface {
	OpenFor(ctx context.Context, purpose links.Purpose, owner int64, token string) ([]byte, error)
}

// Queue is the delivery queue; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
	RedeliverAfter(ctx context.Context, receipt string, d time.Duration) error
}

var _ Queue = webhook.Queue{}

// Deliverer handles batches of queue messages.
type Deliverer struct {
	Store  Store
	Opener Opener
	Queue  Queue
	// Client sends the deliveries: webhook.Guard.Client, so that every
	// connection goes only where the guard allows.
	Client *http.Client
	// Delays is the retry schedule (webhook.DefaultDelays in AWS).
	Delays []time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// UserAgent identifies the deliveries to receivers.
const UserAgent = "SurveyService-Webhooks/1.0"

// outcome is what became of one message.
type outcome int

const (
	done  outcome = iota // delete it: delivered, failed for good, or nothing to do
	retry                // leave it: it comes back when its visibility ends
)

// msg is one message of the batch, decoded.
type msg struct {
	raw  events.SQSMessage
	job  webhook.Job
	sent time.Time
}

func (d *Deliverer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Handle attempts every message of a batch at once and answers the
// messages to keep (SQS's partial batch response): those whose retry is
// scheduled by their visibility, and any that could not be processed (they
// come back after the queue's visibility timeout; after maxReceiveCount
// receives, the dead-letter queue keeps them). A cancelled context (the
// function killed) keeps every message not yet finished.
func (d *Deliverer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var msgs []msg
	var keys []store.DeliveryKey
	for _, m := range ev.Records {
		job, err := webhook.DecodeJob(m.Body)
		if err != nil {
			slog.ErrorContext(ctx, "deliver: not a job; dropped", "message_id", m.MessageId)
			continue
		}
		created, rid, ok := survey.ParseDeliveryID(job.Delivery)
		if !ok || rid != job.ResponseID {
			slog.ErrorContext(ctx, "deliver: not a delivery id; dropped", "message_id", m.MessageId)
			continue
		}
		sent := time.Now()
		if ms, err := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64); err == nil {
			sent = time.UnixMilli(ms)
		}
		msgs = append(msgs, msg{raw: m, job: job, sent: sent})
		keys = append(keys, store.DeliveryKey{SurveyID: job.SurveyID, WebhookID: job.WebhookID, ResponseID: job.ResponseID, Created: created})
	}
	var resp events.SQSEventResponse
	// leaveOnQueue reports m as a failure of the batch: SQS keeps it, to
	// hand it out again when its visibility ends.
	leaveOnQueue := func(m msg) {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.raw.MessageId})
	}
	// Early copies (re-sent to wait longer than a visibility may last) go
	// back to sleep without any read.
	now := d.now()
	var due []msg
	var dueKeys []store.DeliveryKey
	for i, m := range msgs {
		if wait := time.Unix(m.job.NotBefore, 0).Sub(now); m.job.NotBefore > 0 && wait > time.Second {
			if err := d.Queue.RedeliverAfter(ctx, m.raw.ReceiptHandle, min(wait, visibilityLeft(m.sent, now))); err != nil {
				slog.ErrorContext(ctx, "deliver: hide an early job", "error", err.Error())
			}
			leaveOnQueue(m)
			continue
		}
		due, dueKeys = append(due, m), append(dueKeys, keys[i])
	}
	if len(due) == 0 {
		return resp, nil
	}
	in, err := d.Store.ReadDeliveryInputs(ctx, dueKeys)
	if err != nil {
		slog.ErrorContext(ctx, "deliver: read", "error", err.Error())
		for _, m := range due {
			leaveOnQueue(m)
		}
		return resp, nil
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range due {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d.attempt(ctx, in, m) == retry || ctx.Err() != nil {
				mu.Lock()
				leaveOnQueue(m)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return resp, nil
}

// visibilityLeft is how much longer a message sent at sent may be hidden,
// with a minute of margin.
func visibilityLeft(sent, now time.Time) time.Duration {
	return max(webhook.MaxVisibility-now.Sub(sent)-time.Minute, 0)
}

// attempt makes one attempt of one delivery, records it and plans what
// follows.
func (d *Deliverer) attempt(ctx context.Context, in store.DeliveryInputs, m msg) outcome {
	j := m.job
	dl, ok := in.Deliveries[store.InputKey(j.WebhookID, j.Delivery)]
	switch {
	case !ok:
		slog.WarnContext(ctx, "deliver: no such delivery (expired?); dropped", "webhook_id", j.WebhookID, "delivery", j.Delivery)
		return done
	case dl.Status == survey.DeliverySucceeded:
		return done // a repeated job: the receiver has it
	case dl.Status == survey.DeliveryFailed && !j.Manual:
		return done
	}
	var wh *survey.Webhook
	for _, h := range in.Webhooks[j.SurveyID] {
		if h.ID == j.WebhookID {
			wh = &h
			break
		}
	}
	r, haveResponse := in.Responses[j.ResponseID]
	now := d.now()
	switch {
	case wh == nil || !wh.Subscribes(dl.Event):
		return d.finish(ctx, dl, now, 0, "The webhook was deleted or deactivated.")
	case !haveResponse:
		return d.finish(ctx, dl, now, 0, "The response no longer exists.")
	}
	secret, err := d.Opener.OpenFor(ctx, links.PurposeWebhookSecret, wh.ID, wh.SealedSecret)
	if err != nil {
		slog.ErrorContext(ctx, "deliver: open the secret", "webhook_id", wh.ID, "error", err.Error())
		return retry
	}
	key, err := webhook.SecretKey(string(secret))
	if err != nil {
		slog.ErrorContext(ctx, "deliver: malformed secret", "webhook_id", wh.ID)
		return retry
	}
	body, err := json.Marshal(survey.SubmittedEvent(r))
	if err != nil {
		slog.ErrorContext(ctx, "deliver: encode the event", "error", err.Error())
		return retry
	}
	status, problem := d.post(ctx, *wh, dl, key, body)
	if ctx.Err() != nil {
		return retry // killed mid-way: the message comes back, nothing recorded
	}
	dl.Attempts++
	dl.LastStatusCode, dl.LastAttempt, dl.LastError = status, now, problem
	if problem == "" {
		dl.Status, dl.NextAttempt = survey.DeliverySucceeded, time.Time{}
		if err := d.Store.RecordAttempt(ctx, dl); err != nil {
			// Sent but not recorded: keep the message, so that the log
			// ends up right (the receiver may see it twice, which
			// at-least-once allows and its webhook-id lets it drop).
			if ctx.Err() == nil {
				slog.ErrorContext(ctx, "deliver: record a success", "error", err.Error())
			}
			return retry
		}
		return done
	}
	delay, again := webhook.NextDelay(d.Delays, dl.Attempts)
	if !again {
		return d.finish(ctx, dl, now, status, problem)
	}
	dl.Status, dl.NextAttempt = survey.DeliveryPending, now.Add(delay)
	if err := d.Store.RecordAttempt(ctx, dl); err != nil {
		slog.ErrorContext(ctx, "deliver: record a failure", "error", err.Error())
		return retry
	}
	return d.schedule(ctx, m, now, delay)
}

// schedule makes the message come back after delay: by hiding it when its
// visibility may last that long, else by sending a copy that waits
// (SQS's own delay, then hiding again on early receipt) and letting this
// one go.
func (d *Deliverer) schedule(ctx context.Context, m msg, now time.Time, delay time.Duration) outcome {
	if delay <= visibilityLeft(m.sent, now) {
		if err := d.Queue.RedeliverAfter(ctx, m.raw.ReceiptHandle, delay); err != nil {
			slog.ErrorContext(ctx, "deliver: schedule a retry", "error", err.Error())
		}
		return retry
	}
	copyJob := m.job
	copyJob.NotBefore, copyJob.Manual = now.Add(delay).Unix(), false
	if err := d.Queue.Send(ctx, []webhook.Job{copyJob}, delay); err != nil {
		slog.ErrorContext(ctx, "deliver: re-send a retry", "error", err.Error())
		return retry
	}
	return done
}

// finish marks a delivery failed for good.
func (d *Deliverer) finish(ctx context.Context, dl survey.Delivery, now time.Time, status int, problem string) outcome {
	dl.Status, dl.NextAttempt, dl.LastStatusCode, dl.LastError = survey.DeliveryFailed, time.Time{}, status, problem
	if dl.LastAttempt.IsZero() || status != 0 {
		dl.LastAttempt = now
	}
	if err := d.Store.RecordAttempt(ctx, dl); err != nil {
		slog.ErrorContext(ctx, "deliver: record a failure", "error", err.Error())
		return retry
	}
	return done
}

// post sends one signed delivery and answers the status code, and a
// problem for the owner's log ("" when it was a 2xx).
func (d *Deliverer) post(ctx context.Context, wh survey.Webhook, dl survey.Delivery, key, body []byte) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, webhook.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, "The URL cannot be requested."
	}
	for k, v := range wh.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	webhook.SetHeaders(req.Header, key, dl.MessageID(), d.now(), body)
	resp, err := d.Client.Do(req)
	if err != nil {
		return 0, describe(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, fmt.Sprintf("The receiver answered %d.", resp.StatusCode)
}

// describe words a failed exchange for the owner, without internals.
func describe(err error) string {
	var re *webhook.RefusedError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		return re.Msg
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("The receiver did not answer within %d seconds.", int(webhook.Timeout/time.Second))
	default:
		return "The receiver could not be reached."
	}
}
