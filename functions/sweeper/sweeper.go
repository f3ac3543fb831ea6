// Package sweeper closes the surveys whose expiration date has come, and
// removes what copies of surveys that died left behind. It
// reads only the due entries of the sweep's sparse index (GSI2, sharded in
// store.ExpiryShards partitions by survey id and ordered by date), never the
// table, so its work is proportional to the surveys due.
package sweeper

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the sweep reads and writes; *store.Store implements it.
type Store interface {
	DuePage(ctx context.Context, shard int, today string, start dynamo.PagingKey, limit int) ([]store.DueSurvey, dynamo.PagingKey, error)
	CloseExpired(ctx context.Context, d store.DueSurvey) (bool, error)
}

var _ Store = (*store.Store)(nil)

// Tuning of a run.
const (
	// PageSize is how many due entries one Query reads.
	PageSize = 100
	// Parallelism is how many closes of one shard are in flight at once
	// (the shards are swept at the same time).
	Parallelism = 4
	// Margin is how long before its deadline a run stops starting work;
	// what is left is due still, and the next run takes it.
	Margin = 3 * time.Second
)

// Result is what a run did.
type Result struct {
	Closed   int  `json:"closed"`
	Read     int  `json:"read"`
	Complete bool `json:"complete"`
	// CopiesRemoved counts the dead copies of surveys whose items the run
	// deleted (store.CleanPendingCopies).
	CopiesRemoved int `json:"copies_removed"`
}

// CopyCleaner removes what copies of surveys that died left behind;
// *store.Store implements it. A Store that does not is swept only.
type CopyCleaner interface {
	CleanPendingCopies(ctx context.Context, now time.Time) (int, error)
}

var _ CopyCleaner = (*store.Store)(nil)

// Deps are the function's dependencies.
type Deps struct {
	// Store is swept; one that is also a CopyCleaner has the dead copies
	// of surveys removed too.
	Store Store
}

// Sweeper closes the surveys whose expiration date has come.
type Sweeper struct{ Deps }

// New returns the function's sweeper.
func New(d Deps) *Sweeper { return &Sweeper{Deps: d} }

// Run closes every survey due at now (its expiration date is today or
// earlier, UTC): the shards are swept at once, each page by page. Each close
// is conditional on the date it was indexed under, so a retry or an
// overlapping run is harmless and a survey whose date just moved is left
// alone. It stops cleanly when ctx's deadline is within Margin, with
// Complete false; what is left stays due for the next run.
func (s *Sweeper) Run(ctx context.Context, now time.Time) (Result, error) {
	st := s.Store
	today := survey.Today(now)
	var closed, read atomic.Int64
	var stopped atomic.Bool
	shards, sctx := errgroup.WithContext(ctx)
	for shard := range store.ExpiryShards {
		shards.Go(func() error {
			var start dynamo.PagingKey
			for {
				if late(sctx) {
					stopped.Store(true)
					return nil
				}
				due, next, err := st.DuePage(sctx, shard, today, start, PageSize)
				if err != nil {
					return err
				}
				read.Add(int64(len(due)))
				// A failure stops new closes, not those in flight: a close
				// cancelled after it was sent may still land, uncounted
				// (and no longer due for the next run to count either).
				var g errgroup.Group
				var failed atomic.Bool
				g.SetLimit(Parallelism)
				for _, d := range due {
					g.Go(func() error {
						if failed.Load() || sctx.Err() != nil {
							return nil
						}
						ok, err := st.CloseExpired(ctx, d)
						if ok {
							closed.Add(1)
						}
						if err != nil {
							failed.Store(true)
						}
						return err
					})
				}
				if err := g.Wait(); err != nil {
					return err
				}
				if next == nil {
					return nil
				}
				start = next
			}
		})
	}
	err := shards.Wait()
	res := Result{Closed: int(closed.Load()), Read: int(read.Load()), Complete: err == nil && !stopped.Load()}
	if c, ok := st.(CopyCleaner); ok && err == nil && !late(ctx) {
		res.CopiesRemoved, err = c.CleanPendingCopies(ctx, now)
		res.Complete = res.Complete && err == nil
	}
	return res, err
}

func late(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < Margin
}

// EmitMetric writes the run's count as a CloudWatch Embedded Metric Format
// line: CloudWatch Logs turns it into the SurveysClosed metric of the
// SurveyService namespace, with no API call from the function.
func EmitMetric(w io.Writer, res Result, at time.Time) error {
	line := map[string]any{
		"_aws": map[string]any{
			"Timestamp": at.UnixMilli(),
			"CloudWatchMetrics": []map[string]any{{
				"Namespace":  "SurveyService",
				"Dimensions": [][]string{{"Function"}},
				"Metrics": []map[string]string{
					{"Name": "SurveysClosed", "Unit": "Count"},
					{"Name": "SweepEntriesRead", "Unit": "Count"},
				},
			}},
		},
		"Function":         "sweeper",
		"SurveysClosed":    res.Closed,
		"SweepEntriesRead": res.Read,
		"SweepComplete":    res.Complete,
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
