package survey

import "time"

// Breaker is where a webhook's circuit breaker stands: its consecutive
// failed attempts, and while it is open, the time until which its
// deliveries are not sent (then one probe goes; its success closes it).
type Breaker struct {
	Failures   int
	OpenUntil  time.Time // zero: closed
	ProbeUntil time.Time // a probe under way until then
}

// Open reports whether the breaker holds deliveries back at now.
func (b Breaker) Open(now time.Time) bool { return !b.OpenUntil.IsZero() && now.Before(b.OpenUntil) }
