package webhook_test

import (
	"testing"
	"time"

	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

func TestPauseFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 0}, {webhook.BreakerThreshold - 1, 0},
		{webhook.BreakerThreshold, time.Minute}, {webhook.BreakerThreshold + 1, 2 * time.Minute},
		{webhook.BreakerThreshold + 5, 32 * time.Minute}, {webhook.BreakerThreshold + 6, time.Hour}, {1000, time.Hour},
	} {
		if got := webhook.PauseFor(c.failures); got != c.want {
			t.Errorf("PauseFor(%d) = %v, want %v", c.failures, got, c.want)
		}
	}
}

func TestBreakerStates(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, c := range []struct {
		name          string
		b             survey.Breaker
		open, suspect bool
	}{
		{"Closed", survey.Breaker{}, false, false},
		{"Failing", survey.Breaker{Failures: 2}, false, true},
		{"Open", survey.Breaker{Failures: 5, OpenUntil: now.Add(time.Minute)}, true, true},
		{"PauseOver", survey.Breaker{Failures: 5, OpenUntil: now.Add(-time.Second)}, false, true},
		{"Slow", survey.Breaker{SlowUntil: now.Add(time.Minute)}, false, true},
		{"SlowOver", survey.Breaker{SlowUntil: now.Add(-time.Minute)}, false, false},
	} {
		if c.b.Open(now) != c.open || c.b.Suspect(now) != c.suspect {
			t.Errorf("%s: open %v suspect %v, want %v %v", c.name, c.b.Open(now), c.b.Suspect(now), c.open, c.suspect)
		}
	}
}
