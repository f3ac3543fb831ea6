// Package eventsource stands in, for `make run` and the tests, for the two
// event source mappings of Lambda that webhooks use: it polls moto's
// DynamoDB stream and SQS queue and calls the very handlers the dispatch
// and deliver functions run, with Lambda's event types, and acts on their
// partial-batch answers as Lambda does (a stream is retried from the first
// failed record; queue messages are deleted except those named failed).
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
	// MaxIdle bounds the wait between polls of an idle stream (default
	// 200 ms); the wait starts at 10 ms and doubles while it stays idle.
	MaxIdle time.Duration
	// FromStart reads the records already in the stream too; otherwise
	// the poller starts at its end (Lambda's LATEST).
	FromStart bool
}

// Run polls until ctx ends. The stream's shards are read one after the
// other (moto serves one).
func (s *Stream) Run(ctx context.Context) error {
	desc, err := s.Client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.ARN)})
	if err != nil {
		return fmt.Errorf("eventsource: describe stream: %w", err)
	}
	if len(desc.StreamDescription.Shards) == 0 {
		return fmt.Errorf("eventsource: stream %s has no shard", s.ARN)
	}
	shard := aws.ToString(desc.StreamDescription.Shards[0].ShardId)
	p := &shardPoller{s: s, shard: shard}
	if !s.FromStart {
		if err := p.skipToEnd(ctx); err != nil {
			return err
		}
	}
	return p.run(ctx)
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
		ev := events.DynamoDBEvent{}
		for _, r := range out.Records {
			rec := Record(r, p.s.ARN)
			if p.s.Filter == nil || p.s.Filter(rec) {
				ev.Records = append(ev.Records, rec)
			}
		}
		last := aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
		if len(ev.Records) > 0 {
			resp, err := p.s.Handle(ctx, ev)
			switch {
			case ctx.Err() != nil:
				return nil
			case err != nil:
				slog.ErrorContext(ctx, "stream handler failed; the batch is retried", "error", err.Error())
				_ = p.position(ctx, aws.ToString(out.Records[0].Dynamodb.SequenceNumber))
				pause(time.Second)
				continue
			case len(resp.BatchItemFailures) > 0:
				_ = p.position(ctx, resp.BatchItemFailures[0].ItemIdentifier)
				pause(200 * time.Millisecond)
				continue
			}
		}
		p.lastSeq, p.iterator = last, aws.ToString(out.NextShardIterator)
	}
	return nil
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
