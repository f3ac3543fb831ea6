package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
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
//     then lets the response stand (it is in the base) only when the count
//     read it: for a response stamped in the limitSeenFor before t0, when
//     its id is among those the count wrote down; for an older one, when
//     its transaction returned limitIndexLag before the count began. Any
//     other is withdrawn and submitted again, taking a place (or 410 when
//     none is left).
//  3. At t0 + limitSettleLag + limitIndexLag the responses stamped before
//     t0 are counted exactly: those before t0 - limitSeenFor by number
//     (CountResponses), those after by their keys, whose ids are kept
//     (limitSeen items, CAP#<sid>#base / L<gen>#S#<counted>#<first id>).
//     The base is kept on its own item, CAP#<sid>#base / L<gen>, put once
//     (the first count wins); then the settings item takes it and loses
//     its pending mark.
//
// Why the ids: a transaction returns when its caller reads the answer,
// which under load is seconds after DynamoDB committed it. Inferring from
// that return whether the count read a response withdrew responses the
// count had read (the limit filled early: 29 recorded for a limit of 30
// in a loaded make test). The responses whose transactions may still be in
// flight at t0 are the ones stamped just before it; for them the count's
// own reads decide, whatever the timing. An older one stands on its
// return time as before: only a transaction that took more than
// limitSeenFor may be withdrawn after the count read it (one place too
// few, never one too many).
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
	// limitSeenFor is how long before t0 the count keeps the ids of the
	// responses it reads (at 1,000 responses a second, 10,000 ids, 80 KB):
	// as long as a submission's Lambda may run (10 s), so a transaction
	// still in flight when the count begins (limitSettleLag +
	// limitIndexLag after t0) was stamped at most 8 s before t0, in it.
	limitSeenFor = 10 * time.Second
	// limitSeenChunk is the most ids one limitSeen item holds (8 bytes
	// each, under DynamoDB's 400 KB an item).
	limitSeenChunk = 40000
	// limitSeenTTL is how long limitSeen items are kept: the fences they
	// serve are those of transactions in flight when the limit was set.
	limitSeenTTL = 24 * time.Hour
)

// limitBasePK is the partition of a survey's response limits' bases.
func limitBasePK(sid int64) string { return "CAP#" + strconv.FormatInt(sid, 10) + "#base" }

// limitBaseSK is the base of limit generation gen.
func limitBaseSK(gen int64) string { return "L" + strconv.FormatInt(gen, 10) }

// limitBase is a response limit's base: Base responses, those stamped
// before T0 (UnixNano), counted from Counted (UnixNano) on. The ids of
// those stamped from SeenFrom (UnixNano; 0 for a base counted before the
// evening of 30 November 2026, which kept none) are on its limitSeen
// items.
type limitBase struct {
	Base     int64 `dynamo:"base"`
	T0       int64 `dynamo:"t0"`
	Counted  int64 `dynamo:"counted"`
	SeenFrom int64 `dynamo:"seen_from,omitempty"`
}

// place is where a response without a place of the limit, stamped at
// stamp, whose transaction returned at done, is: one of the base
// (inBase), not (notInBase), or one of the base exactly when the count
// kept its id (seenDecides). The count reads responses stamped before T0;
// of those before SeenFrom, it sees a response committed limitIndexLag
// before it began.
func (b limitBase) place(stamp, done time.Time) basePlace {
	switch at := stamp.UnixNano(); {
	case at >= b.T0:
		return notInBase
	case b.SeenFrom != 0 && at >= b.SeenFrom:
		return seenDecides
	case done.Add(limitIndexLag).UnixNano() < b.Counted:
		return inBase
	}
	return notInBase
}

// basePlace is limitBase.place's answer.
type basePlace int

const (
	notInBase basePlace = iota
	inBase
	seenDecides
)

// stands reports whether response id, stamped at stamp, whose transaction
// returned at done, without a place of limit gen, is one of its base b.
func (s *Store) stands(ctx context.Context, sid, gen int64, b limitBase, id int64, stamp, done time.Time) (bool, error) {
	switch b.place(stamp, done) {
	case inBase:
		return true, nil
	case seenDecides:
		return s.limitSeen(ctx, sid, gen, b, id)
	}
	return false, nil
}

// limitSeenSK is the limitSeen item of the count that began at counted
// (UnixNano) whose first id is first; "" first is the prefix of them all.
func limitSeenSK(gen, counted int64, first string) string {
	return limitBaseSK(gen) + "#S#" + strconv.FormatInt(counted, 10) + "#" + first
}

// limitSeenID is an id as limitSeen items' keys sort it.
func limitSeenID(id int64) string { return fmt.Sprintf("%019d", id) }

// limitSeenItem holds up to limitSeenChunk ids the count of a base read,
// ascending, 8 bytes each, big-endian.
type limitSeenItem struct {
	IDs []byte `dynamo:"ids"`
}

// limitSeen reports whether the count of base b kept id: one strongly
// consistent Query of the one limitSeen item whose ids may hold it.
func (s *Store) limitSeen(ctx context.Context, sid, gen int64, b limitBase, id int64) (bool, error) {
	var items []limitSeenItem
	err := s.table.Get(AttrPK, limitBasePK(sid)).
		Range(AttrSK, dynamo.Between, limitSeenSK(gen, b.Counted, ""), limitSeenSK(gen, b.Counted, limitSeenID(id))).
		Order(dynamo.Descending).Limit(1).Consistent(true).All(ctx, &items)
	if err != nil {
		return false, s.fail(fmt.Sprintf("read the responses the base of survey %d's response limit counted", sid), err)
	}
	if len(items) == 0 {
		return false, nil
	}
	ids := items[0].IDs
	n := len(ids) / 8
	i := sort.Search(n, func(i int) bool { return int64(binary.BigEndian.Uint64(ids[8*i:])) >= id })
	return i < n && int64(binary.BigEndian.Uint64(ids[8*i:])) == id, nil
}

// countSeen counts the responses stamped in [from, t0) by their keys and
// keeps their ids on limitSeen items of the count that began at counted.
func (s *Store) countSeen(ctx context.Context, sid, gen int64, from, t0 time.Time, counted int64) (int64, error) {
	q := ResponseQuery{After: from.Add(-time.Microsecond), Before: t0, Ascending: true}
	var ids []int64
	err := s.eachResponseKey(ctx, sid, q, func(keys []responseItem) {
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
	})
	if err != nil {
		return 0, err
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	size := limitSeenChunk
	if s.seenChunk > 0 {
		size = s.seenChunk
	}
	for chunk := range slices.Chunk(ids, size) {
		buf := make([]byte, 0, 8*len(chunk))
		for _, id := range chunk {
			buf = binary.BigEndian.AppendUint64(buf, uint64(id))
		}
		// UpdateItem, as the base's own write: the functions that count a
		// base may update CAP# items, not all may put them.
		err := s.table.Update(AttrPK, limitBasePK(sid)).Range(AttrSK, limitSeenSK(gen, counted, limitSeenID(chunk[0]))).
			Set("ids", buf).Set(AttrTTL, s.Now().Add(limitSeenTTL).Unix()).Run(ctx)
		if err != nil {
			return 0, s.fail(fmt.Sprintf("keep the responses the base of survey %d's response limit counted", sid), err)
		}
	}
	return int64(len(ids)), nil
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
	from := t0.Add(-limitSeenFor)
	n, err := s.CountResponses(ctx, sid, ResponseQuery{Before: from})
	if err != nil {
		return limitBase{}, err
	}
	b := limitBase{T0: t0.UnixNano(), Counted: counted.UnixNano(), SeenFrom: from.UnixNano()}
	seen, err := s.countSeen(ctx, sid, gen, from, t0, b.Counted)
	if err != nil {
		return limitBase{}, err
	}
	b.Base = n + seen
	err = s.table.Update(AttrPK, limitBasePK(sid)).Range(AttrSK, limitBaseSK(gen)).
		Set("base", b.Base).Set("t0", b.T0).Set("counted", b.Counted).Set("seen_from", b.SeenFrom).
		If("attribute_not_exists($)", "base").Run(ctx)
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
