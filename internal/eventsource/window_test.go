package eventsource_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"surveyservice/internal/eventsource"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestStreamBatchWindow: on DynamoDB Local's stream, records written a
// little apart reach the function in one batch with a batching window
// (MaximumBatchingWindowInSeconds), and one or a few at a time without.
func TestStreamBatchWindow(t *testing.T) {
	st := testenv.Store(t)
	cfg := testenv.Config(t)
	arn, err := store.StreamARN(t.Context(), st.Client(), st.TableName())
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	for _, window := range []time.Duration{0, 1500 * time.Millisecond} {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var mu sync.Mutex
			var batches []int
			seen := 0
			prefix := fmt.Sprintf("WINDOW#%v#", window)
			s := &eventsource.Stream{Client: dynamodbstreams.NewFromConfig(cfg), ARN: arn, BatchSize: 100, BatchWindow: window, MaxIdle: 20 * time.Millisecond,
				Filter: func(r events.DynamoDBEventRecord) bool {
					pk := r.Change.Keys[store.AttrPK]
					return len(pk.String()) > len(prefix) && pk.String()[:len(prefix)] == prefix
				},
				Handle: func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
					mu.Lock()
					defer mu.Unlock()
					if len(ev.Records) > 0 {
						batches = append(batches, len(ev.Records))
						seen += len(ev.Records)
					}
					return events.DynamoDBEventResponse{}, nil
				}}
			// Opened first: every record written from here on is handed
			// over, however late the poller's first read comes.
			if err := s.Open(ctx); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			for i := range n {
				_, err := st.Client().PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(st.TableName()), Item: map[string]types.AttributeValue{
					store.AttrPK: &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%d", prefix, i)},
					store.AttrSK: &types.AttributeValueMemberS{Value: "X"},
				}})
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				mu.Lock()
				got := seen
				mu.Unlock()
				if got >= n {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the function saw %d of %d records", got, n)
				}
				time.Sleep(50 * time.Millisecond)
			}
			cancel()
			<-done
			mu.Lock()
			defer mu.Unlock()
			if window > 0 && len(batches) != 1 {
				t.Errorf("with a window of %v: batches %v, want the %d records in one", window, batches, n)
			}
			if window == 0 && len(batches) < 2 {
				t.Errorf("without a window: batches %v, want several", batches)
			}
		})
	}
}
