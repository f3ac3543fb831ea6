package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const breakersSK = "BREAKERS"

func breakerNames(wid int64) (failures, open, probe string) {
	w := strconv.FormatInt(wid, 10)
	return "f_" + w, "o_" + w, "p_" + w
}

// decodeBreakers reads the breakers item, by webhook id.
func decodeBreakers(item dynamo.Item) map[int64]survey.Breaker {
	out := map[int64]survey.Breaker{}
	for name, v := range item {
		kind, w, ok := strings.Cut(name, "_")
		wid, err := strconv.ParseInt(w, 10, 64)
		if !ok || err != nil || len(kind) != 1 {
			continue
		}
		var n int64
		if err := dynamo.Unmarshal(v, &n); err != nil {
			continue
		}
		b := out[wid]
		switch kind {
		case "f":
			b.Failures = int(n)
		case "o":
			b.OpenUntil = time.UnixMilli(n).UTC()
		case "p":
			b.ProbeUntil = time.UnixMilli(n).UTC()
		case "s":
			b.SlowUntil = time.UnixMilli(n).UTC()
		case "r":
			b.Resume = n > 0
		}
		out[wid] = b
	}
	return out
}

// BreakerFailed counts a failed attempt of webhook wid of survey sid,
// begun at now, and, when pauseFor (given the consecutive failures)
// answers a pause, opens the breaker until now plus that pause. Answers
// the breaker as it now stands. One UpdateItem; a second, conditional on
// the count, to open it. An attempt begun before the owner last reset the
// breaker (ResetBreaker) is not counted: it was made to the webhook as it
// was before the owner's change, and answers a zero Breaker.
//
// Circuit breakers of a survey's webhooks: one item, HOOKS#<sid> /
// BREAKERS, beside the webhooks item, with attributes a webhook
// (f_<wid>: consecutive failures, o_<wid>: open until, p_<wid>: a probe
// under way until, s_<wid>: slow until, c_<wid>: when the owner last reset
// it; times in Unix ms). Top-level attributes, so that ADD and REMOVE work
// on an item or attribute that is not there yet. Read in the same
// BatchGetItem as the webhooks (the owner's reads, a batch of attempts);
// written only when an attempt fails, or succeeds after failures.
func (s *Store) BreakerFailed(ctx context.Context, sid, wid int64, now time.Time, pauseFor func(failures int) time.Duration) (survey.Breaker, error) {
	f, o, p := breakerNames(wid)
	c := resetName(wid)
	var item dynamo.Item
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).If("attribute_not_exists($) OR $ <= ?", c, c, now.UnixMilli()).
		Add(f, 1).Value(ctx, &item)
	if dynamo.IsCondCheckFailed(err) {
		return survey.Breaker{}, nil
	}
	if err != nil {
		return survey.Breaker{}, s.fail(fmt.Sprintf("count a failure of webhook %d", wid), err)
	}
	b := decodeBreakers(item)[wid]
	pause := pauseFor(b.Failures)
	if pause <= 0 {
		return b, nil
	}
	until := now.Add(pause)
	err = s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).If("$ = ?", f, b.Failures).
		Set(o, until.UnixMilli()).Remove(p).Run(ctx)
	switch {
	case dynamo.IsCondCheckFailed(err):
		return b, nil // another failure counted since: it opened it
	case err != nil:
		return b, s.fail(fmt.Sprintf("open the breaker of webhook %d", wid), err)
	}
	b.OpenUntil, b.ProbeUntil = until.UTC(), time.Time{}
	return b, nil
}

// TakeProbe lets one attempt through a breaker whose pause is over: true
// for the one that takes it (until until), false while the pause lasts or
// another probe is under way.
func (s *Store) TakeProbe(ctx context.Context, sid, wid int64, now, until time.Time) (bool, error) {
	_, o, p := breakerNames(wid)
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).
		If("$ <= ? AND (attribute_not_exists($) OR $ < ?)", o, now.UnixMilli(), p, p, now.UnixMilli()).
		Set(p, until.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("probe webhook %d", wid), err)
	}
	return true, nil
}

// MarkSlow records that an attempt to webhook wid outlasted the main
// lane's budget: its attempts are the slow lane's until until.
func (s *Store) MarkSlow(ctx context.Context, sid, wid int64, until time.Time) error {
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).Set("s_"+strconv.FormatInt(wid, 10), until.UnixMilli()).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("mark webhook %d slow", wid), err)
	}
	return nil
}

// CloseBreaker forgets a webhook's failures and pause after a success (the
// owner's change is ResetBreaker).
func (s *Store) CloseBreaker(ctx context.Context, sid, wid int64) error {
	f, o, p := breakerNames(wid)
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).If("attribute_exists(PK)").
		Remove(f, o, p, "s_"+strconv.FormatInt(wid, 10), "r_"+strconv.FormatInt(wid, 10)).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("close the breaker of webhook %d", wid), err)
	}
	return nil
}

// resetName is the attribute of when the owner last reset webhook wid's
// breaker.
func resetName(wid int64) string { return "c_" + strconv.FormatInt(wid, 10) }

// ResetBreaker forgets a webhook's failures and pause because its owner
// changed it (PATCH) at at: as CloseBreaker, and the attempts begun before
// at that fail after it are not counted against the reset breaker
// (BreakerFailed), so that the owner's read right after the change is not
// undone by a request that was in flight.
func (s *Store) ResetBreaker(ctx context.Context, sid, wid int64, at time.Time) error {
	f, o, p := breakerNames(wid)
	w := strconv.FormatInt(wid, 10)
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).Set(resetName(wid), at.UnixMilli()).
		Remove(f, o, p, "s_"+w, "r_"+w).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("reset the breaker of webhook %d", wid), err)
	}
	return nil
}

// MarkResume records that webhook wid's breaker closed with paused
// deliveries left to resume: its next success resumes them (the deliver
// function), as a probe's success does.
func (s *Store) MarkResume(ctx context.Context, sid, wid int64) error {
	err := s.table.Update(AttrPK, HooksPK(sid)).Range(AttrSK, breakersSK).Set("r_"+strconv.FormatInt(wid, 10), 1).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("mark webhook %d to resume", wid), err)
	}
	return nil
}
