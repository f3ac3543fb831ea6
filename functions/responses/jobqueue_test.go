package responses_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"surveyservice/functions/responses"
	"surveyservice/internal/testenv"
	"surveyservice/shared/exports"
)

// jobQueue is an export queue of its own on the emulator's SQS, and the
// export function's handler, which run plays as Lambda's event source
// mapping would.
type jobQueue struct {
	exports.Queue
	client *sqs.Client
}

func newJobQueue(tb testing.TB, name string) *jobQueue {
	tb.Helper()
	client := sqs.NewFromConfig(testenv.Config(tb))
	url, _, err := exports.EnsureQueue(context.Background(), client, name, 30*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	return &jobQueue{Queue: exports.Queue{Client: client, URL: url}, client: client}
}

// run receives what is queued and hands it to the export function, a
// batch at a time, deleting what it handled (as Lambda does); it answers
// the messages handled and the ones the function reported as failed.
func (q *jobQueue) run(tb testing.TB, e *responses.Exporter) (handled, failed int) {
	tb.Helper()
	ctx := context.Background()
	for {
		out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10})
		if err != nil {
			tb.Fatal(err)
		}
		if len(out.Messages) == 0 {
			return handled, failed
		}
		var ev events.SQSEvent
		for _, m := range out.Messages {
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body)})
		}
		res, err := e.Handle(ctx, ev)
		if err != nil {
			tb.Fatal(err)
		}
		bad := map[string]bool{}
		for _, f := range res.BatchItemFailures {
			bad[f.ItemIdentifier] = true
		}
		for _, m := range out.Messages {
			handled++
			if bad[aws.ToString(m.MessageId)] {
				failed++
				continue
			}
			if _, err := q.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// drainedQueue is a jobQueue whose Send runs what is queued through the
// export function's handler before it returns.
type drainedQueue struct {
	*jobQueue
	tb testing.TB
	e  *responses.Exporter
}

func (q *drainedQueue) Send(ctx context.Context, j exports.Job) error {
	if err := q.Queue.Send(ctx, j); err != nil {
		return err
	}
	if handled, failed := q.run(q.tb, q.e); handled == 0 || failed != 0 {
		q.tb.Errorf("the workbook queue: %d jobs handled, %d failed", handled, failed)
	}
	return nil
}
