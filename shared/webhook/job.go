package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Job is one queue message: deliver (or deliver again) one delivery. It
// names what to read rather than carrying it: the response and the webhook
// are read at each attempt, so a changed URL applies to the next retry and
// no secret or answer ever sits in the queue.
type Job struct {
	SurveyID   int64  `json:"survey_id"`
	WebhookID  int64  `json:"webhook_id"`
	ResponseID int64  `json:"response_id"`
	Delivery   string `json:"delivery"`
	// NotBefore (Unix seconds) holds back a copy that was re-sent to wait
	// longer than a message's visibility may be extended: received early,
	// it is hidden again until then.
	NotBefore int64 `json:"not_before,omitempty"`
	// Manual marks the owner's retry: it is attempted even when the
	// delivery has failed for good.
	Manual bool `json:"manual,omitempty"`
}

// maxJob bounds a message body the decoder reads.
const maxJob = 1024

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
	if j.SurveyID < 1 || j.WebhookID < 1 || j.ResponseID < 1 || j.Delivery == "" || len(j.Delivery) > 64 || j.NotBefore < 0 {
		return Job{}, ErrJob
	}
	return j, nil
}
