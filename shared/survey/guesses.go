package survey

import "time"

// GuessLimits bounds how fast codes of a survey can be guessed: failed
// code checks are counted in fixed windows, per survey and per client.
// Once the client's count reaches its limit, that client's checks wait for
// the next window (429); once the survey's does, the survey is under
// attack and every check needs a solved proof-of-work challenge (contract
// section 16) instead: its responders are never locked out together.
type GuessLimits struct {
	Window    time.Duration
	PerSurvey int64 // failed checks of all clients together, a window
	PerClient int64 // failed checks of one client (IPv4 address, IPv6 /64), a window
}

// DefaultGuessLimits: a minute's window keeps a lockout short for a
// responder who mistyped (Retry-After is at most 60 s). Ten failures a
// minute is far more than a person mistyping needs, and holds one client
// to 14,400 guesses a day; past fifty for the survey, from five such
// clients, each further guess costs a solved challenge (2^18 hashes: about
// a second in a phone's browser, milliseconds in native code, so it slows
// a botnet less than it stops scripts that do not solve it). Neither makes
// a short code safe: a 4-digit
// code space is searched in hours at these rates; codes of 8 or more
// random characters are not, in years.
var DefaultGuessLimits = GuessLimits{Window: time.Minute, PerSurvey: 50, PerClient: 10}

// OrDefault is l, or DefaultGuessLimits when l has no window of a second
// or more (the zero value).
func (l GuessLimits) OrDefault() GuessLimits {
	if l.Window < time.Second {
		return DefaultGuessLimits
	}
	return l
}

// tooManyGuesses is the detail of the 429 while a window is exhausted.
const tooManyGuesses = "Too many failed attempts. Try again later."

// CheckGuess answers nil when a request may check a code, given the failed
// checks of the survey and of the request's client in the current window,
// or an ETOOMANY error whose RetryAfter is retryAfter, the time to the
// window's end.
func (l GuessLimits) CheckGuess(surveyFailures, clientFailures int64, retryAfter time.Duration) error {
	if surveyFailures < l.PerSurvey && clientFailures < l.PerClient {
		return nil
	}
	return &Error{Code: ETOOMANY, Detail: tooManyGuesses, RetryAfter: retryAfter}
}
