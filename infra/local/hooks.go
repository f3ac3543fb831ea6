package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/deliver"
	"surveyservice/functions/dispatch"
	"surveyservice/functions/retrier"
	"surveyservice/internal/eventsource"
	"surveyservice/internal/localaws"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/sending"
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
	// retrierEvery is how often the retrier runs (every minute in AWS;
	// 2 s by default here); negative: never (a test runs it itself).
	retrierEvery time.Duration
	// now is the clock of the handlers and the retrier (nil: time.Now);
	// maxDelay and lease are the Deliverer's.
	now      func() time.Time
	maxDelay time.Duration
	lease    time.Duration
	timeout  time.Duration
	budget   time.Duration
	// stream configures the stream's event source as template.yaml does
	// (zero: the template's settings).
	stream eventsource.Stream
	// onStreamFailure receives what the stream's event source gave up on
	// (the failure queue in AWS); nil logs it.
	onStreamFailure func(eventsource.Failure)
	// files is the uploads bucket whose answered files the dispatch
	// keeps (section 16); nil: none are.
	files dispatch.Keeper
	// sender sends email and SMS notifications within limits' budgets;
	// baseURL is the API's address their links start with. A nil sender
	// fails them.
	sender sending.Sender
	limits sending.Limits
	// smsDaily is the service's SMS a day (SMS_DAILY_LIMIT).
	smsDaily int64
	baseURL  string
	// onRequest, when set, is told of each delivery request, the lane
	// ("main" or "slow") that made it, and how long it waited for its
	// answer (a benchmark's measure).
	onRequest func(lane string, req *http.Request, took time.Duration)
}

// timedTransport tells onRequest of each request a lane makes.
type timedTransport struct {
	lane      string
	next      http.RoundTripper
	onRequest func(lane string, req *http.Request, took time.Duration)
}

func (t timedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	t.onRequest(t.lane, req, time.Since(start))
	return resp, err
}

// hooks is the delivery machinery of `make run`: the queue (and its
// dead-letter queue), the two pollers that play Lambda's event source
// mappings, calling the dispatch and deliver functions' own handlers, and
// the retrier on a timer (EventBridge's schedule in AWS). The dispatch
// also keeps the files of new and edited responses (section 16).
type hooks struct {
	queue     webhook.Queue
	deliverer *deliver.Deliverer
	done      chan struct{}
}

// startHooks creates the queue when missing and starts the pollers; they
// stop with ctx (wait for them with stop).
func startHooks(ctx context.Context, st *store.Store, sealer *links.Sealer, o hookOptions) (*hooks, error) {
	// Clients of their own: each emulator client has one connection, and
	// a long poll holds it.
	newCfg := func() (aws.Config, error) { return localaws.Load(ctx, o.aws) }
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
	slowURL, slowARN, err := webhook.EnsureQueue(ctx, sqsClient, o.queueName+"-slow", o.visibility)
	if err != nil {
		return nil, err
	}
	queue := webhook.Queue{Client: sqsClient, URL: url}
	slow := webhook.Queue{Client: sqsClient, URL: slowURL}
	d := dispatch.New(dispatch.Deps{Store: st, Queue: queue, Files: o.files, Now: o.now})
	dl := deliver.New(deliver.Deps{Store: st, Opener: sealer, Queue: queue, Client: o.guard.Client(webhook.Timeout), Delays: o.delays,
		Now: o.now, MaxDelay: o.maxDelay, Lease: o.lease, Timeout: o.timeout, Budget: o.budget, Slow: slow, SlowARN: slowARN,
		Sender: o.sender, Budgets: sending.NewBudgets(st, o.now).WithSMSDaily(o.smsDaily), Limits: o.limits, BaseURL: o.baseURL})
	streamCfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	pollCfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	stream := o.stream
	if stream.MaxRetries == 0 && stream.MaxRecordAge == 0 && !stream.Bisect {
		stream.MaxRetries, stream.MaxRecordAge, stream.Bisect = StreamMaxRetries, StreamMaxRecordAge, true
	}
	stream.Client, stream.ARN, stream.Filter, stream.Handle, stream.MaxIdle = dynamodbstreams.NewFromConfig(streamCfg), streamARN,
		dispatch.Matches, d.Handle, o.maxIdle
	stream.OnFailure = o.onStreamFailure
	if stream.OnFailure == nil {
		stream.OnFailure = func(f eventsource.Failure) {
			slog.Error("dispatch: the stream gave records up (admin replay-webhooks dispatches them again; their files stay pending)",
				"first_sequence", f.FirstSequence, "last_sequence", f.LastSequence, "records", f.Records,
				"first_arrival", f.FirstArrival, "last_arrival", f.LastArrival)
		}
	}
	// Positioned before anything is written: a response recorded as soon
	// as this returns is dispatched (a poller that found the stream's end
	// later would skip it).
	if err := stream.Open(ctx); err != nil {
		return nil, err
	}
	slowDL := dl
	if o.onRequest != nil {
		// Each lane a client of its own, to tell their requests apart.
		lane := func(name string) *deliver.Deliverer {
			c := o.guard.Client(webhook.Timeout)
			c.Transport = timedTransport{lane: name, next: c.Transport, onRequest: o.onRequest}
			copied := *dl
			copied.Client = c
			return &copied
		}
		dl, slowDL = lane("main"), lane("slow")
	}
	poll := &eventsource.Queue{Client: sqs.NewFromConfig(pollCfg), URL: url, ARN: arn, Handle: dl.Handle, Workers: o.workers}
	slowCfg, err := newCfg()
	if err != nil {
		return nil, err
	}
	// The slow lane: one batch at a time (MaximumConcurrency 2 in AWS,
	// the least it takes).
	slowPoll := &eventsource.Queue{Client: sqs.NewFromConfig(slowCfg), URL: slowURL, ARN: slowARN, Handle: slowDL.Handle, Workers: 1}
	h := &hooks{queue: queue, deliverer: dl, done: make(chan struct{}, 4)}
	go func() {
		_ = slowPoll.Run(ctx)
		h.done <- struct{}{}
	}()
	every := o.retrierEvery
	if every == 0 {
		every = 2 * time.Second
	}
	go func() {
		defer func() { h.done <- struct{}{} }()
		if every < 0 {
			return
		}
		clock := o.now
		if clock == nil {
			clock = time.Now
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
			if _, err := retrier.New(retrier.Deps{Store: st, Queue: queue}).Run(ctx, clock()); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "webhooks: retrier", "error", err.Error())
			}
		}
	}()
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

// The stream event source's settings, as template.yaml gives them (a test
// holds them equal).
const (
	StreamMaxRetries   = 5
	StreamMaxRecordAge = 6 * time.Hour
)

// wait returns once the pollers and the retrier stopped (after their ctx
// ended).
func (h *hooks) wait(timeout time.Duration) error {
	for range 4 {
		select {
		case <-h.done:
		case <-time.After(timeout):
			return fmt.Errorf("webhooks: the pollers did not stop within %v", timeout)
		}
	}
	return nil
}
