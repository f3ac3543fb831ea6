// Package eventsource stands in, for `make run` and the tests, for the two
// event source mappings of Lambda that webhooks use: it polls moto's
// DynamoDB stream and SQS queue and calls the very handlers the dispatch
// and deliver functions run, with Lambda's event types, and acts on their
// answers as Lambda does with template.yaml's settings: a stream batch is
// retried from its first failed record (ReportBatchItemFailures), halved
// when it fails again (BisectBatchOnFunctionError), at most MaxRetries
// times, and what is given up (or older than MaxRecordAge) is reported to
// OnFailure, Lambda's on-failure destination, and skipped; queue messages
// are deleted except those named failed.
package eventsource

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Stream polls one table stream.
type Stream struct {
	Client *dynamodbstreams.Client
	ARN    string
	// Filter is the event filter (nil: every record).
	Filter func(events.DynamoDBEventRecord) bool
	Handle func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
	// BatchSize is the records of one GetRecords (default 100).
	BatchSize int32
	// BatchWindow is MaximumBatchingWindowInSeconds: once records are
	// read, more are gathered until the batch has BatchSize records or the
	// window has passed, and then handed over together (0: at once). Under
	// steady load the function then runs about once a window, as Lambda
	// runs it, instead of back to back.
	BatchWindow time.Duration
	// MaxIdle bounds the wait between polls of an idle stream (default
	// 200 ms); the wait starts at 10 ms and doubles while it stays idle.
	MaxIdle time.Duration
	// FromStart reads the records already in the stream too; otherwise
	// the poller starts at its end (Lambda's LATEST).
	FromStart bool
	// MaxRetries is the retries of a failing batch (MaximumRetryAttempts;
	// -1: until the records expire, Lambda's default).
	MaxRetries int
	// Bisect halves a batch that failed before retrying it
	// (BisectBatchOnFunctionError).
	Bisect bool
	// MaxRecordAge gives up records older than this
	// (MaximumRecordAgeInSeconds); 0: no limit.
	MaxRecordAge time.Duration
	// RetryWait is the pause before a retry (default 200 ms).
	RetryWait time.Duration
	// OnFailure receives each batch given up (the on-failure
	// destination); nil: nothing is told.
	OnFailure func(Failure)
	// Now is the clock of the record age; nil means time.Now.
	Now func() time.Time

	poller *shardPoller // set by Open
}

// Failure is what Lambda sends the on-failure destination of a stream
// when it gives records up: where they were, never the records.
type Failure struct {
	FirstSequence, LastSequence string
	Records                     int
	FirstArrival, LastArrival   time.Time
	// Reason is "RetryAttemptsExhausted" or "RecordAgeExceeded".
	Reason string
}

// Open finds the stream's shard and, unless FromStart, its end: every
// record written once Open returned is handed over (Lambda's LATEST counts
// from the mapping's creation, not from its first poll). A caller that
// writes right after starting the poller opens it first; Run opens it
// otherwise.
func (s *Stream) Open(ctx context.Context) error {
	desc, err := s.Client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.ARN)})
	if err != nil {
		return fmt.Errorf("eventsource: describe stream: %w", err)
	}
	if len(desc.StreamDescription.Shards) == 0 {
		return fmt.Errorf("eventsource: stream %s has no shard", s.ARN)
	}
	p := &shardPoller{s: s, shard: aws.ToString(desc.StreamDescription.Shards[0].ShardId)}
	if !s.FromStart {
		if err := p.skipToEnd(ctx); err != nil {
			return err
		}
	}
	s.poller = p
	return nil
}

// Run polls until ctx ends. The stream's shards are read one after the
// other (the emulators serve one). Like Lambda's event source mapping, it
// keeps trying to open a stream it cannot reach yet.
func (s *Stream) Run(ctx context.Context) error {
	for s.poller == nil {
		err := s.Open(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		slog.ErrorContext(ctx, "stream open", "error", err.Error())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	return s.poller.run(ctx)
}

type shardPoller struct {
	s        *Stream
	shard    string
	lastSeq  string // the last record handled (or skipped)
	iterator string
}

// position gets an iterator just after the last record seen. It is asked
// again whenever the stream is idle: moto replaces a table's stream shard
// when it rolls a failed transaction back, and an old iterator would then
// never see a new record.
func (p *shardPoller) position(ctx context.Context, at string) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(p.s.ARN), ShardId: aws.String(p.shard)}
	switch {
	case at != "":
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAtSequenceNumber, aws.String(at)
	case p.lastSeq != "":
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(p.lastSeq)
	default:
		in.ShardIteratorType = types.ShardIteratorTypeTrimHorizon
	}
	out, err := p.s.Client.GetShardIterator(ctx, in)
	if err != nil {
		return fmt.Errorf("eventsource: shard iterator: %w", err)
	}
	p.iterator = aws.ToString(out.ShardIterator)
	return nil
}

func (p *shardPoller) batch() int32 {
	if p.s.BatchSize > 0 {
		return p.s.BatchSize
	}
	return 100
}

// skipToEnd reads past the records already there, handling none.
func (p *shardPoller) skipToEnd(ctx context.Context) error {
	if err := p.position(ctx, ""); err != nil {
		return err
	}
	for {
		out, err := p.s.Client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(p.iterator), Limit: aws.Int32(1000)})
		if err != nil {
			return fmt.Errorf("eventsource: get records: %w", err)
		}
		if len(out.Records) == 0 {
			return nil
		}
		p.lastSeq = aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
		p.iterator = aws.ToString(out.NextShardIterator)
	}
}

func (p *shardPoller) run(ctx context.Context) error {
	maxIdle := p.s.MaxIdle
	if maxIdle <= 0 {
		maxIdle = 200 * time.Millisecond
	}
	idle := 10 * time.Millisecond
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	for ctx.Err() == nil {
		if p.iterator == "" {
			if err := p.position(ctx, ""); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				slog.ErrorContext(ctx, "stream poll", "error", err.Error())
				pause(time.Second)
				continue
			}
		}
		out, err := p.s.Client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(p.iterator), Limit: aws.Int32(p.batch())})
		if err != nil {
			if ctx.Err() == nil {
				slog.ErrorContext(ctx, "stream poll", "error", err.Error())
			}
			p.iterator = ""
			pause(time.Second)
			continue
		}
		if len(out.Records) == 0 {
			p.iterator = ""
			pause(idle)
			idle = min(2*idle, maxIdle)
			continue
		}
		idle = 10 * time.Millisecond
		read, next := out.Records, aws.ToString(out.NextShardIterator)
		if p.s.BatchWindow > 0 {
			read, next = p.gather(ctx, read, next)
		}
		var recs []events.DynamoDBEventRecord
		for _, r := range read {
			rec := Record(r, p.s.ARN)
			if p.s.Filter == nil || p.s.Filter(rec) {
				recs = append(recs, rec)
			}
		}
		last := aws.ToString(read[len(read)-1].Dynamodb.SequenceNumber)
		if !p.deliver(ctx, recs) {
			return nil
		}
		p.lastSeq, p.iterator = last, next
	}
	return nil
}

// gather reads on from next until the batch has BatchSize records or
// BatchWindow has passed since its first were read (a failed read ends it
// early: what was read is handed over, and the poller reads on from
// there). It answers the records and the iterator after them.
func (p *shardPoller) gather(ctx context.Context, read []types.Record, next string) ([]types.Record, string) {
	deadline := time.Now().Add(p.s.BatchWindow)
	for len(read) < int(p.batch()) && next != "" {
		wait := time.Until(deadline)
		if wait <= 0 {
			break
		}
		select {
		case <-ctx.Done():
			return read, next
		case <-time.After(min(wait, 100*time.Millisecond)):
		}
		out, err := p.s.Client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(next), Limit: aws.Int32(p.batch() - int32(len(read)))})
		if err != nil {
			break
		}
		read, next = append(read, out.Records...), aws.ToString(out.NextShardIterator)
	}
	return read, next
}

// part is a batch, or a half of one, with the retries it has had.
type part struct {
	recs    []events.DynamoDBEventRecord
	retries int
}

// deliver hands recs to the function as Lambda does, and answers false
// only when ctx ended (the records are then not passed).
func (p *shardPoller) deliver(ctx context.Context, recs []events.DynamoDBEventRecord) bool {
	now := time.Now
	if p.s.Now != nil {
		now = p.s.Now
	}
	wait := p.s.RetryWait
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	work := []part{{recs: recs}}
	for len(work) > 0 && ctx.Err() == nil {
		b := work[0]
		work = work[1:]
		if p.s.MaxRecordAge > 0 {
			fresh := b.recs[:0:0]
			var old []events.DynamoDBEventRecord
			for _, r := range b.recs {
				if t := r.Change.ApproximateCreationDateTime.Time; !t.IsZero() && now().Sub(t) > p.s.MaxRecordAge {
					old = append(old, r)
				} else {
					fresh = append(fresh, r)
				}
			}
			p.giveUp(old, "RecordAgeExceeded")
			b.recs = fresh
		}
		if len(b.recs) == 0 {
			continue
		}
		resp, err := p.s.Handle(ctx, events.DynamoDBEvent{Records: b.recs})
		if ctx.Err() != nil {
			return false
		}
		from := len(b.recs)
		switch {
		case err != nil:
			slog.ErrorContext(ctx, "stream handler failed", "error", err.Error(), "records", len(b.recs))
			from = 0
		default:
			for _, f := range resp.BatchItemFailures {
				for i, r := range b.recs {
					if r.Change.SequenceNumber == f.ItemIdentifier && i < from {
						from = i
					}
				}
			}
		}
		if from == len(b.recs) {
			continue
		}
		rest := b.recs[from:]
		if p.s.MaxRetries >= 0 && b.retries >= p.s.MaxRetries {
			p.giveUp(rest, "RetryAttemptsExhausted")
			continue
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		if p.s.Bisect && len(rest) > 1 {
			half := len(rest) / 2
			work = append([]part{{rest[:half], b.retries + 1}, {rest[half:], b.retries + 1}}, work...)
		} else {
			work = append([]part{{rest, b.retries + 1}}, work...)
		}
	}
	return ctx.Err() == nil
}

// giveUp reports records Lambda would give up to the on-failure
// destination.
func (p *shardPoller) giveUp(recs []events.DynamoDBEventRecord, reason string) {
	if len(recs) == 0 || p.s.OnFailure == nil {
		return
	}
	first, last := recs[0].Change, recs[len(recs)-1].Change
	p.s.OnFailure(Failure{FirstSequence: first.SequenceNumber, LastSequence: last.SequenceNumber, Records: len(recs),
		FirstArrival: first.ApproximateCreationDateTime.Time, LastArrival: last.ApproximateCreationDateTime.Time, Reason: reason})
}

// Record converts a stream record of the SDK into the record Lambda hands
// a function.
func Record(r types.Record, arn string) events.DynamoDBEventRecord {
	rec := events.DynamoDBEventRecord{
		AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
		EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: arn,
	}
	if d := r.Dynamodb; d != nil {
		rec.Change = events.DynamoDBStreamRecord{
			Keys: image(d.Keys), NewImage: image(d.NewImage), OldImage: image(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes),
			StreamViewType: string(d.StreamViewType),
		}
		if d.ApproximateCreationDateTime != nil {
			rec.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
		}
	}
	return rec
}

func image(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = value(v)
	}
	return out
}

func value(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = value(e)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(image(v.Value))
	}
	return events.NewNullAttribute()
}
