package testenv

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"surveyservice/functions/tally"
	"surveyservice/internal/eventsource"
	"surveyservice/shared/store"
)

// tallied is how far Tally has read each stream shard of the test
// binary's table.
var tallied = struct {
	sync.Mutex
	last map[string]string // shard id -> last sequence number read
}{last: map[string]string{}}

// StreamRecords are every record of the running top-level test's table
// stream, shard by shard from the oldest kept, as Lambda's events carry
// them.
func StreamRecords(tb testing.TB) map[string][]events.DynamoDBEventRecord {
	tb.Helper()
	st := Store(tb)
	ctx := context.Background()
	arn, err := store.StreamARN(ctx, st.Client(), st.TableName())
	if err != nil {
		tb.Fatal(err)
	}
	client := dynamodbstreams.NewFromConfig(Config(tb))
	desc, err := client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][]events.DynamoDBEventRecord{}
	for _, sh := range desc.StreamDescription.Shards {
		id := aws.ToString(sh.ShardId)
		it, err := client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
			ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
		if err != nil {
			tb.Fatal(err)
		}
		for iter := it.ShardIterator; iter != nil; {
			got, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
			if err != nil {
				tb.Fatal(err)
			}
			if len(got.Records) == 0 {
				break
			}
			for _, r := range got.Records {
				out[id] = append(out[id], eventsource.Record(r, arn))
			}
			iter = got.NextShardIterator
		}
	}
	return out
}

// Tally brings every survey's counts up to date, as the tally function
// does in AWS seconds after the submissions: it reads the table's stream
// from where the last call stopped and hands the records to the tally
// function's own handler, a batch per shard as Lambda would. Tests call it
// before they read submitted_responses, the report or has_response.
func Tally(tb testing.TB) {
	tb.Helper()
	st := Store(tb)
	ctx := context.Background()
	arn, err := store.StreamARN(ctx, st.Client(), st.TableName())
	if err != nil {
		tb.Fatalf("testenv: tally: %v", err)
	}
	client := dynamodbstreams.NewFromConfig(Config(tb))
	tallied.Lock()
	defer tallied.Unlock()
	desc, err := client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		tb.Fatalf("testenv: tally: describe stream: %v", err)
	}
	t := tally.New(tally.Deps{Store: st})
	for _, sh := range desc.StreamDescription.Shards {
		id := aws.ToString(sh.ShardId)
		in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(id),
			ShardIteratorType: types.ShardIteratorTypeTrimHorizon}
		if last := tallied.last[arn+"|"+id]; last != "" {
			in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(last)
		}
		it, err := client.GetShardIterator(ctx, in)
		if err != nil {
			tb.Fatalf("testenv: tally: shard iterator: %v", err)
		}
		iter := it.ShardIterator
		for iter != nil {
			out, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(1000)})
			if err != nil {
				tb.Fatalf("testenv: tally: get records: %v", err)
			}
			if len(out.Records) == 0 {
				break
			}
			ev := events.DynamoDBTimeWindowEvent{TimeWindowProperties: events.TimeWindowProperties{ShardID: id, EventSourceARN: arn}}
			for _, r := range out.Records {
				ev.Records = append(ev.Records, eventsource.Record(r, arn))
			}
			if _, err := t.Handle(ctx, ev); err != nil {
				tb.Fatalf("testenv: tally: %v", err)
			}
			tallied.last[arn+"|"+id] = aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
			iter = out.NextShardIterator
		}
	}
}
