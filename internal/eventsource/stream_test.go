package eventsource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

func records(n int, at time.Time) []events.DynamoDBEventRecord {
	out := make([]events.DynamoDBEventRecord, n)
	for i := range out {
		out[i].Change.SequenceNumber = fmt.Sprint(100 + i)
		out[i].Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: at}
	}
	return out
}

// TestStreamGivesAPoisonRecordUp: a record that fails every time, in the
// middle of a batch, is isolated (the batch halved at each failure) and,
// its retries spent, reported to the on-failure destination; every other
// record is handled. Both shapes of failure: a returned error (the whole
// batch) and a partial batch response naming it.
func TestStreamGivesAPoisonRecordUp(t *testing.T) {
	t.Parallel()
	for _, partial := range []bool{false, true} {
		t.Run(fmt.Sprintf("partial=%v", partial), func(t *testing.T) {
			var failures []Failure
			handled := map[string]int{}
			calls := 0
			s := &Stream{MaxRetries: 3, Bisect: true, RetryWait: time.Millisecond, OnFailure: func(f Failure) { failures = append(failures, f) },
				Handle: func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
					calls++
					var resp events.DynamoDBEventResponse
					for i, r := range ev.Records {
						if r.Change.SequenceNumber == "103" {
							if !partial {
								return resp, errors.New("poison")
							}
							for _, rest := range ev.Records[i:] {
								resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rest.Change.SequenceNumber})
							}
							return resp, nil
						}
						handled[r.Change.SequenceNumber]++
					}
					return resp, nil
				}}
			p := &shardPoller{s: s}
			if !p.deliver(context.Background(), records(8, time.Now())) {
				t.Fatal("deliver stopped")
			}
			if len(failures) != 1 || failures[0].FirstSequence != "103" || failures[0].Records != 1 || failures[0].Reason != "RetryAttemptsExhausted" {
				t.Fatalf("reported %+v, want record 103 alone", failures)
			}
			for i := range 8 {
				seq := fmt.Sprint(100 + i)
				if seq != "103" && handled[seq] == 0 {
					t.Errorf("record %s never handled", seq)
				}
			}
			t.Logf("%d invocations for 8 records, one poison", calls)
		})
	}
}

// TestStreamGivesOldRecordsUp: records older than MaxRecordAge are
// reported, not handled; bounded retries (0) give a failing batch up at
// once; -1 retries until ctx ends (Lambda's old default: the shard
// blocks).
func TestStreamGivesOldRecordsUp(t *testing.T) {
	t.Parallel()
	var failures []Failure
	var seen []string
	s := &Stream{MaxRecordAge: time.Hour, OnFailure: func(f Failure) { failures = append(failures, f) },
		Handle: func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			for _, r := range ev.Records {
				seen = append(seen, r.Change.SequenceNumber)
			}
			return events.DynamoDBEventResponse{}, nil
		}}
	recs := append(records(2, time.Now().Add(-2*time.Hour)), records(1, time.Now())...)
	recs[2].Change.SequenceNumber = "200"
	(&shardPoller{s: s}).deliver(context.Background(), recs)
	if !slices.Equal(seen, []string{"200"}) || len(failures) != 1 || failures[0].Records != 2 || failures[0].Reason != "RecordAgeExceeded" {
		t.Fatalf("handled %v, reported %+v", seen, failures)
	}

	blocked := &Stream{MaxRetries: -1, RetryWait: time.Millisecond,
		Handle: func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{}, errors.New("always")
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if (&shardPoller{s: blocked}).deliver(ctx, records(1, time.Now())) {
		t.Fatal("unbounded retries passed a failing record")
	}
}
