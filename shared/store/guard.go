package store

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// guessTTL is how long after its window a count item stays before DynamoDB
// may delete it (TTL on expires_at); reads never depend on the deletion,
// as every window has keys of its own.
const guessTTL = time.Hour

// guessItem is GUESSES#<sid> / <window>[#<client>]: failed code checks.
type guessItem struct {
	SK string `dynamo:"SK"`
	N  int64  `dynamo:"n"`
}

// CodeGuard is what one request knows of the recent failed code checks of
// a survey, read with the survey (GuardedSurveyBySlug). Check tells whether
// the client's limit (survey.GuessLimits.PerClient) lets the request check
// a code; UnderAttack whether the survey's failures have reached
// PerSurvey, when a check needs a solved proof-of-work challenge first
// (contract section 16; responding.GuardCodeCheck) instead of being
// refused, so an attack from many addresses costs its attacker work and
// never locks the survey's responders out; RecordFailedGuess counts a
// failure.
//
// Counts are read before the check and written after a failure, so a
// success costs no write. The price: requests that arrive together, before
// any of their failures is counted, all pass; a burst can exceed a limit
// by the requests in flight at once, which the route's throttling in
// template.yaml bounds.
type CodeGuard struct {
	sid      int64
	client   string
	start    int64 // the window, Unix seconds of its start
	end      time.Time
	now      time.Time
	limits   survey.GuessLimits
	failures int64 // of the survey, in the window
	mine     int64 // of the client, in the window
}

// Check answers nil when the client may check a code, or a 429 error
// (ETOOMANY) whose RetryAfter is the time to the window's end, while the
// client's own failures are at its limit. The survey's failures never
// refuse a check (UnderAttack).
func (g CodeGuard) Check() error {
	return g.limits.CheckGuess(0, g.mine, g.end.Sub(g.now))
}

// UnderAttack reports whether the survey's failed checks in the window
// have reached its limit: every check of a code then needs a solved
// challenge.
func (g CodeGuard) UnderAttack() bool { return g.failures >= g.limits.PerSurvey }

// guardFor is the guard of a survey and client at the store's now.
func (s *Store) guardFor(sid int64, client string) CodeGuard {
	now := s.Now()
	lim := s.Guesses.OrDefault()
	w := int64(lim.Window / time.Second)
	start := now.Unix() - ((now.Unix()%w)+w)%w
	return CodeGuard{sid: sid, client: client, start: start, end: time.Unix(start+w, 0), now: now, limits: lim}
}

// GuardedSurveyBySlug finds a survey by its public slug for a route that
// checks a code: one read of the slug, then one eventually consistent
// BatchGetItem of the survey item and the failed checks of the current
// window, for the survey and for the client (its IP address), so the guard
// costs no call of its own. Its counts may miss the failures of the last
// second (as requests that arrive together miss each other's anyway). A
// missing slug answers ENOTFOUND.
//
// The settings, the layout (which grows with the survey's elements) and
// the translations (a session's language is checked against them)
// come from the container's copy of the survey's collection
// (PublicCollection) while the survey item's collection version says it is
// current, as for a view (an eventually consistent read: a newer copy
// serves too); a container without a current copy reads them in the same
// BatchGetItem (none cached) or in a second one of the three items.
func (s *Store) GuardedSurveyBySlug(ctx context.Context, slug, client string) (PublicSurvey, CodeGuard, error) {
	sid, err := s.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return PublicSurvey{}, CodeGuard{}, err
	}
	g := s.guardFor(sid, client)
	guesses := []dynamo.Keyed{dynamo.Keys{GuessesPK(sid), GuessWindowSK(g.start)}, dynamo.Keys{GuessesPK(sid), GuessClientSK(g.start, client)}}
	cached, warm := s.collections.get(sid)
	var items []dynamo.Item
	if warm {
		items, err = s.batchGet(ctx, append([]dynamo.Keyed{dynamo.Keys{SurveyPK(sid), SurveySK}}, guesses...))
	} else {
		items, err = s.publicItems(ctx, sid, append([]dynamo.Keyed{dynamo.Keys{SurveyPK(sid), layoutSK}, dynamo.Keys{SurveyPK(sid), translationsSK}}, guesses...)...)
	}
	if err != nil {
		return PublicSurvey{}, CodeGuard{}, err
	}
	var rest []dynamo.Item
	for _, item := range items {
		var it guessItem
		switch sk := skOf(item); sk {
		case GuessWindowSK(g.start), GuessClientSK(g.start, client):
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return PublicSurvey{}, CodeGuard{}, fmt.Errorf("store: decode guesses: %w", err)
			}
			if sk == GuessWindowSK(g.start) {
				g.failures = it.N
			} else {
				g.mine = it.N
			}
		default:
			rest = append(rest, item)
		}
	}
	if warm {
		current := len(rest) == 0 // no survey item: ENOTFOUND below
		for _, item := range rest {
			current = current || skOf(item) == SurveySK && cached.version >= collectionVersion(item)
		}
		if current {
			ps, err := decodePublic(rest)
			if err != nil {
				return PublicSurvey{}, CodeGuard{}, err
			}
			ps.Settings, ps.Layout, ps.Translations = cached.c.Settings, cached.c.Layout, cached.c.Translations
			return ps, g, nil
		}
		// The copy is older than the survey: its settings and layout
		// as they are now.
		more, err := s.batchGet(ctx, []dynamo.Keyed{dynamo.Keys{SurveyPK(sid), settingsSK}, dynamo.Keys{SurveyPK(sid), layoutSK}, dynamo.Keys{SurveyPK(sid), translationsSK}})
		if err != nil {
			return PublicSurvey{}, CodeGuard{}, err
		}
		rest = append(rest, more...)
	}
	ps, err := decodePublic(rest)
	return ps, g, err
}

// batchGet is one eventually consistent BatchGetItem of keys (a session's
// start: see publicItems); missing items are left out.
func (s *Store) batchGet(ctx context.Context, keys []dynamo.Keyed) ([]dynamo.Item, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(false).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, s.fail("get public survey", err)
	}
	return items, nil
}

// RecordFailedGuess counts one failed code check in the guard's window,
// for the survey and for the client: two UpdateItem ADDs, side by side.
// The items expire (TTL) an hour after the window.
func (s *Store) RecordFailedGuess(ctx context.Context, g CodeGuard) error {
	expires := g.end.Add(guessTTL).Unix()
	var eg errgroup.Group
	for _, sk := range []string{GuessWindowSK(g.start), GuessClientSK(g.start, g.client)} {
		eg.Go(func() error {
			err := s.table.Update(AttrPK, GuessesPK(g.sid)).Range(AttrSK, sk).Add("n", 1).Set(AttrTTL, expires).Run(ctx)
			if err != nil {
				return s.fail(fmt.Sprintf("count a failed code check of survey %d", g.sid), err)
			}
			return nil
		})
	}
	return eg.Wait()
}

// clientKey is the part of a guess key that names a client: an IPv4
// address, the /64 of an IPv6 one, or "unknown" when the request gave no
// address that parses (all such requests share one count).
func clientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "unknown"
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
