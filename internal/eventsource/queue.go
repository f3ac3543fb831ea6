package eventsource

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue polls an SQS queue. Give it an SQS client of its own: a long poll
// holds its connection, and the emulator's clients have one each.
type Queue struct {
	Client *sqs.Client
	URL    string
	ARN    string
	Handle func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	// Workers is the batches handled at once (default 2).
	Workers int
	// Wait is the long poll (default 1 s).
	Wait time.Duration
}

// Run polls until ctx ends.
func (q *Queue) Run(ctx context.Context) error {
	workers := max(q.Workers, 1)
	if q.Workers == 0 {
		workers = 2
	}
	done := make(chan struct{}, workers)
	for range workers {
		go func() {
			q.work(ctx)
			done <- struct{}{}
		}()
	}
	for range workers {
		<-done
	}
	return nil
}

func (q *Queue) work(ctx context.Context) {
	wait := q.Wait
	if wait == 0 {
		wait = time.Second
	}
	for ctx.Err() == nil {
		out, err := q.Client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: int32(wait / time.Second),
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if err != nil {
			if ctx.Err() == nil {
				slog.ErrorContext(ctx, "queue poll", "error", err.Error())
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		if len(out.Messages) == 0 {
			continue
		}
		ev := events.SQSEvent{Records: make([]events.SQSMessage, len(out.Messages))}
		for i, m := range out.Messages {
			ev.Records[i] = events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
				Body: aws.ToString(m.Body), Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: m.Attributes,
				EventSource: "aws:sqs", EventSourceARN: q.ARN}
		}
		resp, err := q.Handle(ctx, ev)
		if ctx.Err() != nil || err != nil {
			// A function that fails (or dies) deletes nothing: every
			// message comes back after its visibility timeout.
			continue
		}
		keep := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			keep[f.ItemIdentifier] = true
		}
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range ev.Records {
			if !keep[m.MessageId] {
				del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.ReceiptHandle)})
			}
		}
		if len(del) > 0 {
			if _, err := q.Client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: del}); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "queue delete", "error", err.Error())
			}
		}
	}
}
