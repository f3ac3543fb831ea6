// Package deliver sends webhook deliveries: it consumes the delivery
// queue (Amazon SQS), claims each attempt on the delivery item (one chain
// of attempts a delivery), signs the event per the Standard Webhooks
// specification and POSTs it through the SSRF guard unless the webhook's
// circuit breaker holds it back, records the outcome on its claim, and
// plans the next attempt: a delayed message for waits within SQS's 15
// minutes, the due index (functions/retrier) for longer ones; after the
// schedule the delivery is failed. Lambda runs it on the queue
// (functions/deliver/lambda); `make run` feeds it the same events from
// moto's queue.
package deliver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/links"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// Store is what delivery reads and writes; *store.Store implements it.
type Store interface {
	ReadDeliveryInputs(ctx context.Context, keys []store.DeliveryKey) (store.DeliveryInputs, error)
	ClaimAttempt(ctx context.Context, d survey.Delivery, token string, until time.Time) (bool, error)
	RecordAttempt(ctx context.Context, d survey.Delivery, token string, due time.Time) (bool, error)
	RecordPaused(ctx context.Context, d survey.Delivery, token string, due time.Time) (bool, error)
	ResumePaused(ctx context.Context, wid int64, now time.Time, limit int) ([]survey.Delivery, bool, error)
	MarkResume(ctx context.Context, sid, wid int64) error
	BreakerFailed(ctx context.Context, sid, wid int64, now time.Time, pauseFor func(int) time.Duration) (survey.Breaker, error)
	TakeProbe(ctx context.Context, sid, wid int64, now, until time.Time) (bool, error)
	CloseBreaker(ctx context.Context, sid, wid int64) error
	MarkSlow(ctx context.Context, sid, wid int64, until time.Time) error
	ReleaseClaim(ctx context.Context, d survey.Delivery, token string) error
	NoticeSurvey(ctx context.Context, sid int64) (survey.Survey, error)
}

var _ Store = (*store.Store)(nil)

// Opener opens the sealed secrets; *links.Sealer implements it.
type Opener interface {
	OpenFor(ctx context.Context, purpose links.Purpose, owner int64, token string) ([]byte, error)
}

// Queue is the delivery queue; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

var _ Queue = webhook.Queue{}

// Deps are the function's dependencies and tuning.
type Deps struct {
	Store  Store
	Opener Opener
	Queue  Queue
	// Slow is the slow lane: a queue of its own, with a concurrency of
	// its own, for the webhooks that failed or were slow lately and the
	// deliveries tried before. A message of the main queue whose webhook
	// is suspect (survey.Breaker.Suspect) or whose delivery is past its
	// first step is moved there before any request, and a failed
	// attempt's retry is queued there, so a dead or slow receiver
	// takes its timeouts out of the slow lane's concurrency, not the
	// main lane's. No attempt is ever cut short to change lanes: a
	// receiver has its whole Timeout in either. SlowARN tells its
	// messages apart. nil: one lane.
	Slow    Queue
	SlowARN string
	// Client sends the deliveries: webhook.Guard.Client, so that every
	// connection goes only where the guard allows.
	Client *http.Client
	// Delays is the retry schedule (webhook.DefaultDelays in AWS).
	Delays []time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxDelay is the longest wait sent as a delayed message; longer ones
	// are the retrier's. 0 means webhook.MaxSendDelay; negative, every
	// wait is the retrier's.
	MaxDelay time.Duration
	// Lease is how long an attempt's claim holds; 0 means
	// webhook.ClaimLease.
	Lease time.Duration
	// Timeout is how long a receiver has; 0 means webhook.Timeout (the
	// contract's 10 s; tests shorten it).
	Timeout time.Duration
	// Budget is how long an attempt waits for its receiver before the
	// webhook is marked slow (its next attempts are the slow lane's); the
	// attempt itself goes on to Timeout. 0 means webhook.MainLaneBudget.
	Budget time.Duration
	// Sender sends email and SMS notifications (sending_method 1 and 2),
	// each spent from Budgets under Limits (VERIFY_LIMITS' survey and
	// account figures); BaseURL is the API's address, which their links
	// to the response start with. A nil Sender fails them.
	Sender  sending.Sender
	Budgets *sending.Budgets
	Limits  sending.Limits
	BaseURL string
}

// Deliverer handles batches of queue messages.
type Deliverer struct{ Deps }

// New returns the function's handler.
func New(d Deps) *Deliverer { return &Deliverer{Deps: d} }

func (d *Deliverer) budget() time.Duration {
	if d.Budget > 0 {
		return d.Budget
	}
	return webhook.MainLaneBudget
}

func (d *Deliverer) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return webhook.Timeout
}

func (d *Deliverer) maxDelay() time.Duration {
	if d.MaxDelay == 0 {
		return webhook.MaxSendDelay
	}
	return min(d.MaxDelay, webhook.MaxSendDelay)
}

func (d *Deliverer) lease() time.Duration {
	if d.Lease > 0 {
		return d.Lease
	}
	return webhook.ClaimLease
}

// UserAgent identifies the deliveries to receivers.
const UserAgent = "SurveyService-Webhooks/1.0"

// MsgPaused is the log's word for an attempt the breaker held back.
const MsgPaused = "Not sent: the webhook is paused after repeated failures."

// Time kept for recording an attempt: a request is given at most the
// function's time left less recordMargin (so that a request cut short by
// the function's deadline is still recorded, and counted, as an
// attempt), and none is made with less than minRequest to give.
const (
	recordMargin = 3 * time.Second
	minRequest   = time.Second
)

// outcome is what became of one message.
type outcome int

const (
	done  outcome = iota // delete it: attempted and recorded, or nothing to do
	retry                // keep it: it could not be processed; it comes back after the visibility timeout
)

// msg is one message of the batch, decoded.
type msg struct {
	raw events.SQSMessage
	job webhook.Job
}

func (d *Deliverer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Handle attempts every message of a batch at once and answers the
// messages to keep (SQS's partial batch response): only those that could
// not be processed (the store unreachable, the function killed); they come
// back after the queue's visibility timeout, and after MaxReceives
// receives the dead-letter queue keeps them. A retry is never a kept
// message: it is a new (delayed) message or, for waits past MaxSendDelay,
// the retrier's, so no message is in flight while it waits.
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
		msgs = append(msgs, msg{raw: m, job: job})
		keys = append(keys, store.DeliveryKey{SurveyID: job.SurveyID, WebhookID: job.WebhookID, ResponseID: job.ResponseID, Created: created})
	}
	var resp events.SQSEventResponse
	keep := func(m msg) {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.raw.MessageId})
	}
	if len(msgs) == 0 {
		return resp, nil
	}
	in, err := d.Store.ReadDeliveryInputs(ctx, keys)
	if err != nil {
		slog.ErrorContext(ctx, "deliver: read", "error", err.Error())
		for _, m := range msgs {
			keep(m)
		}
		return resp, nil
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d.attempt(ctx, in, m) == retry || ctx.Err() != nil {
				mu.Lock()
				keep(m)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return resp, nil
}

// token is a claim's own mark.
func token() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// attempt makes one attempt of one delivery, on its claim, records it and
// plans what follows.
func (d *Deliverer) attempt(ctx context.Context, in store.DeliveryInputs, m msg) outcome {
	j := m.job
	dl, ok := in.Deliveries[store.InputKey(j.WebhookID, j.Delivery)]
	switch {
	case !ok:
		slog.WarnContext(ctx, "deliver: no such delivery (expired?); dropped", "webhook_id", j.WebhookID, "delivery", j.Delivery)
		return done
	case dl.Status != survey.DeliveryPending || dl.Step() != j.Attempt:
		return done // a copy of a job whose step was taken, or a delivery settled
	}
	var wh *survey.Webhook
	for _, h := range in.Webhooks[j.SurveyID] {
		if h.ID == j.WebhookID {
			wh = &h
			break
		}
	}
	r, haveResponse := in.Responses[j.ResponseID]
	if survey.CarriesPayload(dl.Event) {
		// The partial as it was then (or the fill of survey.full)
		// travels with its delivery.
		haveResponse = len(dl.Payload) > 0
	}
	var breaker survey.Breaker
	if wh != nil {
		breaker = in.Breakers[wh.ID]
	}
	mainLane := d.Slow != nil && m.raw.EventSourceARN != d.SlowARN
	if mainLane && (breaker.Suspect(d.now()) || dl.Step() > 0) && !breaker.Open(d.now()) {
		// The webhook failed lately or was slow, or this delivery was
		// tried before (a retry the retrier or the owner queued, one a
		// closed breaker resumed): its attempt, which may take the whole
		// timeout, is the slow lane's, before any request is made. (A
		// paused one's is held back here at once: no request is made.)
		err := d.Slow.Send(ctx, []webhook.Job{j}, 0)
		if err == nil {
			return done
		}
		slog.ErrorContext(ctx, "deliver: move a job to the slow lane", "error", err.Error())
	}
	now := d.now()
	tok := token()
	claimed, err := d.Store.ClaimAttempt(ctx, dl, tok, now.Add(d.lease()))
	switch {
	case err != nil:
		slog.ErrorContext(ctx, "deliver: claim", "error", err.Error())
		return retry
	case !claimed:
		return done // another copy of the job has the attempt
	}
	a := claim{dl: dl, token: tok, now: now}
	switch {
	case wh == nil || !wh.Subscribes(dl.Event):
		return d.fail(ctx, a, "The webhook was deleted or deactivated.")
	case !haveResponse:
		return d.fail(ctx, a, "The response no longer exists.")
	case wh.Sends():
		return d.notify(ctx, a, *wh, r)
	}
	if !breaker.OpenUntil.IsZero() {
		probe := false
		if !breaker.Open(now) {
			if probe, err = d.Store.TakeProbe(ctx, j.SurveyID, wh.ID, now, now.Add(webhook.ProbeLease)); err != nil {
				slog.ErrorContext(ctx, "deliver: take a probe", "error", err.Error())
			}
		}
		if !probe {
			a.paused = true
			return d.failed(ctx, a, 0, MsgPaused)
		}
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
	var body []byte
	switch dl.Event {
	case survey.EventResponsePartial:
		body, err = survey.PartialEvent(dl.SurveyID, dl.Created, dl.Payload)
	case survey.EventSurveyFull:
		body, err = survey.FullEvent(dl.Created, dl.Payload)
	case survey.EventDomainSuspended:
		body, err = survey.PayloadEvent(dl.Event, dl.Created, dl.Payload)
	default:
		body, err = json.Marshal(survey.EventOf(dl.Event, r))
	}
	if err != nil {
		slog.ErrorContext(ctx, "deliver: encode the event", "error", err.Error())
		return retry
	}
	// The receiver has its whole timeout, in either lane, unless the
	// function has less time left: then the request is cut at the
	// function's time less recordMargin, and recorded as an attempt.
	timeout, cutShort := d.timeout(), false
	if deadline, ok := ctx.Deadline(); ok {
		left := time.Until(deadline) - recordMargin
		if left < minRequest {
			// Too late to make the request and record it: given up
			// unmade; the message comes back and claims it again.
			if err := d.Store.ReleaseClaim(ctx, a.dl, a.token); err != nil {
				slog.ErrorContext(ctx, "deliver: release a claim", "error", err.Error())
			}
			return retry
		}
		if left < timeout {
			timeout, cutShort = left, true
		}
	}
	stop := d.markSlowAfter(ctx, j.SurveyID, wh.ID, breaker)
	status, problem := d.post(ctx, *wh, dl, key, body, wait{timeout, cutShort})
	wasSlow := stop()
	if ctx.Err() != nil {
		return retry // killed mid-way: nothing recorded; the claim lapses and the message comes back
	}
	if problem != "" {
		if _, err := d.Store.BreakerFailed(ctx, j.SurveyID, wh.ID, now, webhook.PauseFor); err != nil {
			slog.ErrorContext(ctx, "deliver: count a failure", "webhook_id", wh.ID, "error", err.Error())
		}
		return d.failed(ctx, a, status, problem)
	}
	a.dl.Attempts++
	a.dl.LastStatusCode, a.dl.LastAttempt, a.dl.LastError = status, now, ""
	a.dl.Status, a.dl.NextAttempt = survey.DeliverySucceeded, time.Time{}
	if out := d.record(ctx, a, time.Time{}, "a success"); out != done {
		// Sent but not recorded: keep the message, so that the log ends
		// up right (the receiver may see it twice, which at-least-once
		// allows and its webhook-id lets it drop).
		return out
	}
	if breaker.Failures > 0 || !breaker.OpenUntil.IsZero() || breaker.Resume {
		if err := d.Store.CloseBreaker(ctx, j.SurveyID, wh.ID); err != nil {
			slog.ErrorContext(ctx, "deliver: close the breaker", "webhook_id", wh.ID, "error", err.Error())
		}
		if wasSlow {
			// The closing forgot the slow mark this very attempt made.
			d.markSlow(ctx, j.SurveyID, wh.ID)
		}
	}
	if !breaker.OpenUntil.IsZero() || breaker.Resume {
		d.resume(ctx, j.SurveyID, wh.ID, now)
	}
	return done
}

// resume sends at once every delivery of webhook wid its breaker held back,
// now that a success closed it (or that the owner's change closed it and
// left some for this): their next attempts were scheduled for later, up to
// hours. Each is due now in the due index first, so a job lost here is
// the retrier's within a minute. A resume cut short (the store failing)
// leaves the breakers item marked, so the webhook's next success goes on.
func (d *Deliverer) resume(ctx context.Context, sid, wid int64, now time.Time) {
	resumed, _, err := d.Store.ResumePaused(ctx, wid, now, 0)
	if err != nil {
		slog.ErrorContext(ctx, "deliver: resume paused deliveries", "webhook_id", wid, "error", err.Error())
		if err := d.Store.MarkResume(ctx, sid, wid); err != nil {
			slog.ErrorContext(ctx, "deliver: mark a resume left to do", "webhook_id", wid, "error", err.Error())
		}
	}
	if len(resumed) == 0 {
		return
	}
	q := d.Queue
	if d.Slow != nil {
		q = d.Slow // tried before: the slow lane's
	}
	if err := q.Send(ctx, webhook.JobsOf(resumed), 0); err != nil {
		slog.ErrorContext(ctx, "deliver: queue resumed deliveries", "webhook_id", wid, "error", err.Error())
	}
	slog.InfoContext(ctx, "deliver: resumed paused deliveries", "webhook_id", wid, "resumed", len(resumed))
}

// markSlowAfter marks webhook wid slow once its attempt has waited the
// budget for an answer, while the request goes on (it is never cut to
// change lanes: the receiver may be about to answer, and a cut request
// sent again would reach it twice): the webhook's next attempts go to the
// slow lane before any request, so a receiver that turned slow or dead
// holds the main lane only with the attempts started before its mark.
// A mark made less than half of webhook.SlowFor ago is not made again.
// stop ends the watch once the request is over and tells whether it
// marked the webhook (waiting for a mark under way).
func (d *Deliverer) markSlowAfter(ctx context.Context, sid, wid int64, b survey.Breaker) (stop func() bool) {
	if b.SlowUntil.After(d.now().Add(webhook.SlowFor / 2)) {
		return func() bool { return false }
	}
	marked := make(chan struct{})
	t := time.AfterFunc(d.budget(), func() {
		defer close(marked)
		d.markSlow(ctx, sid, wid)
	})
	return func() bool {
		if t.Stop() {
			return false
		}
		<-marked
		return true
	}
}

func (d *Deliverer) markSlow(ctx context.Context, sid, wid int64) {
	if err := d.Store.MarkSlow(ctx, sid, wid, d.now().Add(webhook.SlowFor)); err != nil && ctx.Err() == nil {
		slog.ErrorContext(ctx, "deliver: mark a webhook slow", "webhook_id", wid, "error", err.Error())
	}
}

// claim is an attempt under way: the delivery as read (at the step it
// was claimed at) and the claim's token.
type claim struct {
	dl    survey.Delivery
	token string
	now   time.Time
	// paused: the breaker held the attempt back (no request was made).
	paused bool
}

// record writes the outcome on the claim; a lost claim (it lapsed and
// another attempt took over) leaves the record to that one.
func (d *Deliverer) record(ctx context.Context, a claim, due time.Time, what string) outcome {
	record := d.Store.RecordAttempt
	if a.paused {
		record = d.Store.RecordPaused
	}
	ok, err := record(ctx, a.dl, a.token, due)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			slog.ErrorContext(ctx, "deliver: record "+what, "error", err.Error())
		}
		return retry
	case !ok:
		slog.WarnContext(ctx, "deliver: the claim lapsed; the attempt is not recorded", "webhook_id", a.dl.WebhookID, "delivery", a.dl.ID())
	}
	return done
}

// failed records a failed attempt (or one the breaker held back: counted
// in Held, not in Attempts, since no request was sent) and plans the
// next: a delayed message when it is due within MaxSendDelay (the due
// index holds it RequeueAfter later, should the message be lost), else
// the due index alone (the retrier queues it then); after the schedule's
// last step the delivery is failed for good.
func (d *Deliverer) failed(ctx context.Context, a claim, status int, problem string) outcome {
	if a.paused {
		// Nothing was sent: the log keeps the last real answer (status
		// and error; contract section 13), and says why a delivery never
		// tried waits.
		a.dl.Held++
		if a.dl.Attempts == 0 {
			a.dl.LastError = problem
		}
	} else {
		a.dl.Attempts++
		a.dl.LastAttempt = a.now
		a.dl.LastStatusCode, a.dl.LastError = status, problem
	}
	delay, again := webhook.NextDelay(d.Delays, a.dl.Step())
	if !again {
		a.dl.Status, a.dl.NextAttempt = survey.DeliveryFailed, time.Time{}
		return d.record(ctx, a, time.Time{}, "a failure")
	}
	next := a.now.Add(delay)
	a.dl.Status, a.dl.NextAttempt = survey.DeliveryPending, next
	due, delayed := next, delay <= d.maxDelay()
	if delayed {
		due = next.Add(webhook.RequeueAfter)
	}
	if out := d.record(ctx, a, due, "a failure"); out != done {
		return out
	}
	if delayed {
		job := webhook.Job{SurveyID: a.dl.SurveyID, WebhookID: a.dl.WebhookID, ResponseID: a.dl.ResponseID, Delivery: a.dl.ID(), Attempt: a.dl.Step()}
		q := d.Queue
		if d.Slow != nil {
			q = d.Slow // it failed: its retry is the slow lane's
		}
		if err := q.Send(ctx, []webhook.Job{job}, delay); err != nil {
			// The due index queues it RequeueAfter late.
			slog.ErrorContext(ctx, "deliver: queue a retry", "error", err.Error())
		}
	}
	return done
}

// fail marks a delivery failed for good, without a request: the last
// real answer's status code stays in the log.
func (d *Deliverer) fail(ctx context.Context, a claim, problem string) outcome {
	a.dl.Status, a.dl.NextAttempt, a.dl.LastError = survey.DeliveryFailed, time.Time{}, problem
	if a.dl.LastAttempt.IsZero() {
		a.dl.LastAttempt = a.now
	}
	return d.record(ctx, a, time.Time{}, "a failure")
}

// wait is how long a request waits for the receiver's answer; cutShort:
// less than the receiver's due, the function's time running out.
type wait struct {
	timeout  time.Duration
	cutShort bool
}

// post sends one signed delivery, waiting for the answer as w says, and
// answers the status code, and a problem for the owner's log ("" when it
// was a 2xx).
func (d *Deliverer) post(ctx context.Context, wh survey.Webhook, dl survey.Delivery, key, body []byte, w wait) (int, string) {
	timeout, cutShort := w.timeout, w.cutShort
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, "The URL cannot be requested."
	}
	// The webhook's own headers may replace the Content-Type (and only
	// that of what the delivery sets: the others are reserved).
	req.Header.Set("Content-Type", "application/json")
	for k, v := range wh.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", UserAgent)
	webhook.SetHeaders(req.Header, key, dl.MessageID(), d.now(), body)
	resp, err := d.Client.Do(req)
	if err != nil {
		return 0, describe(err, timeout, cutShort)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, ""
	}
	return resp.StatusCode, fmt.Sprintf("The receiver answered %d.", resp.StatusCode)
}

// describe words a failed exchange for the owner, without internals.
func describe(err error, timeout time.Duration, cutShort bool) string {
	var re *webhook.RefusedError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		return re.Msg
	case (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) && cutShort:
		return fmt.Sprintf("The attempt was cut after %.1f seconds: the delivery function's time ran out.", timeout.Seconds())
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("The receiver did not answer within %d seconds.", max(int(timeout/time.Second), 1))
	default:
		return "The receiver could not be reached."
	}
}
