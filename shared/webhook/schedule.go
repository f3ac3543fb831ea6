package webhook

import (
	"fmt"
	"strings"
	"time"
)

// DefaultDelays are the waits before each retry of a failed delivery: the
// attempts come at 0, 30 s, 2.5 min, 12.5 min, 42.5 min, 1 h 42 min,
// 4 h 42 min, 10 h 42 min, 22 h 42 min and 34 h 42 min, so they span more
// than the 24 hours the contract asks; after the last the delivery is
// failed.
var DefaultDelays = []time.Duration{
	30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
	time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 12 * time.Hour,
}

// Timeout is how long a receiver has to answer a delivery.
const Timeout = 10 * time.Second

// NextDelay returns the wait before the next attempt of a delivery that has
// failed attempts times, or false when it has had all of them.
func NextDelay(delays []time.Duration, attempts int) (time.Duration, bool) {
	if attempts < 1 || attempts > len(delays) {
		return 0, false
	}
	return delays[attempts-1], true
}

// MaxAttempts is the number of attempts a schedule makes.
func MaxAttempts(delays []time.Duration) int { return len(delays) + 1 }

// ParseDelays reads a schedule from configuration: durations separated by
// commas ("30s,2m,10m"); empty means DefaultDelays.
func ParseDelays(s string) ([]time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultDelays, nil
	}
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("webhook: retry delay %q: want a duration such as 30s or 2m", part)
		}
		out = append(out, d)
	}
	return out, nil
}

// RequeueAfter is how long after a job is queued the retrier looks at its
// delivery again, should the job be lost (a send that failed after the
// delivery was written, a message in the dead-letter queue): the due
// index holds every pending delivery at its next attempt or, once its job
// is queued, this much later.
const RequeueAfter = 5 * time.Minute

// ClaimLease is how long an attempt's claim holds: longer than the
// delivery function may run (30 s), so that only a dead attempt's claim
// lapses, after which the retrier queues the delivery again.
const ClaimLease = 6 * Timeout
