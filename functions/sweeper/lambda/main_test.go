package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestScheduledEvent replays events/sweeper/scheduled.json, the payload
// EventBridge sends on schedule, through the function's handler.
func TestScheduledEvent(t *testing.T) {
	data, err := os.ReadFile("../../../events/sweeper/scheduled.json")
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
	res, err := handler(sweeper.New(sweeper.Deps{Store: testenv.Store(t)}))(context.Background(), ev)
	if err != nil || !res.Complete {
		t.Fatalf("handler = %+v, %v", res, err)
	}
}
