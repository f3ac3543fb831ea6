package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/functions/tally"
	"surveyservice/internal/eventsource"
	"surveyservice/internal/localaws"
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
	cfg, err := localaws.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	client := sqs.NewFromConfig(cfg)
	url, arn, err := exports.EnsureQueue(ctx, client, name, 15*time.Minute)
	if err != nil {
		return nil, err
	}
	pollCfg, err := localaws.Load(ctx, c) // a long poll holds its client's one connection
	if err != nil {
		return nil, err
	}
	e := responses.NewExporter(responses.ExporterDeps{Store: st, Exports: bucket, Workbook: responses.Workbooks(workbook.New), MaxAttempts: exports.MaxReceives})
	poll := &eventsource.Queue{Client: sqs.NewFromConfig(pollCfg), URL: url, ARN: arn, Handle: e.Handle, Workers: 1}
	j := &exportJobs{queue: exports.Queue{Client: client, URL: url}, done: make(chan struct{})}
	go func() {
		_ = poll.Run(ctx)
		close(j.done)
	}()
	return j, nil
}

// TallyBatchWindow is the tally's MaximumBatchingWindowInSeconds in
// template.yaml. Under load the tally then writes a survey's counts (the
// survey item) about once a window per stream shard, as in AWS; without
// it the local poller ran the tally back to back, its transactions held
// the survey item most of the time, and an owner's settings change lost
// to them every few tries (`make load -scenario viral`).
const TallyBatchWindow = time.Second

// startTally starts the poller that plays the tally function's event
// source mapping on the table's stream: from the oldest record kept (the
// checkpoints pass over what an earlier run applied), with the shard's id
// that Lambda's tumbling window gives. It stops with ctx; done closes then.
func startTally(ctx context.Context, st *store.Store, c awsenv.Config) (done chan struct{}, err error) {
	cfg, err := localaws.Load(ctx, c) // a poller holds its client's one connection
	if err != nil {
		return nil, err
	}
	arn, err := store.StreamARN(ctx, st.Client(), st.TableName())
	if err != nil {
		return nil, err
	}
	client := dynamodbstreams.NewFromConfig(cfg)
	desc, err := client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil || len(desc.StreamDescription.Shards) == 0 {
		return nil, fmt.Errorf("tally: describe stream %s: %v", arn, err)
	}
	shard := aws.ToString(desc.StreamDescription.Shards[0].ShardId)
	t := tally.New(tally.Deps{Store: st, Now: time.Now})
	// As template.yaml's mapping: a failing batch (a transaction that lost
	// to an owner's edit of the survey item, say) is halved and retried
	// until it succeeds (MaximumRetryAttempts -1); the checkpoints make the
	// retries add nothing twice. Without the retries a failed batch's
	// counts were dropped for good.
	stream := &eventsource.Stream{Client: client, ARN: arn, Filter: tally.Matches, FromStart: true, BatchSize: 1000,
		MaxIdle: 200 * time.Millisecond, BatchWindow: TallyBatchWindow, MaxRetries: -1, Bisect: true, MaxRecordAge: store.TallyMaxRecordAge,
		Handle: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			_, err := t.Handle(ctx, events.DynamoDBTimeWindowEvent{DynamoDBEvent: ev,
				TimeWindowProperties: events.TimeWindowProperties{ShardID: shard, EventSourceARN: arn}})
			return events.DynamoDBEventResponse{}, err
		}}
	done = make(chan struct{})
	go func() {
		if err := stream.Run(ctx); err != nil {
			slog.ErrorContext(ctx, "tally: the stream poller stopped", "error", err.Error())
		}
		close(done)
	}()
	return done, nil
}
