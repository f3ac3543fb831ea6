package webhook

import (
	"bytes"
	"encoding/json"
	"errors"

	"surveyservice/shared/survey"
)

// Job is one queue message: make the next attempt of one delivery. It
// names what to read rather than carrying it: the response and the webhook
// are read at each attempt, so a changed URL applies to the next retry and
// no secret or answer ever sits in the queue. Attempt is the delivery's
// step (survey.Delivery.Step: attempts made and held back) when the job
// was queued: the attempt is claimed on it, so of several copies of a job
// one is attempted and a stale one dropped.
type Job struct {
	SurveyID   int64  `json:"survey_id"`
	WebhookID  int64  `json:"webhook_id"`
	ResponseID int64  `json:"response_id"`
	Delivery   string `json:"delivery"`
	Attempt    int    `json:"attempt"`
}

// maxJob bounds a message body the decoder reads; maxAttempt the attempts
// a job may name (a schedule and the owner's retries).
const (
	maxJob     = 1024
	maxAttempt = 1000
)

// ErrJob is a message body that is not a Job.
var ErrJob = errors.New("webhook: malformed job")

// Encode is the message body.
func (j Job) Encode() string {
	b, _ := json.Marshal(j)
	return string(b)
}

// DecodeJob reads a message body: a JSON object with positive ids and a
// delivery id, nothing else; ErrJob for anything else.
func DecodeJob(body string) (Job, error) {
	if len(body) > maxJob {
		return Job{}, ErrJob
	}
	d := json.NewDecoder(bytes.NewReader([]byte(body)))
	d.DisallowUnknownFields()
	var j Job
	if err := d.Decode(&j); err != nil || d.More() {
		return Job{}, ErrJob
	}
	if j.SurveyID < 1 || j.WebhookID < 1 || j.ResponseID < 1 || j.Delivery == "" || len(j.Delivery) > 64 || j.Attempt < 0 || j.Attempt > maxAttempt {
		return Job{}, ErrJob
	}
	return j, nil
}

// JobsOf are the jobs of pending deliveries, each for its next attempt
// (at its step so far): what a resumed or retried delivery
// queues.
func JobsOf(ds []survey.Delivery) []Job {
	out := make([]Job, len(ds))
	for i, d := range ds {
		out[i] = Job{SurveyID: d.SurveyID, WebhookID: d.WebhookID, ResponseID: d.ResponseID, Delivery: d.ID(), Attempt: d.Step()}
	}
	return out
}
