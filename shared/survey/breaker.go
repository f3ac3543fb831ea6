package survey

import "time"

// Breaker is where a webhook's circuit breaker stands: its consecutive
// failed attempts, and while it is open, the time until which its
// deliveries are not sent (then one probe goes; its success closes it).
type Breaker struct {
	Failures   int
	OpenUntil  time.Time // zero: closed
	ProbeUntil time.Time // a probe under way until then
	// SlowUntil is set when an attempt waited longer than the main
	// lane's budget for its answer: until then the webhook's attempts
	// are the slow lane's.
	SlowUntil time.Time
	// Resume is set when the owner's change closed the breaker but left
	// paused deliveries to resume (more than one request resumes): the
	// webhook's next success resumes the rest.
	Resume bool
}

// Suspect reports whether the webhook's attempts belong in the slow lane
// at now: it failed lately, is paused, or was slow.
func (b Breaker) Suspect(now time.Time) bool {
	return b.Failures > 0 || !b.OpenUntil.IsZero() || now.Before(b.SlowUntil)
}

// Open reports whether the breaker holds deliveries back at now.
func (b Breaker) Open(now time.Time) bool { return !b.OpenUntil.IsZero() && now.Before(b.OpenUntil) }
