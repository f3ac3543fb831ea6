// Package dispatch turns each new response into deliveries: it reads the
// table's stream (filtered to the insertion of responses), records one
// delivery for each active webhook of the response's survey and queues a
// job for each. It also keeps the files a new or edited response answers
// with (files.go), makes survey.full from the allowances' writes
// (full.go), and finishes a submission's withdrawal its request ran out of
// time for (withdraw.go). Lambda runs it on the stream (functions/dispatch/lambda);
// `make run` feeds it the same events from moto's stream.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// FilterPattern is the stream event source's filter (template.yaml's
// FilterCriteria, which a test holds equal to it): only insertions of
// response items (response.submitted) and their changes that carry an
// edited_at (response.updated, contract section 16) reach the function.
// Handle checks the same again.
const FilterPattern = `{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}]}}}}`

// Store is what dispatch reads and writes; *store.Store implements it.
type Store interface {
	WebhooksOf(ctx context.Context, sid int64) ([]survey.Webhook, error)
	CreateDelivery(ctx context.Context, d survey.Delivery, due time.Time) (bool, survey.Delivery, error)
	// PartialAnswers are a partial's answers as a stream image of it
	// named them (response.partial).
	PartialAnswers(ctx context.Context, h store.PartialHead) (map[int64]json.RawMessage, error)
	// PartialAtDelta is the partial a marked delta carries, found false
	// once its save took it back.
	PartialAtDelta(ctx context.Context, pk, hash string, n int, updated string) (store.Partial, bool, error)
	CapsFilled(ctx context.Context, sid int64, writes []store.AllowanceWrite) ([]store.CapFill, error)
	// FinishWithdrawal finishes a withdrawal a fence marked on a key's
	// record (withdraw.go).
	FinishWithdrawal(ctx context.Context, plan string) error
}

var _ Store = (*store.Store)(nil)

// Queue takes the jobs; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

// Deps are the function's dependencies.
type Deps struct {
	Store Store
	Queue Queue
	// Files keeps the files of responses (section 16); nil: a deployment
	// without uploads (a response's files mark is then ignored).
	Files Keeper
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Dispatcher handles batches of stream records.
type Dispatcher struct{ Deps }

// New returns the function's handler.
func New(d Deps) *Dispatcher { return &Dispatcher{Deps: d} }

func (d *Dispatcher) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// parallelism bounds the concurrent writes of one batch.
const parallelism = 16

// Matches reports whether a stream record is one Handle acts on: the
// insertion of a response item (the event source filter, in Go).
func Matches(rec events.DynamoDBEventRecord) bool {
	if _, ok := withdrawalOf(rec); ok {
		return true
	}
	if isPartial(rec) {
		return true
	}
	if _, _, ok := allowanceOf(rec); ok {
		return true
	}
	switch rec.EventName {
	case "INSERT":
	case "MODIFY":
		if v, ok := rec.Change.NewImage["edited_at"]; !ok || v.DataType() != events.DataTypeString {
			return false
		}
	default:
		return false
	}
	sk, ok := rec.Change.Keys["SK"]
	return ok && sk.DataType() == events.DataTypeString && len(sk.String()) > len("RESPONSE#") && sk.String()[:len("RESPONSE#")] == "RESPONSE#"
}

// ref reads what dispatch needs of a record's new image: for an edit
// (MODIFY) the time is its edited_at, which names the delivery, so that
// each edit is its own event.
func ref(rec events.DynamoDBEventRecord) (store.ResponseRef, bool) {
	img := rec.Change.NewImage
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	if rec.EventName == "MODIFY" {
		return store.ParseResponseRef(str("PK"), str("SK"), str("edited_at"))
	}
	return store.ParseResponseRef(str("PK"), str("SK"), str("submitted_at"))
}

// Handle records and queues the deliveries of a batch, and keeps the files
// its responses answer with (one DeleteObjectTagging a file new to its
// response; FilesToKeep). Records it cannot
// act on (not a response; a malformed image, which no retry would mend)
// are logged and passed over. Every record that failed is named in the
// answer (a partial batch response): Lambda retries the batch from the
// earliest, halving it when it fails again (BisectBatchOnFunctionError),
// at most a bounded number of times; a record that still fails goes to the
// failure queue, and `admin replay-webhooks` dispatches its window again
// from the responses. Records dispatched again create no second delivery
// (the event fixes the delivery's key) and their jobs race for one claim:
// one chain of attempts; their files are kept again, which changes
// nothing.
func (d *Dispatcher) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	bySurvey := map[int64][]item{}
	var keep []item
	var unread []int
	fulls := map[int64][]fullItem{}
	var withdrawals []item
	for i, rec := range ev.Records {
		if !Matches(rec) {
			continue
		}
		if plan, ok := withdrawalOf(rec); ok {
			withdrawals = append(withdrawals, item{index: i, plan: plan})
			continue
		}
		if sid, w, ok := allowanceOf(rec); ok {
			fulls[sid] = append(fulls[sid], fullItem{index: i, write: w})
			continue
		}
		if isPartial(rec) {
			r, payload, err := d.partialOf(ctx, rec)
			if errors.Is(err, errPartialTakenBack) {
				slog.InfoContext(ctx, "dispatch: a partial's save refused after its delta; not sent", "event_id", rec.EventID)
				continue
			}
			if errors.Is(err, errNotPartial) {
				slog.ErrorContext(ctx, "dispatch: not a partial's image; passed over", "event_id", rec.EventID, "sequence", rec.Change.SequenceNumber)
				continue
			}
			if err != nil {
				// Its deltas could not be read: the record fails alone,
				// and Lambda gives it again.
				slog.ErrorContext(ctx, "dispatch: a partial's answers", "error", err.Error(), "event_id", rec.EventID)
				unread = append(unread, i)
				continue
			}
			bySurvey[r.SurveyID] = append(bySurvey[r.SurveyID], item{index: i, ref: r, event: survey.EventResponsePartial, payload: payload})
			continue
		}
		if keys := FilesToKeep(rec); len(keys) > 0 && d.Files != nil {
			keep = append(keep, item{index: i, files: keys})
		}
		r, ok := ref(rec)
		if !ok {
			slog.ErrorContext(ctx, "dispatch: not a response image; passed over", "event_id", rec.EventID, "sequence", rec.Change.SequenceNumber)
			continue
		}
		event := survey.EventResponseSubmitted
		if rec.EventName == "MODIFY" {
			event = survey.EventResponseUpdated
		}
		bySurvey[r.SurveyID] = append(bySurvey[r.SurveyID], item{index: i, ref: r, event: event})
	}
	var mu sync.Mutex
	failed := map[int]bool{}
	for _, i := range unread {
		failed[i] = true
	}
	fail := func(items []item, err error) {
		slog.ErrorContext(ctx, "dispatch failed", "error", err.Error(), "records", len(items))
		mu.Lock()
		defer mu.Unlock()
		for _, it := range items {
			failed[it.index] = true
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelism)
	for _, it := range keep {
		for _, key := range it.files {
			g.Go(func() error {
				if err := d.Files.Keep(gctx, key); err != nil {
					fail([]item{it}, err)
				}
				return nil
			})
		}
	}
	for _, it := range withdrawals {
		g.Go(func() error {
			// A fence's withdrawal that its request ran out of time for.
			switch err := d.Store.FinishWithdrawal(gctx, it.plan); {
			case errors.Is(err, store.ErrNotWithdrawal):
				slog.ErrorContext(gctx, "dispatch: not a withdrawal's mark; passed over", "event_id", ev.Records[it.index].EventID)
			case err != nil:
				fail([]item{it}, err)
			}
			return nil
		})
	}
	for sid, fs := range fulls {
		g.Go(func() error {
			// A cap filled by these writes (store.CapsFilled, once per
			// survey in the batch): survey.full, named by its fill, so
			// a retried batch makes the same deliveries. A failure is
			// every one of the survey's records' (the retry reads again).
			all := make([]item, len(fs))
			writes := make([]store.AllowanceWrite, len(fs))
			for i, f := range fs {
				all[i], writes[i] = item{index: f.index}, f.write
			}
			filled, err := d.Store.CapsFilled(gctx, sid, writes)
			if err != nil {
				fail(all, err)
				return nil
			}
			if len(filled) == 0 {
				return nil
			}
			var items []item
			for _, c := range filled {
				items = append(items, item{index: fs[0].index, event: survey.EventSurveyFull, payload: c.Payload(),
					ref: store.ResponseRef{SurveyID: c.SurveyID, ResponseID: c.ID, SubmittedAt: c.At}})
			}
			hooks, err := d.Store.WebhooksOf(gctx, sid)
			if err != nil {
				fail(all, err)
				return nil
			}
			jobs, bad := d.record(gctx, hooks, items)
			if len(bad) > 0 {
				fail(all, errors.Join(slices.Collect(maps.Values(bad))...))
			}
			if len(jobs) > 0 {
				if err := d.Queue.Send(gctx, jobs, 0); err != nil {
					fail(all, err)
				}
			}
			return nil
		})
	}
	for sid, items := range bySurvey {
		g.Go(func() error {
			hooks, err := d.Store.WebhooksOf(gctx, sid)
			if err != nil {
				fail(items, err)
				return nil
			}
			jobs, bad := d.record(gctx, hooks, items)
			for i, err := range bad {
				fail(items[i:i+1], err)
			}
			if len(jobs) > 0 {
				if err := d.Queue.Send(gctx, jobs, 0); err != nil {
					fail(items, err)
				}
			}
			return nil
		})
	}
	_ = g.Wait()
	var resp events.DynamoDBEventResponse
	if len(failed) > 0 {
		first := make([]int, 0, len(failed))
		for i := range failed {
			first = append(first, i)
		}
		sort.Ints(first)
		for _, i := range first {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: ev.Records[i].Change.SequenceNumber})
		}
	}
	return resp, nil
}

// item is a record to dispatch: its place in the batch and its response
// (or the files it keeps).
type item struct {
	index int
	ref   store.ResponseRef
	event string
	files []string
	// payload is a response.partial's partial (survey.Delivery.Payload).
	payload json.RawMessage
	// plan is a marked withdrawal's (withdraw.go).
	plan string
}

// fullItem is an allowance's record, which may have filled a cap.
type fullItem struct {
	index int
	write store.AllowanceWrite
}

// Record creates the deliveries of one survey's responses, for each
// webhook that wants the event, and answers the jobs of those still
// pending (the replay of a window sends them); bad holds, by position in
// refs, the responses whose deliveries could not all be recorded (their
// jobs are left out: the retry of the record sends them).
func (d *Dispatcher) Record(ctx context.Context, hooks []survey.Webhook, refs []store.ResponseRef) (jobs []webhook.Job, bad map[int]error) {
	items := make([]item, len(refs))
	for i, r := range refs {
		items[i] = item{index: i, ref: r, event: survey.EventResponseSubmitted}
	}
	return d.record(ctx, hooks, items)
}

func (d *Dispatcher) record(ctx context.Context, hooks []survey.Webhook, items []item) (jobs []webhook.Job, bad map[int]error) {
	due := d.now().Add(webhook.RequeueAfter)
	var mu sync.Mutex
	bad = map[int]error{}
	var g errgroup.Group
	g.SetLimit(parallelism)
	for i, it := range items {
		for _, wh := range hooks {
			if !wh.Subscribes(it.event) || it.event == survey.EventSurveyFull && wh.Sends() {
				// survey.full is a webhook's (an email or SMS
				// notification tells of responses).
				continue
			}
			g.Go(func() error {
				dl := survey.Delivery{WebhookID: wh.ID, SurveyID: it.ref.SurveyID, ResponseID: it.ref.ResponseID,
					Event: it.event, Created: it.ref.SubmittedAt, Status: survey.DeliveryPending, Payload: it.payload}
				created, current, err := d.Store.CreateDelivery(ctx, dl, due)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					bad[i] = err
				case created:
					jobs = append(jobs, webhook.Job{SurveyID: dl.SurveyID, WebhookID: dl.WebhookID, ResponseID: dl.ResponseID, Delivery: dl.ID()})
				case current.Status == survey.DeliveryPending && current.Step() == 0:
					// Seen again before its first attempt: its job may
					// have been lost (the batch failed after the put).
					// Queued again; the copies race for one claim.
					jobs = append(jobs, webhook.Job{SurveyID: dl.SurveyID, WebhookID: dl.WebhookID, ResponseID: dl.ResponseID, Delivery: dl.ID()})
				}
				return nil
			})
		}
	}
	_ = g.Wait()
	if len(bad) > 0 {
		// Keep the jobs of the good records only.
		keep := jobs[:0]
		badResp := map[int64]bool{}
		for i := range bad {
			badResp[items[i].ref.ResponseID] = true
		}
		for _, j := range jobs {
			if !badResp[j.ResponseID] {
				keep = append(keep, j)
			}
		}
		jobs = keep
	}
	return jobs, bad
}
