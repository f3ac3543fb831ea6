package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/deliver"
	"surveyservice/functions/dispatch"
	"surveyservice/internal/eventsource"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

// hookOptions configure the local delivery of webhooks.
type hookOptions struct {
	aws       awsenv.Config
	queueName string
	// visibility is the queue's visibility timeout: how soon a message
	// whose processing died comes back (180 s in AWS).
	visibility time.Duration
	guard      webhook.Guard
	delays     []time.Duration
	// workers is the queue batches handled at once.
	workers int
	maxIdle time.Duration
}

// hooks is the delivery machinery of `make run`: the queue (and its
// dead-letter queue), and the two pollers that play Lambda's event source
// mappings, calling the dispatch and deliver functions' own handlers.
type hooks struct {
	queue webhook.Queue
	done  chan struct{}
}

// startHooks creates the queue when missing and starts the pollers; they
// stop with ctx (wait for them with stop).
func startHooks(ctx context.Context, st *store.Store, sealer *links.Sealer, o hookOptions) (*hooks, error) {
	// Clients of their own: each emulator client has one connection, and
	// a long poll holds it.
	newCfg := func() (aws.Config, error) { return awsenv.Load(ctx, o.aws) }
	cfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	sqsClient := sqs.NewFromConfig(cfg)
	url, arn, err := webhook.EnsureQueue(ctx, sqsClient, o.queueName, o.visibility)
	if err != nil {
		return nil, err
	}
	streamARN, err := store.StreamARN(ctx, st.Client(), st.TableName())
	if err != nil {
		return nil, err
	}
	queue := webhook.Queue{Client: sqsClient, URL: url}
	d := &dispatch.Dispatcher{Store: st, Queue: queue}
	dl := &deliver.Deliverer{Store: st, Opener: sealer, Queue: queue, Client: o.guard.Client(webhook.Timeout), Delays: o.delays}
	streamCfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	pollCfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	stream := &eventsource.Stream{Client: dynamodbstreams.NewFromConfig(streamCfg), ARN: streamARN, Filter: dispatch.Matches,
		Handle: d.Handle, MaxIdle: o.maxIdle}
	poll := &eventsource.Queue{Client: sqs.NewFromConfig(pollCfg), URL: url, ARN: arn, Handle: dl.Handle, Workers: o.workers}
	h := &hooks{queue: queue, done: make(chan struct{}, 2)}
	go func() {
		if err := stream.Run(ctx); err != nil {
			slog.ErrorContext(ctx, "webhooks: the stream poller stopped", "error", err.Error())
		}
		h.done <- struct{}{}
	}()
	go func() {
		_ = poll.Run(ctx)
		h.done <- struct{}{}
	}()
	return h, nil
}

// wait returns once both pollers stopped (after their ctx ended).
func (h *hooks) wait(timeout time.Duration) error {
	for range 2 {
		select {
		case <-h.done:
		case <-time.After(timeout):
			return fmt.Errorf("webhooks: the pollers did not stop within %v", timeout)
		}
	}
	return nil
}
