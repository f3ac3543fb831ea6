package responding

import (
	"context"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/store"
)

// GuardCodeCheck is the code-guess guard in front of every check of a
// code (authenticate/ and a session's start), before the code is looked
// at:
//   - the client's own failed checks at their limit: 429 with Retry-After
//     (the per-address limit);
//   - the survey under attack (its failed checks at the survey's limit):
//     the request must carry a solved challenge of the survey (contract
//     section 16), which this spends: absent 400 {"captcha": ["This field
//     is required."]}, wrong, reused or expired 400 {"captcha": ["Invalid
//     challenge."]}, the answers of a captcha_needed session. A client that
//     solves it (the page does, in its worker) checks its code; nobody is
//     locked out by the attack. solved says the request spent a challenge
//     already (a captcha_needed session): one is enough.
//
// captcha is the request's "captcha" member as decoded JSON (nil when
// absent).
func (s Service) GuardCodeCheck(ctx context.Context, g store.CodeGuard, sid int64, captcha any, solved bool) error {
	return s.guardCodeCheck(ctx, g, sid, captcha, solved, s.Now())
}

// guardCodeCheck is GuardCodeCheck at now: a session's start as of the
// time it starts at.
func (s Service) guardCodeCheck(ctx context.Context, g store.CodeGuard, sid int64, captcha any, solved bool, now time.Time) error {
	if err := g.Check(); err != nil {
		return err
	}
	if !g.UnderAttack() || solved {
		return nil
	}
	sol, err := challenge.Parse(captcha)
	if err != nil {
		return err
	}
	return challenge.Check(ctx, s.Sealer, s.Store, sid, sol, now)
}
