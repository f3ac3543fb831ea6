package main

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/responses"
	"surveyservice/internal/eventsource"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/store"
)

// exportJobs is the export machinery of `make run`: the export queue and
// a poller that plays the export function's event source mapping, calling
// the function's own handler.
type exportJobs struct {
	queue exports.Queue
	done  chan struct{}
}

// startExportJobs creates the export queue when missing and starts its
// poller, which stops with ctx.
func startExportJobs(ctx context.Context, st *store.Store, bucket *exports.Bucket, c awsenv.Config, name string) (*exportJobs, error) {
	cfg, err := awsenv.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	client := sqs.NewFromConfig(cfg)
	url, arn, err := exports.EnsureQueue(ctx, client, name, 15*time.Minute)
	if err != nil {
		return nil, err
	}
	pollCfg, err := awsenv.Load(ctx, c) // a long poll holds its client's one connection
	if err != nil {
		return nil, err
	}
	e := &responses.Exporter{St: st, Exports: bucket, MaxAttempts: exports.MaxReceives}
	poll := &eventsource.Queue{Client: sqs.NewFromConfig(pollCfg), URL: url, ARN: arn, Handle: e.Handle, Workers: 1}
	j := &exportJobs{queue: exports.Queue{Client: client, URL: url}, done: make(chan struct{})}
	go func() {
		_ = poll.Run(ctx)
		close(j.done)
	}()
	return j, nil
}
