// Package dispatch turns each new response into deliveries: it reads the
// table's stream (filtered to the insertion of responses), records one
// delivery for each active webhook of the response's survey and queues a
// job for each. Lambda runs it on the stream (functions/dispatch/lambda);
// `make run` feeds it the same events from moto's stream.
package dispatch

import (
	"context"
	"log/slog"
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
// response items reach the function. Handle checks the same again.
const FilterPattern = `{"eventName": ["INSERT"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}]}}}}`

// Store is what dispatch reads and writes; *store.Store implements it.
type Store interface {
	WebhooksOf(ctx context.Context, sid int64) ([]survey.Webhook, error)
	CreateDelivery(ctx context.Context, d survey.Delivery, due time.Time) (bool, survey.Delivery, error)
}

var _ Store = (*store.Store)(nil)

// Queue takes the jobs; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

// Dispatcher handles batches of stream records.
type Dispatcher struct {
	Store Store
	Queue Queue
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

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
	if rec.EventName != "INSERT" {
		return false
	}
	sk, ok := rec.Change.Keys["SK"]
	return ok && sk.DataType() == events.DataTypeString && len(sk.String()) > len("RESPONSE#") && sk.String()[:len("RESPONSE#")] == "RESPONSE#"
}

// ref reads what dispatch needs of a record's new image.
func ref(rec events.DynamoDBEventRecord) (store.ResponseRef, bool) {
	img := rec.Change.NewImage
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	return store.ParseResponseRef(str("PK"), str("SK"), str("submitted_at"))
}

// Handle records and queues the deliveries of a batch. Records it cannot
// act on (not a response; a malformed image, which no retry would mend)
// are logged and passed over. Every record that failed is named in the
// answer (a partial batch response): Lambda retries the batch from the
// earliest, halving it when it fails again (BisectBatchOnFunctionError),
// at most a bounded number of times; a record that still fails goes to the
// failure queue, and `admin replay-webhooks` dispatches its window again
// from the responses. Records dispatched again create no second delivery
// (the event fixes the delivery's key) and their jobs race for one claim:
// one chain of attempts.
func (d *Dispatcher) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	bySurvey := map[int64][]item{}
	for i, rec := range ev.Records {
		if !Matches(rec) {
			continue
		}
		r, ok := ref(rec)
		if !ok {
			slog.ErrorContext(ctx, "dispatch: not a response image; passed over", "event_id", rec.EventID, "sequence", rec.Change.SequenceNumber)
			continue
		}
		bySurvey[r.SurveyID] = append(bySurvey[r.SurveyID], item{i, r})
	}
	var mu sync.Mutex
	failed := map[int]bool{}
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

// item is a record to dispatch: its place in the batch and its response.
type item struct {
	index int
	ref   store.ResponseRef
}

// Record creates the deliveries of one survey's responses, for each
// webhook that wants the event, and answers the jobs of those still
// pending (the replay of a window sends them); bad holds, by position in
// refs, the responses whose deliveries could not all be recorded (their
// jobs are left out: the retry of the record sends them).
func (d *Dispatcher) Record(ctx context.Context, hooks []survey.Webhook, refs []store.ResponseRef) (jobs []webhook.Job, bad map[int]error) {
	items := make([]item, len(refs))
	for i, r := range refs {
		items[i] = item{i, r}
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
			if !wh.Subscribes(survey.EventResponseSubmitted) {
				continue
			}
			g.Go(func() error {
				dl := survey.Delivery{WebhookID: wh.ID, SurveyID: it.ref.SurveyID, ResponseID: it.ref.ResponseID,
					Event: survey.EventResponseSubmitted, Created: it.ref.SubmittedAt, Status: survey.DeliveryPending}
				created, current, err := d.Store.CreateDelivery(ctx, dl, due)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					bad[i] = err
				case created:
					jobs = append(jobs, webhook.Job{SurveyID: dl.SurveyID, WebhookID: dl.WebhookID, ResponseID: dl.ResponseID, Delivery: dl.ID()})
				case current.Status == survey.DeliveryPending && current.Attempts == 0:
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
