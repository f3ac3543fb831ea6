package exports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"surveyservice/shared/survey"
)

// Job is the message that asks the export function to write one export
// job's file: the job (store.ExportJob) names the file; the message says
// what goes in it.
type Job struct {
	SurveyID  int64  `json:"survey_id"`
	AccountID int64  `json:"account_id"`
	JobID     string `json:"job_id"`
	// Format is the file's export_format: 1 a workbook (xlsx), 2 or 0 (a
	// message from before formats) CSV.
	Format int `json:"export_format,omitempty"`
	// Since and Until bound the submission times exported (RFC 3339,
	// both included); empty leaves a side open.
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	// Lang is the language the file's titles and labels are in (contract
	// section 24, ?lang=): one of the page's language codes, checked
	// against the survey's when queued; empty for the survey's own.
	Lang string `json:"lang,omitempty"`
}

// ErrBadJob is a message that is not a Job.
var ErrBadJob = errors.New("exports: malformed job message")

// DecodeJob reads a job message; anything but a whole Job is ErrBadJob.
func DecodeJob(body string) (Job, error) {
	var j Job
	if err := json.Unmarshal([]byte(body), &j); err != nil || j.SurveyID <= 0 || j.AccountID <= 0 || len(j.JobID) != 32 ||
		j.Format < 0 || j.Format > 2 || !validTime(j.Since) || !validTime(j.Until) || !validLang(j.Lang) {
		return Job{}, ErrBadJob
	}
	return j, nil
}

// validLang reports whether s is empty or one of the page's language
// codes.
func validLang(s string) bool {
	return s == "" || slices.Contains(survey.LanguageCodes, s)
}

// validTime reports whether s is empty or an RFC 3339 time.
func validTime(s string) bool {
	if s == "" {
		return true
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// SQS is the part of the SQS client the queue uses.
type SQS interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Queue is the export queue: SQS to the export function (a long timeout;
// template.yaml), a dead-letter queue behind it.
type Queue struct {
	Client SQS
	URL    string
}

// QueueFromEnv is the export queue EXPORT_QUEUE_URL names, with an SQS
// client made from cfg.
func QueueFromEnv(cfg aws.Config, getenv func(string) string) Queue {
	return Queue{Client: sqs.NewFromConfig(cfg), URL: getenv("EXPORT_QUEUE_URL")}
}

// Send enqueues one job.
func (q Queue) Send(ctx context.Context, j Job) error {
	body, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = q.Client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(string(body))})
	if err != nil {
		return fmt.Errorf("exports: send job %s: %w", j.JobID, err)
	}
	return nil
}

// EnsureQueue creates the export queue and its dead-letter queue when
// missing (local runs and tests; in AWS, template.yaml makes them) and
// answers the queue's URL and ARN. visibility is how soon a job whose run
// died comes back.
func EnsureQueue(ctx context.Context, client *sqs.Client, name string, visibility time.Duration) (url, arn string, err error) {
	_, dlqARN, err := createQueue(ctx, client, name+"-dlq", nil)
	if err != nil {
		return "", "", err
	}
	return createQueue(ctx, client, name, map[string]string{
		"VisibilityTimeout": strconv.Itoa(int(visibility / time.Second)),
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlqARN, MaxReceives),
	})
}

// MaxReceives is how many times a job is received before it goes to the
// dead-letter queue: the export function marks it failed on its last
// run (Attempts), so the dead-letter queue only keeps what could not even
// be recorded.
const MaxReceives = 3

func createQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (url, arn string, err error) {
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return "", "", fmt.Errorf("exports: create queue %s: %w", name, err)
	}
	got, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		return "", "", fmt.Errorf("exports: queue %s: %w", name, err)
	}
	return aws.ToString(out.QueueUrl), got.Attributes[string(types.QueueAttributeNameQueueArn)], nil
}
