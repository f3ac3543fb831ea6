package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/guregu/dynamo/v2"
)

// A response limit set where there was none, exact while submissions race
// it (contract section 25: "never one response more than the limit, under
// any race"; docs/scale.md, "A limit set while responses arrive").
//
// The limit's places are the limit less its base: the responses recorded
// without a place of it. Which responses those are cannot be known at the
// instant the limit is written: a submission that read the survey before
// it takes no place, and may commit after. So the limit is set in three
// steps:
//
//  1. UpdateSettings writes the limit pending (response_limit_pending),
//     with its generation on the survey item and on every copy of the
//     survey's state (lg), in one transaction; t0 is the time after it.
//  2. A submission that reads the limit pending waits for its base
//     (limitBaseOf) and is stamped after it: it takes a place. The fence
//     of a submission that took no place (it read the survey before step
//     1) reads lg on its copy of the state, waits for the base too, and
//     then lets the response stand (it is in the base) only when it was
//     stamped before t0 and its transaction returned limitIndexLag before
//     the count began (so the count saw it); any other is withdrawn and
//     submitted again, taking a place (or 410 when none is left).
//  3. At t0 + limitSettleLag + limitIndexLag the responses stamped before
//     t0 are counted exactly (CountResponses) and the base is kept on its
//     own item, CAP#<sid>#base / L<gen>, put once (the first count wins);
//     then the settings item takes it and loses its pending mark.
//
// A writer that fails between steps 1 and 3 leaves the limit pending: the
// first request that needs its base limitHealAfter later counts it
// itself, from its own t0 (any time after step 1 is a valid t0: every
// response stamped after it waits or is submitted again).
//
// What it costs: nothing on a survey whose limit is settled (lg matches
// the submission's place), one strongly consistent GetItem of the base
// item for a submission or fence that meets a pending limit; the owner's
// PATCH waits limitSettleLag + limitIndexLag (2 s) and one count.

const (
	// limitSettleLag bounds how long a submission's transaction may take
	// (from its stamp to its return) and still stand without a place of a
	// limit set meanwhile; a slower one takes a place.
	limitSettleLag = time.Second
	// limitIndexLag bounds how long a committed response takes to show in
	// GSI1 (RTIME#), which CountResponses reads for the newest responses:
	// on AWS a fraction of a second, on DynamoDB Local none.
	limitIndexLag = time.Second
	// limitHealAfter is how long after a limit was written pending a
	// request that needs its base counts it itself (its writer failed).
	limitHealAfter = 10 * time.Second
	// limitWaitFor bounds a request's wait for a base being counted when
	// its context has no deadline.
	limitWaitFor = limitHealAfter + 10*time.Second
)

// limitBasePK is the partition of a survey's response limits' bases.
func limitBasePK(sid int64) string { return "CAP#" + strconv.FormatInt(sid, 10) + "#base" }

// limitBaseSK is the base of limit generation gen.
func limitBaseSK(gen int64) string { return "L" + strconv.FormatInt(gen, 10) }

// limitBase is a response limit's base: Base responses, those stamped
// before T0 (UnixNano), counted from Counted (UnixNano) on.
type limitBase struct {
	Base    int64 `dynamo:"base"`
	T0      int64 `dynamo:"t0"`
	Counted int64 `dynamo:"counted"`
}

// stands reports whether a response without a place of the limit, stamped
// at stamp, whose transaction returned at done, is one of the base: the
// count reads responses stamped before T0, and sees a response committed
// limitIndexLag before it began.
func (b limitBase) stands(stamp, done time.Time) bool {
	return stamp.UnixNano() < b.T0 && done.Add(limitIndexLag).UnixNano() < b.Counted
}

// readLimitBase reads the base of limit gen, strongly consistent.
func (s *Store) readLimitBase(ctx context.Context, sid, gen int64) (limitBase, bool, error) {
	var b limitBase
	err := s.table.Get(AttrPK, limitBasePK(sid)).Range(AttrSK, dynamo.Equal, limitBaseSK(gen)).Consistent(true).One(ctx, &b)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return limitBase{}, false, nil
	case err != nil:
		return limitBase{}, false, s.fail(fmt.Sprintf("read the base of survey %d's response limit", sid), err)
	}
	return b, true, nil
}

// settleLimit is step 3: at t0 + limitSettleLag + limitIndexLag it counts
// the responses stamped before t0 and puts the base of limit gen, unless
// another count put it first; the base kept is returned.
func (s *Store) settleLimit(ctx context.Context, sid, gen int64, t0 time.Time) (limitBase, error) {
	t0 = t0.Truncate(time.Microsecond)
	if err := sleepCtx(ctx, t0.Add(limitSettleLag+limitIndexLag).Sub(s.Now())); err != nil {
		return limitBase{}, errBusy
	}
	counted := s.Now()
	n, err := s.CountResponses(ctx, sid, ResponseQuery{Before: t0})
	if err != nil {
		return limitBase{}, err
	}
	b := limitBase{Base: n, T0: t0.UnixNano(), Counted: counted.UnixNano()}
	err = s.table.Update(AttrPK, limitBasePK(sid)).Range(AttrSK, limitBaseSK(gen)).
		Set("base", b.Base).Set("t0", b.T0).Set("counted", b.Counted).If("attribute_not_exists($)", "base").Run(ctx)
	switch {
	case err == nil:
		return b, nil
	case dynamo.IsCondCheckFailed(err):
		won, found, rerr := s.readLimitBase(ctx, sid, gen)
		if rerr == nil && !found {
			rerr = errBusy
		}
		return won, rerr
	}
	return limitBase{}, s.fail(fmt.Sprintf("keep the base of survey %d's response limit", sid), err)
}

// limitBaseOf is the base of limit gen, waiting while it is counted (step
// 2), and counting it when it is overdue (its writer failed).
func (s *Store) limitBaseOf(ctx context.Context, sid, gen int64) (limitBase, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limitWaitFor)
		defer cancel()
	}
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		b, found, err := s.readLimitBase(ctx, sid, gen)
		if err != nil || found {
			return b, err
		}
		if s.Now().After(time.Unix(0, gen).Add(limitHealAfter)) {
			v, err, _ := s.limitHeals.Do(limitBaseSK(gen)+"#"+strconv.FormatInt(sid, 10), func() (any, error) {
				return s.settleLimit(context.WithoutCancel(ctx), sid, gen, s.Now())
			})
			if err != nil {
				return limitBase{}, err
			}
			return v.(limitBase), nil
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return limitBase{}, errBusy
		}
	}
}

// finishLimit ends step 3: the settings item takes the base of limit gen
// and loses its pending mark, the survey's collection version moving
// (every container reads the settled limit), unless the limit has
// changed since (another writer finished it, or the owner removed it).
func (s *Store) finishLimit(ctx context.Context, sid, gen int64, b limitBase) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx().
			Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, settingsSK).
				Set("response_limit_base", b.Base).Remove("response_limit_pending").
				If("response_limit_gen = ? AND response_limit_pending = ?", gen, true)).
			Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If("attribute_exists(PK)"))
		err := s.runTx(ctx, s.mirrorState(tx, sid, addCV))
		switch {
		case err == nil, txFailedAt(err, 0), txFailedAt(err, 1):
			return nil
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("settle survey %d's response limit", sid), err)
	}
}

// sleepCtx waits d, or less when ctx ends first (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
