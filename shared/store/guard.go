package store

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
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
// checks a code or starts a session: one read of the slug (cached), then
// one strongly consistent GetItem of a read copy of the survey's state
// picked at random (surveystate.go), whose state (stopped, trashed, its
// expiration date) is the answer's. While the container's copy of the
// survey's collection is of the version the state copy names, the survey,
// its settings, layout and translations are the container's, and the
// guard's counts (the failed checks of the current window, for the
// survey and for the client: its IP address) are read, eventually
// consistent, in one BatchGetItem beside the state's, only when the
// settings check a code (code_auth, phone_numbers_limited): the guard of
// any other survey is never consulted. Its counts may miss the failures
// of the last second (as requests that arrive together miss each other's
// anyway). A missing slug answers ENOTFOUND.
//
// Otherwise (a container with an older version, a copy not whole, a
// survey with a response limit, whose Settings.Full needs the tally's
// count) the survey item and the guard's counts are read in one
// BatchGetItem, and the settings, layout and translations in a second
// when the container's copy is older than the item: strongly consistent
// when the state copy is whole (the container's copy is known to be
// older), else eventually. A container that has not read the survey yet
// reads the survey item, its settings, layout, translations and the
// guard's counts in one strongly consistent BatchGetItem, and no copy.
func (s *Store) GuardedSurveyBySlug(ctx context.Context, slug, client string) (PublicSurvey, CodeGuard, error) {
	sid, err := s.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return PublicSurvey{}, CodeGuard{}, err
	}
	g := s.guardFor(sid, client)
	guesses := []dynamo.Keyed{dynamo.Keys{GuessesPK(sid), GuessWindowSK(g.start)}, dynamo.Keys{GuessesPK(sid), GuessClientSK(g.start, client)}}
	cached, warm := s.collections.get(sid)
	if !warm {
		// A container's first read of the survey: everything in one
		// strongly consistent BatchGetItem (as exact as a copy of the
		// state), once.
		ps, err := s.guardedItems(ctx, sid, &g, guesses, client, true)
		return ps, g, err
	}
	warm = cached.c.Settings.ResponseLimit == nil
	guarded := warm && (cached.c.Settings.CodeAuth || cached.c.Settings.PhoneNumbersLimited)
	var (
		eg      errgroup.Group
		counted []dynamo.Item
	)
	if guarded {
		eg.Go(func() error {
			var err error
			counted, err = s.batchGet(ctx, guesses, false)
			return err
		})
	}
	st, whole, err := s.readState(ctx, sid, mrand.IntN(SurveyStateCopies))
	if gerr := eg.Wait(); err == nil {
		err = gerr
	}
	if err != nil {
		return PublicSurvey{}, CodeGuard{}, err
	}
	if whole && warm && cached.version == st.CV {
		if err := g.count(counted, client); err != nil {
			return PublicSurvey{}, CodeGuard{}, err
		}
		ps := PublicSurvey{Survey: st.active(cached.c.Survey), Settings: cached.c.Settings, Layout: cached.c.Layout, Translations: cached.c.Translations}
		return ps, g, nil
	}
	ps, err := s.guardedItems(ctx, sid, &g, guesses, client, whole)
	if err != nil {
		return PublicSurvey{}, CodeGuard{}, err
	}
	if whole {
		ps.Survey = st.active(ps.Survey)
	}
	return ps, g, nil
}

// count sets the guard's counts from the guess items read.
func (g *CodeGuard) count(items []dynamo.Item, client string) error {
	for _, item := range items {
		var it guessItem
		if err := dynamo.UnmarshalItem(item, &it); err != nil {
			return fmt.Errorf("store: decode guesses: %w", err)
		}
		switch skOf(item) {
		case GuessWindowSK(g.start):
			g.failures = it.N
		case GuessClientSK(g.start, client):
			g.mine = it.N
		}
	}
	return nil
}

// guardedItems is GuardedSurveyBySlug off the survey item: the survey
// and the guard's counts (into g) in one BatchGetItem, with the settings,
// the layout and the translations when the container has no copy of the
// collection; else those from its copy while the item's collection
// version is not newer than the copy's, and read in a second BatchGetItem
// when it is.
func (s *Store) guardedItems(ctx context.Context, sid int64, g *CodeGuard, guesses []dynamo.Keyed, client string, consistent bool) (PublicSurvey, error) {
	cached, warm := s.collections.get(sid)
	keys := []dynamo.Keyed{dynamo.Keys{SurveyPK(sid), SurveySK}}
	if !warm {
		keys = append(keys, dynamo.Keys{SurveyPK(sid), settingsSK}, dynamo.Keys{SurveyPK(sid), layoutSK}, dynamo.Keys{SurveyPK(sid), translationsSK})
	}
	items, err := s.batchGet(ctx, append(keys, guesses...), consistent)
	if err != nil {
		return PublicSurvey{}, err
	}
	var rest, counted []dynamo.Item
	for _, item := range items {
		switch skOf(item) {
		case GuessWindowSK(g.start), GuessClientSK(g.start, client):
			counted = append(counted, item)
		default:
			rest = append(rest, item)
		}
	}
	if err := g.count(counted, client); err != nil {
		return PublicSurvey{}, err
	}
	if warm {
		current := len(rest) == 0 // no survey item: ENOTFOUND below
		for _, item := range rest {
			current = current || skOf(item) == SurveySK && cached.version >= collectionVersion(item)
		}
		if current {
			ps, err := decodePublic(rest)
			if err != nil {
				return PublicSurvey{}, err
			}
			ps.Settings, ps.Layout, ps.Translations = cached.c.Settings, cached.c.Layout, cached.c.Translations
			return ps, nil
		}
		// The copy is older than the survey: its settings, layout and
		// translations as they are now.
		more, err := s.batchGet(ctx, []dynamo.Keyed{dynamo.Keys{SurveyPK(sid), settingsSK}, dynamo.Keys{SurveyPK(sid), layoutSK},
			dynamo.Keys{SurveyPK(sid), translationsSK}}, consistent)
		if err != nil {
			return PublicSurvey{}, err
		}
		rest = append(rest, more...)
	}
	return decodePublic(rest)
}

// batchGet is one BatchGetItem of keys (a session's start: see
// GuardedSurveyBySlug); missing items are left out.
func (s *Store) batchGet(ctx context.Context, keys []dynamo.Keyed, consistent bool) ([]dynamo.Item, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(consistent).All(ctx, &items)
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
