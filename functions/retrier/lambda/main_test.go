package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/retrier"
	"surveyservice/internal/testenv"
	"surveyservice/shared/webhook"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type noQueue struct{ jobs []webhook.Job }

func (q *noQueue) Send(_ context.Context, jobs []webhook.Job, _ time.Duration) error {
	q.jobs = append(q.jobs, jobs...)
	return nil
}

// TestScheduledEvent replays events/retrier/scheduled.json, the payload
// EventBridge sends on schedule, through the function's handler.
func TestScheduledEvent(t *testing.T) {
	data, err := os.ReadFile("../../../events/retrier/scheduled.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.EventBridgeEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("not an EventBridge event: %v", err)
	}
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" {
		t.Fatalf("not a scheduled event: %+v", ev)
	}
	res, err := handler(retrier.New(retrier.Deps{Store: testenv.Store(t), Queue: &noQueue{}}))(context.Background(), ev)
	if err != nil || !res.Complete {
		t.Fatalf("handler = %+v, %v", res, err)
	}
}
