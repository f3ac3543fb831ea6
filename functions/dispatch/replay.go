package dispatch

import (
	"context"
	"fmt"
	"time"

	"surveyservice/shared/store"
)

// ReplayStore is what a replay reads; *store.Store implements it.
type ReplayStore interface {
	HookedSurveys(ctx context.Context, shard int) ([]int64, error)
	ResponsesSubmitted(ctx context.Context, sid int64, from, to time.Time) ([]store.ResponseRef, error)
}

var _ ReplayStore = (*store.Store)(nil)

// ReplayResult is what a replay did.
type ReplayResult struct {
	Surveys   int `json:"surveys"`
	Responses int `json:"responses"`
	Queued    int `json:"queued"`
}

// Replay dispatches again the events of the responses submitted in
// [from, to] of every survey that has webhooks: what the stream gave up
// (its failure queue names the window: the arrival times of the first and
// last record given up). A response's event fixes its delivery's key, so
// a replay creates only the deliveries that are missing and queues a job
// only for those not yet attempted; it never duplicates a delivery, and
// running it twice does nothing more. Reads: one Query a shard of the
// hooked-surveys index, then, a survey, one Query of its responses of the
// window and one GetItem of its webhooks.
func (d *Dispatcher) Replay(ctx context.Context, st ReplayStore, from, to time.Time) (ReplayResult, error) {
	var res ReplayResult
	for shard := range store.HookedShards {
		sids, err := st.HookedSurveys(ctx, shard)
		if err != nil {
			return res, err
		}
		for _, sid := range sids {
			refs, err := st.ResponsesSubmitted(ctx, sid, from, to)
			if err != nil {
				return res, err
			}
			res.Surveys++
			if len(refs) == 0 {
				continue
			}
			res.Responses += len(refs)
			hooks, err := d.Store.WebhooksOf(ctx, sid)
			if err != nil {
				return res, err
			}
			jobs, bad := d.Record(ctx, hooks, refs)
			for i, err := range bad {
				return res, fmt.Errorf("dispatch: replay response %d of survey %d: %w", refs[i].ResponseID, sid, err)
			}
			if len(jobs) > 0 {
				if err := d.Queue.Send(ctx, jobs, 0); err != nil {
					return res, err
				}
				res.Queued += len(jobs)
			}
		}
	}
	return res, nil
}
