package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestScheduledEvent replays the payloads EventBridge sends on schedule
// through the function's handler: events/sweeper/scheduled.json sweeps,
// events/sweeper/domains-check.json (the daily schedule's Input) checks
// the domains and nothing else.
func TestScheduledEvent(t *testing.T) {
	domainRuns := 0
	domains := func(context.Context, time.Time) (sweeper.DomainsResult, error) {
		domainRuns++
		return sweeper.DomainsResult{Checked: 1}, nil
	}
	h := handler(sweeper.New(sweeper.Deps{Store: testenv.Store(t)}), domains)
	tests := []struct {
		file, detailType string
		want             func(any) bool
		domainRuns       int
	}{
		{"scheduled.json", "Scheduled Event", func(r any) bool { res, ok := r.(sweeper.Result); return ok && res.Complete }, 0},
		{"domains-check.json", sweeper.DomainsCheckType, func(r any) bool { res, ok := r.(sweeper.DomainsResult); return ok && res.Checked == 1 }, 1},
	}
	for _, tt := range tests {
		data, err := os.ReadFile("../../../events/sweeper/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		var ev events.EventBridgeEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatalf("%s: not an EventBridge event: %v", tt.file, err)
		}
		if ev.DetailType != tt.detailType {
			t.Fatalf("%s: detail-type %q", tt.file, ev.DetailType)
		}
		res, err := h(context.Background(), ev)
		if err != nil || !tt.want(res) || domainRuns != tt.domainRuns {
			t.Fatalf("%s: handler = %+v, %v (domain runs %d)", tt.file, res, err, domainRuns)
		}
	}
}
