package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// A change of a cap's limit (contract section 25: "lowering a limit below
// the count closes the survey"; docs/data-model.md#allowances-exact-caps).
//
// Until its limit first changes, a cap's allowances hold the shares
// Cap.share gives its places. Those shares follow the limit, so a limit
// lowered under places already taken would leave them counted in
// allowances whose share shrank while others gained room they never
// used: more responses than the new limit. So a change gives each
// allowance an explicit share, s<counter>, that every submission's
// condition obeys from then on (takePlaces):
//
//  1. A lease on the survey's rebase item, CAP#<sid> / REBASE: one change
//     of the survey's caps at a time.
//  2. Freeze: every allowance's share becomes its count (one UpdateItem
//     each, s = c): from there on an allowance admits a response only in
//     a place a deletion or a withdrawal gave back (they do not wait for
//     the lease), so the count C, their sum, never grows past its value
//     at the freeze.
//  3. The limit itself is written (the caller's write): the owner's
//     change takes effect at the freeze.
//  4. The new shares (shareCap): each allowance at least its count, the
//     sum of the shares the new places P, so the room left is exactly
//     P - C. With C > P the cap is closed: every share closedShare, so no
//     deletion can reopen it by giving back a place; the deletion that
//     brings C under P reopens it (ReopenCaps).
//  5. The lease is released with the places now held recorded.
//
// The sum of the shares never passes P and no allowance's count passes
// its share, whatever submissions and deletions race the change. A change
// cut short (a crash, a timeout) leaves allowances frozen, which refuses
// responses, never admits too many; its mark ("owe") makes the next
// submission that finds the cap full finish it (healCaps).

// RebaseSK is a survey's rebase item in CapFillPK's partition.
const RebaseSK = "REBASE"

// capLeaseFor is how long a change of a cap holds its lease: a change
// takes a second or two; one cut short frees the lease after this.
const capLeaseFor = 30 * time.Second

// Names on the rebase item, per cap counter.
func owedAttr(attr string) string   { return "owe" + attr }
func heldAttr(attr string) string   { return "held" + attr }
func closedAttr(attr string) string { return "closed" + attr }

// reopenAttr marks, on the rebase item, places given back to a cap whose
// reopen gave up (its lease held by others past the request's time): the
// next submission that finds the cap full plans it again (healCaps).
func reopenAttr(attr string) string { return "reopen" + attr }

// planSeqAttr numbers, on the rebase item, the leases taken for attr.
// Every holder plans the cap from the allowances it reads after taking
// its lease, so a deletion that gave a place back before it read the
// number p needs no plan of its own once a lease of attr numbered over p
// is taken: that plan counts its place (capLease's cover).
func planSeqAttr(attr string) string { return "pseq" + attr }

// errCovered answers capLease when a lease of the cap taken since the
// caller's read will plan it (its after): nothing is left to do.
var errCovered = errors.New("store: the cap is planned by a later lease")

// shareAttr is an allowance's explicit share of a cap, once its limit has
// changed.
func shareAttr(attr string) string { return "s" + attr }

// shareIn is allowance k's share of c given its counters: the explicit
// share when the cap has been rebased, else Cap.share.
func (c Cap) shareIn(k int, counters map[string]int64) int64 {
	if n, ok := counters[shareAttr(c.Attr)]; ok {
		return n
	}
	return c.share(k)
}

// LimitAttr is the response limit's counter for generation gen.
func LimitAttr(gen int64) string { return limitAttr(gen) }

// ChangeCap changes a cap's places (a quota's limit, or the response
// limit less its base) to c.Places, exactly, under racing submissions,
// deletions and other changes: write is the change of the limit itself,
// made while every allowance is frozen. When write fails, the allowances
// take the places the survey's items hold after all (capPlacesNow), and
// write's error answers.
func (s *Store) ChangeCap(ctx context.Context, sid int64, c Cap, write func() error) error {
	lease, err := s.capLease(ctx, sid, c.Attr, c.Places, -1)
	if err != nil {
		return err
	}
	defer lease.release()
	if err := s.freezeCap(ctx, sid, c.Attr); err != nil {
		return err
	}
	places := c.Places
	werr := write()
	if werr != nil {
		if places, err = s.capPlacesNow(ctx, sid, c); err != nil {
			return errors.Join(werr, err) // frozen and owed: healCaps finishes it
		}
	}
	if err := s.shareCap(ctx, sid, c.Attr, places, lease); err != nil {
		return errors.Join(werr, err)
	}
	return werr
}

// capLease is a held lease on a survey's rebase item.
type capLease struct {
	s    *Store
	sid  int64
	attr string
	by   string
	// done records the places held, closed or not, at the release.
	done   bool
	held   int64
	closed bool
}

// capLease takes the survey's rebase lease for a change of attr to
// places (recorded as owed until the change is done), waiting while
// another holds it, as an owner's write waits on a race. With after >= 0
// (a reopen: the number of attr's leases it read after its place was
// given back) it takes the lease only while no other lease of attr was
// taken since that read, and answers errCovered, waiting no more, once
// one was: that lease's plan counts the place (a change that started and
// ended since would otherwise be planned over with the places read before
// it).
func (s *Store) capLease(ctx context.Context, sid int64, attr string, owed, after int64) (*capLease, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	l := &capLease{s: s, sid: sid, attr: attr, by: hex.EncodeToString(b[:])}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		now := s.Now()
		take := s.table.Update(AttrPK, CapFillPK(sid)).Range(AttrSK, RebaseSK).
			Set("lease_until", now.Add(capLeaseFor).UnixMilli()).Set("lease_by", l.by).Set(owedAttr(attr), owed).Add(planSeqAttr(attr), 1).
			If("attribute_not_exists(lease_until) OR lease_until < ?", now.UnixMilli())
		if after == 0 {
			take.If("attribute_not_exists($) OR $ = ?", planSeqAttr(attr), planSeqAttr(attr), 0)
		} else if after > 0 {
			take.If("$ = ?", planSeqAttr(attr), after)
		}
		var cur dynamo.Item
		wrote, err := take.CurrentValue(ctx, &cur)
		var tce *types.TransactionConflictException
		switch {
		case wrote:
			return l, nil
		case err != nil && !dynamo.IsCondCheckFailed(err) && !errors.As(err, &tce):
			return nil, s.fail(fmt.Sprintf("take the caps' lease of survey %d", sid), err)
		case after >= 0 && s.leaseTakenSince(ctx, sid, attr, after, cur):
			return nil, errCovered
		case !ownerAgain(ctx, attempt, started):
			return nil, errBusy
		}
	}
}

// leaseTakenSince reports whether a lease of attr numbered over after has
// been taken, by the rebase item cur as a refused take returned it, or
// read (a read that fails: not known, no).
func (s *Store) leaseTakenSince(ctx context.Context, sid int64, attr string, after int64, cur dynamo.Item) bool {
	held := counters(cur)
	if cur == nil {
		var err error
		if held, _, err = s.capsRebase(ctx, sid); err != nil {
			return false
		}
	}
	return held[planSeqAttr(attr)] > after
}

// release ends the lease: the places now held recorded, the owed change
// cleared when it is done. A release that fails leaves the lease to
// expire.
func (l *capLease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u := l.s.table.Update(AttrPK, CapFillPK(l.sid)).Range(AttrSK, RebaseSK).Remove("lease_until", "lease_by")
	if l.done {
		u.Remove(owedAttr(l.attr)).Set(heldAttr(l.attr), l.held).Set(closedAttr(l.attr), l.closed)
	}
	if err := u.If("lease_by = ?", l.by).Run(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
		slog.Warn("caps' lease not released", "survey", l.sid, "error", err.Error())
	}
}

// capWriters bounds the UpdateItems of a change in flight at once.
const capWriters = 16

// freezeCap makes every allowance's share of attr its count (256
// UpdateItems, capWriters at a time): no allowance admits a response
// after its own.
func (s *Store) freezeCap(ctx context.Context, sid int64, attr string) error {
	return s.eachAllowance(ctx, sid, func(ctx context.Context, k int) error {
		return s.table.Update(AttrPK, CapPK(sid, k)).Range(AttrSK, capSK).
			SetExpr("$ = if_not_exists($, ?)", shareAttr(attr), attr, 0).
			SetExpr("$ = if_not_exists($, ?)", attr, attr, 0).Run(ctx)
	})
}

// eachAllowance runs write for every allowance, capWriters at a time,
// trying again a write refused by a transaction holding its item.
func (s *Store) eachAllowance(ctx context.Context, sid int64, write func(ctx context.Context, k int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(capWriters)
	for k := range CapAllowances {
		g.Go(func() error {
			// Each write tries for as long as an owner's write does (a
			// change of 256 writes on a loaded machine took longer than
			// one write's budget).
			started := time.Now()
			for attempt := 1; ; attempt++ {
				err := write(gctx, k)
				if err == nil || dynamo.IsCondCheckFailed(err) {
					return err
				}
				var tce *types.TransactionConflictException
				switch {
				case !errors.As(err, &tce):
					return s.fail(fmt.Sprintf("write allowance %d of survey %d", k, sid), err)
				case !ownerAgain(gctx, attempt, started):
					return errBusy // held by submissions all along: try the change again
				}
			}
		})
	}
	return g.Wait()
}

// shareCap gives the frozen allowances of attr their new shares for
// places (step 4 above) and records them on the lease. Places given back
// meanwhile (a deletion, a withdrawal: they do not wait for the lease)
// only lower counts, and a place taken meanwhile is one a share gave; so
// the shares are written lowered first, each on the condition that its
// count is not over it, and a failed condition plans them again from a
// new read: the sum of the shares never passes places, and none is under
// its count.
func (s *Store) shareCap(ctx context.Context, sid int64, attr string, places int64, l *capLease) error {
	for range capPlans {
		used, err := s.allowances(ctx, sid)
		if err != nil {
			return err
		}
		shares, closed := planShares(Cap{Attr: attr, Places: places}, used)
		done := true
		for _, lower := range []bool{true, false} {
			err = s.eachAllowance(ctx, sid, func(ctx context.Context, k int) error {
				cur, ok := used[k][shareAttr(attr)]
				if ok && cur == shares[k] || ok && lower != (shares[k] < cur) {
					return nil
				}
				// Only this lease's holder writes shares (sA as read): a
				// change that outlived its lease cannot undo a later one's.
				u := s.table.Update(AttrPK, CapPK(sid, k)).Range(AttrSK, capSK).Set(shareAttr(attr), shares[k]).
					If("$ = ?", shareAttr(attr), cur)
				if !closed {
					u.If("$ <= ?", attr, shares[k])
				}
				return u.Run(ctx)
			})
			if dynamo.IsCondCheckFailed(err) {
				done = false
				break
			}
			if err != nil {
				return err
			}
		}
		if done && closed {
			// Places given back since the read (deletions do not wait
			// for the lease, and one whose reopen read no change done
			// yet leaves it to this one) may have brought the count
			// under the places: plan again from a new read.
			if s.afterCapPlan != nil {
				s.afterCapPlan()
			}
			var count int64
			if used, err = s.allowances(ctx, sid); err != nil {
				return err
			}
			for _, u := range used {
				count += u[attr]
			}
			done = count > places
		}
		if done {
			s.caps.forget(sid)
			l.done, l.held, l.closed = true, places, closed
			return nil
		}
	}
	return errBusy
}

// capPlans bounds how often a change plans its shares again: a place taken
// between its read and its write of a share is rare (its room comes only
// from places given back meanwhile).
const capPlans = 8

// closedShare is every allowance's share of a closed cap: under any
// count, even one a deletion of a response from before the limit took
// below 0 (freedPlaces), so that no deletion reopens it by itself.
const closedShare = -1 << 40

// planShares is each allowance's new share of c's places, given every
// allowance's counters (frozen: no place given back or taken meanwhile):
// at least its count, as close to Cap.share as the sum allows, the sum
// c.Places, so that the room left is exactly c.Places less the count; or,
// when the count is over the places, closedShare everywhere (closed).
func planShares(c Cap, used [CapAllowances]map[string]int64) (shares [CapAllowances]int64, closed bool) {
	var count, sum int64
	for k := range CapAllowances {
		n := used[k][c.Attr]
		count += n
		shares[k] = max(n, c.share(k))
		sum += shares[k]
	}
	if count > c.Places {
		for k := range shares {
			shares[k] = closedShare
		}
		return shares, true
	}
	// Take the excess from the allowances with room, from the highest
	// k down.
	for k := CapAllowances - 1; k >= 0 && sum > c.Places; k-- {
		cut := min(shares[k]-used[k][c.Attr], sum-c.Places)
		shares[k] -= cut
		sum -= cut
	}
	// A cap of no places (a limit at or under its base: Cap.share has
	// none) whose count deletions took under them: the room left, spread.
	for k := 0; sum < c.Places; k = (k + 1) % CapAllowances {
		shares[k]++
		sum++
	}
	return shares, false
}

// capsRebase reads the survey's rebase item's numbers (strongly
// consistent), empty when there is none.
func (s *Store) capsRebase(ctx context.Context, sid int64) (map[string]int64, dynamo.Item, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, CapFillPK(sid)).Range(AttrSK, dynamo.Equal, RebaseSK).Consistent(true).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return map[string]int64{}, nil, nil
	}
	if err != nil {
		return nil, nil, s.fail(fmt.Sprintf("read the caps' rebase of survey %d", sid), err)
	}
	return counters(item), item, nil
}

// closedCaps are the counters the rebase item marks closed.
func closedCaps(item dynamo.Item) []string {
	var out []string
	for name, v := range item {
		if b, ok := v.(*types.AttributeValueMemberBOOL); ok && b.Value && strings.HasPrefix(name, "closed") {
			out = append(out, strings.TrimPrefix(name, "closed"))
		}
	}
	return out
}

// ReopenCaps runs after a deletion gave places back to caps that a change
// closed (their shares 0, their count over the places): a cap whose count
// is now under the places it holds gets its room back (step 4 of a
// change, under the lease). attrs are the counters the deletion gave
// places back to.
//
// A response limit set at or under its base and never changed has no
// shares (Cap.share): the first deletion that gives its place back gives
// its allowances theirs, as a change would (closed while the responses
// are still over the limit).
func (s *Store) ReopenCaps(ctx context.Context, sid int64, attrs []string) error {
	_, item, err := s.capsRebase(ctx, sid)
	if err != nil {
		return err
	}
	held, closed := counters(item), closedCaps(item)
	for _, attr := range attrs {
		after := held[planSeqAttr(attr)] // leases of attr taken before this read
		places, rebased := held[heldAttr(attr)]
		reopen := rebased && slices.Contains(closed, attr)
		if _, changing := held[owedAttr(attr)]; changing && !reopen {
			// A change of the cap in flight (its lease's mark) may have
			// planned before this place was given back, closed, and
			// records that only at its release: once it is done, the
			// places the survey's items hold, planned again.
			if err := s.replanCap(ctx, sid, attr, after); err != nil {
				return err
			}
			continue
		}
		if !rebased && strings.HasPrefix(attr, "l") {
			if places, reopen, err = s.limitWithoutPlaces(ctx, sid, attr); err != nil {
				return err
			}
		}
		if !reopen {
			continue
		}
		if s.beforeReopenLease != nil {
			s.beforeReopenLease()
		}
		// A cap never changed has no shares to plan from: frozen first
		// (each share its count), as a change is.
		if err := s.rebaseCap(ctx, sid, attr, places, !rebased, after); err != nil {
			return err
		}
	}
	return nil
}

// limitWithoutPlaces reports whether attr is the counter of the survey's
// response limit with no places (at or under its base), and its places
// (the limit less its base). A limit still pending has its base counted
// (the deletion waited for it): its writer may have been cut short, and
// the settings item then stays pending until the owner's next write of
// the limit, while submissions take its places from the counted base.
func (s *Store) limitWithoutPlaces(ctx context.Context, sid int64, attr string) (int64, bool, error) {
	it, err := s.limitNow(ctx, sid)
	if err != nil || it.Limit == nil || limitAttr(it.Gen) != attr {
		return 0, false, err
	}
	places := *it.Limit - it.Base
	return places, places <= 0, nil
}

// rebaseCap gives a cap's allowances their shares of places under the
// lease: freezing them first when freeze (a change cut short). after is
// capLease's: a reopen is done by a later lease of the cap.
func (s *Store) rebaseCap(ctx context.Context, sid int64, attr string, places int64, freeze bool, after int64) error {
	lease, err := s.capLease(ctx, sid, attr, places, after)
	if errors.Is(err, errCovered) {
		return nil
	}
	if err != nil {
		return err
	}
	defer lease.release()
	if freeze {
		if err := s.freezeCap(ctx, sid, attr); err != nil {
			return err
		}
	}
	return s.shareCap(ctx, sid, attr, places, lease)
}

// replanCap gives a cap's allowances their shares of the places the
// survey's items hold, read under the lease (a change in flight has
// written its limit by its release), frozen first: a first change cut
// short may have left shares unwritten, which a plan cannot condition on.
// The freeze is 256 writes, paid only by a deletion that meets a change
// in flight.
func (s *Store) replanCap(ctx context.Context, sid int64, attr string, after int64) error {
	lease, err := s.capLease(ctx, sid, attr, 0, after)
	if errors.Is(err, errCovered) {
		return nil
	}
	if err != nil {
		return err
	}
	defer lease.release()
	places, err := s.capPlacesNow(ctx, sid, capOfAttr(attr))
	if err != nil {
		return err
	}
	if err := s.freezeCap(ctx, sid, attr); err != nil {
		return err
	}
	return s.shareCap(ctx, sid, attr, places, lease)
}

// healCaps finishes a change of caps cut short (its owed mark left, its
// lease expired), for the caps a submission found full: their places as
// the survey's items hold them now. It reports whether it did.
func (s *Store) healCaps(ctx context.Context, sid int64, rebase map[string]int64, caps []Cap) (bool, error) {
	healed := false
	for _, c := range caps {
		_, owed := rebase[owedAttr(c.Attr)]
		reopen, marked := rebase[reopenAttr(c.Attr)]
		if !owed && !marked {
			continue
		}
		if until, held := rebase["lease_until"]; held && until >= s.Now().UnixMilli() {
			continue
		}
		places, err := s.capPlacesNow(ctx, sid, c)
		if err != nil {
			return healed, err
		}
		if err := s.rebaseCap(ctx, sid, c.Attr, places, true, -1); err != nil {
			return healed, err
		}
		healed = true
		if marked {
			// Planned from the places as they are now: the mark read is
			// answered (a later one stays for the next).
			err := s.table.Update(AttrPK, CapFillPK(sid)).Range(AttrSK, RebaseSK).Remove(reopenAttr(c.Attr)).
				If("$ = ?", reopenAttr(c.Attr), reopen).Run(ctx)
			if err != nil && !dynamo.IsCondCheckFailed(err) {
				return healed, s.fail(fmt.Sprintf("clear the reopen of survey %d", sid), err)
			}
		}
	}
	return healed, nil
}

// limitItem is the settings item's response limit.
type limitItem struct {
	Limit *int64 `dynamo:"response_limit"`
	Gen   int64  `dynamo:"response_limit_gen"`
	Base  int64  `dynamo:"response_limit_base"`
	// Pending: Base is being counted (limitbase.go).
	Pending bool `dynamo:"response_limit_pending"`
}

// readLimit reads the survey's response limit, strongly consistent (none
// when the survey has no settings item).
func (s *Store) readLimit(ctx context.Context, sid int64) (limitItem, error) {
	var it limitItem
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, settingsSK).Consistent(true).One(ctx, &it)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return it, s.fail(fmt.Sprintf("read settings of survey %d", sid), err)
	}
	return it, nil
}

// capPlacesNow is a cap's places as the survey's items hold them now (one
// strongly consistent read of its settings or its quota).
func (s *Store) capPlacesNow(ctx context.Context, sid int64, c Cap) (int64, error) {
	if c.Quota != 0 {
		var q quotaItem
		err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, QuotaSK(c.Quota)).Consistent(true).One(ctx, &q)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			return 0, nil
		case err != nil:
			return 0, s.fail(fmt.Sprintf("read quota %d", c.Quota), err)
		}
		return q.Limit, nil
	}
	it, err := s.limitNow(ctx, sid)
	if err != nil || it.Limit == nil || limitAttr(it.Gen) != c.Attr {
		return 0, err
	}
	return survey.Settings{ResponseLimit: it.Limit, ResponseLimitBase: it.Base}.LimitPlaces(), nil
}

// limitNow is readLimit with the base of a limit still pending counted
// (limitBaseOf; its writer may have been cut short, and the settings item
// then stays pending until the owner's next write of the limit, while
// submissions take its places from the counted base).
func (s *Store) limitNow(ctx context.Context, sid int64) (limitItem, error) {
	it, err := s.readLimit(ctx, sid)
	if err != nil || it.Limit == nil || !it.Pending {
		return it, err
	}
	b, err := s.limitBaseOf(ctx, sid, it.Gen)
	if err != nil {
		return it, err
	}
	it.Base = b.Base
	return it, nil
}

// reopenAfter runs ReopenCaps for the counters of places a deletion gave
// back. One that fails (deletions at once take turns on the caps' lease,
// each planning the caps anew, and the last ones run out of time) marks
// the caps on the rebase item, so that the next submission that finds
// one full plans it from the places as they are then (healCaps): the
// place is never lost, and until then the caps stay closed (never too
// many responses). A withdrawal does not reopen: its survey has just
// closed.
func (s *Store) reopenAfter(ctx context.Context, sid int64, places map[string]int) {
	attrs := make([]string, 0, len(places))
	for attr := range places {
		attrs = append(attrs, attr)
	}
	err := s.ReopenCaps(ctx, sid, attrs)
	if err == nil {
		return
	}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	u := s.table.Update(AttrPK, CapFillPK(sid)).Range(AttrSK, RebaseSK)
	for _, attr := range attrs {
		u.Add(reopenAttr(attr), 1)
	}
	if merr := u.Run(mctx); merr != nil {
		slog.WarnContext(ctx, "caps not reopened after a place was given back, nor marked", "survey", sid, "error", errors.Join(err, merr).Error())
		return
	}
	slog.InfoContext(ctx, "caps marked for their next full submission to reopen", "survey", sid, "error", err.Error())
}
