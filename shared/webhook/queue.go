package webhook

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQS is the part of the SQS client the queue uses.
type SQS interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Queue is the delivery queue: Amazon SQS. It carries attempts that are
// due now or within MaxSendDelay (a delayed message); longer waits live on
// the delivery item (the due index), never in the queue, so a message is
// in flight only while it is being processed. Its dead-letter queue keeps
// what the delivery function could not process at all.
type Queue struct {
	Client SQS
	URL    string
}

// QueueURLFrom reads WEBHOOK_QUEUE_URL through getenv.
func QueueURLFrom(getenv func(string) string) string { return getenv("WEBHOOK_QUEUE_URL") }

// QueueFromEnv is a function's delivery queue: an SQS client made from cfg,
// the queue WEBHOOK_QUEUE_URL names.
func QueueFromEnv(cfg aws.Config, getenv func(string) string) Queue {
	return Queue{Client: sqs.NewFromConfig(cfg), URL: QueueURLFrom(getenv)}
}

// SlowLaneFrom reads the slow lane's queue URL and ARN
// (WEBHOOK_SLOW_QUEUE_URL, WEBHOOK_SLOW_QUEUE_ARN) through getenv.
func SlowLaneFrom(getenv func(string) string) (url, arn string) {
	return getenv("WEBHOOK_SLOW_QUEUE_URL"), getenv("WEBHOOK_SLOW_QUEUE_ARN")
}

// MaxSendDelay is the longest delay SQS gives a message as it is sent.
const MaxSendDelay = 15 * time.Minute

// Send enqueues jobs, ten a call (SQS's batch limit), each delayed by
// delay (at most MaxSendDelay). Entries SQS refuses are sent again once;
// then Send fails, and the caller's own retry (the stream's, the
// client's) sends them again: a job is sent at least once.
func (q Queue) Send(ctx context.Context, jobs []Job, delay time.Duration) error {
	delay = min(delay, MaxSendDelay)
	for start := 0; start < len(jobs); start += 10 {
		batch := jobs[start:min(start+10, len(jobs))]
		for try := 0; ; try++ {
			entries := make([]types.SendMessageBatchRequestEntry, len(batch))
			for i, j := range batch {
				entries[i] = types.SendMessageBatchRequestEntry{
					Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(j.Encode()),
					DelaySeconds: int32(delay / time.Second),
				}
			}
			out, err := q.Client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
			if err != nil {
				return fmt.Errorf("webhook: send %d jobs: %w", len(batch), err)
			}
			if len(out.Failed) == 0 {
				break
			}
			if try == 1 {
				return fmt.Errorf("webhook: send jobs: %d refused (%s)", len(out.Failed), aws.ToString(out.Failed[0].Code))
			}
			var again []Job
			for _, f := range out.Failed {
				i, _ := strconv.Atoi(aws.ToString(f.Id))
				again = append(again, batch[i])
			}
			batch = again
		}
	}
	return nil
}

// Queue settings, as template.yaml gives the deployed queue.
const (
	// MaxReceives is the receives after which a message goes to the
	// dead-letter queue. A message is received once when all goes well
	// (retries are new messages), again only when its processing failed
	// (the store unreachable, the function killed): 5 such failures, each
	// after the visibility timeout, send it there.
	MaxReceives = 5
	// Retention keeps a message 4 days: longer than the schedule.
	Retention = 4 * 24 * time.Hour
)

// EnsureQueue returns the URL and ARN of the delivery queue name, creating
// it and its dead-letter queue (name-dlq) when missing: for local runs and
// tests; in AWS, template.yaml creates them. visibility is the queue's
// visibility timeout: how long a message whose processing died stays
// hidden.
func EnsureQueue(ctx context.Context, client *sqs.Client, name string, visibility time.Duration) (url, arn string, err error) {
	dlq, dlqARN, err := createQueue(ctx, client, name+"-dlq", map[string]string{"MessageRetentionPeriod": strconv.Itoa(int(14 * 24 * time.Hour / time.Second))})
	if err != nil {
		return "", "", err
	}
	_ = dlq
	return createQueue(ctx, client, name, map[string]string{
		"VisibilityTimeout":      strconv.Itoa(int(visibility / time.Second)),
		"MessageRetentionPeriod": strconv.Itoa(int(Retention / time.Second)),
		"RedrivePolicy":          fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlqARN, MaxReceives),
	})
}

func createQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (url, arn string, err error) {
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return "", "", fmt.Errorf("webhook: create queue %s: %w", name, err)
	}
	got, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return "", "", fmt.Errorf("webhook: queue %s: %w", name, err)
	}
	return aws.ToString(out.QueueUrl), got.Attributes[string(types.QueueAttributeNameQueueArn)], nil
}
