package main

import (
	"context"
	"fmt"
	"time"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/uploads"
)

// keepFiles keeps (removes the pending tag of) every file of the responses
// submitted or edited since a time: the repair of stream records the
// dispatch gave up before it kept their files (its failure queue's
// message names approximateArrivalOfFirstRecord; run it before the
// uploads' lifecycle rule, a day after the upload, removes them). Keeping
// is idempotent, so a wide window only costs calls.
func keepFiles(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("keep-files")
	sinceFlag := fs.String("since", "", "responses submitted or edited at or after this time, RFC 3339")
	segments := fs.Int("segments", 8, "parallel Scan segments")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	since, err := time.Parse(time.RFC3339Nano, *sinceFlag)
	if err != nil {
		return nil, fmt.Errorf("%w: keep-files needs --since (RFC 3339)", errUsage)
	}
	if *segments < 1 || *segments > 1000 {
		return nil, fmt.Errorf("%w: --segments must be 1..1000", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := awsenv.Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	bucket := uploads.New(cfg, uploads.BucketFromEnv(getenv))
	return st.ResponseFiles(ctx, since, *segments, func(ctx context.Context, keys []string) error {
		for _, k := range keys {
			if err := bucket.Keep(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// finishWithdrawals finishes the withdrawals submissions' fences marked on
// their keys' records and nothing finished: the repair of stream records
// the dispatch gave up (its failure queue's alarm) before it finished
// them (store.FinishMarkedWithdrawals). Until it runs, such a response
// stays recorded, and replays of its key answer 410 or wait. Finishing is
// idempotent, so running it twice only costs the Scan.
func finishWithdrawals(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("finish-withdrawals")
	segments := fs.Int("segments", 8, "parallel Scan segments")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if *segments < 1 || *segments > 1000 {
		return nil, fmt.Errorf("%w: --segments must be 1..1000", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	return st.FinishMarkedWithdrawals(ctx, *segments)
}
