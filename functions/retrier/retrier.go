// Package retrier queues the webhook deliveries whose next attempt is due.
// A delivery's wait lives on its item (the due index, store.DueKey), not in
// the queue: run every minute, the retrier reads only the due entries of
// the index's shards and sends a job for each, so the schedule's waits of
// up to 12 hours take no room in SQS (no message is in flight while it
// waits) and nothing approaches the queue's in-flight limit. It also
// queues again the deliveries whose job was lost (a send that failed, an
// attempt whose function died): each pending delivery is due again
// webhook.RequeueAfter after its job was queued.
package retrier

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

// Store is what the retrier reads and writes; *store.Store implements it.
type Store interface {
	DueDeliveries(ctx context.Context, shard int, now time.Time, start dynamo.PagingKey, limit int) ([]store.DueDelivery, dynamo.PagingKey, error)
	Requeue(ctx context.Context, d store.DueDelivery, next time.Time) (bool, error)
}

var _ Store = (*store.Store)(nil)

// Queue takes the jobs; webhook.Queue implements it.
type Queue interface {
	Send(ctx context.Context, jobs []webhook.Job, delay time.Duration) error
}

// Tuning of a run.
const (
	// PageSize is how many due entries one Query reads.
	PageSize = 100
	// Parallelism is the requeues of one shard in flight at once (the
	// shards are read at the same time).
	Parallelism = 8
	// Margin is how long before its deadline a run stops starting work;
	// what is left is due still, and the next run takes it.
	Margin = 3 * time.Second
)

// Result is what a run did.
type Result struct {
	Read     int  `json:"read"`
	Queued   int  `json:"queued"`
	Complete bool `json:"complete"`
}

// Deps are the function's dependencies.
type Deps struct {
	Store Store
	// Queue takes the jobs of the deliveries that are due.
	Queue Queue
}

// Retrier queues the webhook deliveries whose next attempt is due.
type Retrier struct{ Deps }

// New returns the function's retrier.
func New(d Deps) *Retrier { return &Retrier{Deps: d} }

// Run queues every delivery due at now. Each is first moved in the index
// to now + webhook.RequeueAfter (a write conditional on the entry read, so
// an overlapping run or a stale read of the index queues nothing twice),
// then its job is sent: the job names the step the delivery is at, on
// which the attempt is claimed. A send that fails leaves the delivery due
// RequeueAfter later.
func (r *Retrier) Run(ctx context.Context, now time.Time) (Result, error) {
	st, q := r.Store, r.Queue
	var read, queued atomic.Int64
	var stopped atomic.Bool
	shards, sctx := errgroup.WithContext(ctx)
	for shard := range store.DueShards {
		shards.Go(func() error {
			var start dynamo.PagingKey
			for {
				if late(sctx) {
					stopped.Store(true)
					return nil
				}
				due, next, err := st.DueDeliveries(sctx, shard, now, start, PageSize)
				if err != nil {
					return err
				}
				read.Add(int64(len(due)))
				jobs := make([]webhook.Job, len(due))
				moved := make([]bool, len(due))
				g, gctx := errgroup.WithContext(sctx)
				g.SetLimit(Parallelism)
				for i, d := range due {
					g.Go(func() error {
						ok, err := st.Requeue(gctx, d, now.Add(webhook.RequeueAfter))
						moved[i] = ok
						jobs[i] = webhook.Job{SurveyID: d.SurveyID, WebhookID: d.WebhookID, ResponseID: d.ResponseID,
							Delivery: d.ID(), Attempt: d.Step()}
						return err
					})
				}
				if err := g.Wait(); err != nil {
					return err
				}
				send := jobs[:0]
				for i, j := range jobs {
					if moved[i] {
						send = append(send, j)
					}
				}
				if len(send) > 0 {
					if err := q.Send(sctx, send, 0); err != nil {
						return err
					}
					queued.Add(int64(len(send)))
				}
				if next == nil {
					return nil
				}
				start = next
			}
		})
	}
	err := shards.Wait()
	return Result{Read: int(read.Load()), Queued: int(queued.Load()), Complete: err == nil && !stopped.Load()}, err
}

func late(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < Margin
}
