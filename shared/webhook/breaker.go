package webhook

import "time"

// The circuit breaker of a webhook: after BreakerThreshold consecutive
// failed attempts its deliveries are paused, so that a dead or slow
// receiver stops taking the delivery function's time (each failure may
// cost Timeout) from every other webhook. While paused, a delivery's due
// attempts are counted as failed without a request (its schedule goes on,
// so it still fails after the schedule's span); when the pause ends one
// attempt goes through as a probe. The probe's success, or the owner's
// PATCH of the webhook, closes the breaker; its failure pauses again, for
// twice as long, up to MaxPause.
const (
	BreakerThreshold = 5
	FirstPause       = time.Minute
	MaxPause         = time.Hour
	// ProbeLease is how long one probe holds the way.
	ProbeLease = 2 * Timeout
)

// PauseFor is the pause after failures consecutive failures: none below
// the threshold, then FirstPause doubling with each failed probe.
func PauseFor(failures int) time.Duration {
	if failures < BreakerThreshold {
		return 0
	}
	n := failures - BreakerThreshold
	if n >= 6 {
		return MaxPause
	}
	return min(FirstPause<<n, MaxPause)
}

// The slow lane. An attempt still waiting for its receiver after
// MainLaneBudget marks its webhook slow for SlowFor, and goes on waiting
// (up to Timeout: it is never cut to change lanes, which would send the
// event twice to a receiver that answers in time); the webhook's next
// attempts are moved to the slow lane before any request. So a receiver
// that turns slow or dead holds main-lane batches only with the attempts
// started before its mark (those within about MainLaneBudget of its first
// slow one), each at most Timeout.
const (
	MainLaneBudget = time.Second
	SlowFor        = 10 * time.Minute
)
