package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// DueShards is the partitions of the due index.
const DueShards = 16

// DueKey is GSI2PK of the pending deliveries of a shard.
func DueKey(shard int) string { return fmt.Sprintf("DUE#%02d", shard) }

// DueSK is GSI2SK of a pending delivery: when it is due, then which.
func DueSK(at time.Time, wid int64, deliverySK string) string {
	return pad(at.UnixMilli()) + "#" + pad(wid) + "#" + deliverySK
}

func dueShard(wid, rid int64) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strconv.FormatInt(wid, 10) + "/" + strconv.FormatInt(rid, 10)))
	return int(h.Sum32() % DueShards)
}

// ClaimAttempt claims the next step of d (an attempt, or its holding
// back by the breaker), as a job queued at d.Step(): false when the
// delivery moved on, is not pending, or another claim is under way. The
// claim holds until until; it puts the delivery in the due index then, so
// that an attempt whose function died is queued again.
//
// Claims give a delivery one chain of attempts, and the due index is
// sharded: docs/webhooks.md#attempts-and-the-due-index.
func (s *Store) ClaimAttempt(ctx context.Context, d survey.Delivery, token string, until time.Time) (bool, error) {
	pk, sk := DeliveriesPK(d.WebhookID), DeliverySK(d.Created, d.ResponseID)
	// held is absent until the breaker first holds an attempt back.
	step, args := "attempts = ? AND attribute_not_exists(held)", []any{d.Attempts}
	if d.Held > 0 {
		step, args = "attempts = ? AND held = ?", []any{d.Attempts, d.Held}
	}
	err := s.table.Update(AttrPK, pk).Range(AttrSK, sk).
		If("$ = ? AND (attribute_not_exists(claim_until) OR claim_until < ?)", "status", string(survey.DeliveryPending), s.Now().UnixMilli()).
		If(step, args...).
		Set("claim", token).Set("claim_until", until.UnixMilli()).
		Set(AttrGSI2PK, DueKey(dueShard(d.WebhookID, d.ResponseID))).Set(AttrGSI2SK, DueSK(until, d.WebhookID, sk)).
		Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("claim delivery attempt", err)
	}
	return true, nil
}

// ReleaseClaim gives up the claim made with token, unrecorded: the
// attempt was not made (too little of the function's time was left to
// make and record it); the job's next receive claims it again.
func (s *Store) ReleaseClaim(ctx context.Context, d survey.Delivery, token string) error {
	err := s.table.Update(AttrPK, DeliveriesPK(d.WebhookID)).Range(AttrSK, DeliverySK(d.Created, d.ResponseID)).
		If("claim = ?", token).Remove("claim", "claim_until").Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail("release delivery claim", err)
	}
	return nil
}

// RecordAttempt writes the outcome d of the step claimed with token, and
// releases the claim: false when the claim was lost (it lapsed and
// another attempt took over). The token alone settles it: only a claim
// (ClaimAttempt, conditional on the step) sets it, and only its own
// record or release removes it, so the delivery is still at the claimed
// step. A pending outcome is put in the due index at due; a final one
// leaves it.
func (s *Store) RecordAttempt(ctx context.Context, d survey.Delivery, token string, due time.Time) (bool, error) {
	return s.recordAttempt(ctx, d, token, due, false)
}

// RecordPaused is RecordAttempt of a step the webhook's open breaker held
// back (no request made, d.Held counts it): the pending delivery also
// joins the webhook's paused index, so that the breaker's closing makes it
// due at once (ResumePaused) instead of at its next scheduled attempt.
func (s *Store) RecordPaused(ctx context.Context, d survey.Delivery, token string, due time.Time) (bool, error) {
	return s.recordAttempt(ctx, d, token, due, d.Status == survey.DeliveryPending)
}

func (s *Store) recordAttempt(ctx context.Context, d survey.Delivery, token string, due time.Time, paused bool) (bool, error) {
	if d.Status != survey.DeliveryPending {
		due = time.Time{}
	}
	it := newDeliveryItem(d, due)
	up := s.table.Update(AttrPK, it.PK).Range(AttrSK, it.SK).
		If("claim = ? AND $ = ?", token, "status", string(survey.DeliveryPending)).
		Set("status", it.Status).Set("attempts", it.Attempts).Remove("claim", "claim_until")
	if paused {
		up.Set(AttrGSI1PK, PausedKey(d.WebhookID, d.ResponseID)).Set(AttrGSI1SK, it.SK)
	} else {
		up.Remove(AttrGSI1PK, AttrGSI1SK) // any attempt recorded ends a pause's hold
	}
	for name, v := range map[string]any{"held": it.Held, "last_status_code": it.LastStatusCode, "last_attempt_at": it.LastAttempt,
		"next_attempt_at": it.NextAttempt, "last_error": it.LastError, AttrGSI2PK: it.DuePK, AttrGSI2SK: it.DueSK} {
		if v == 0 || v == "" {
			up.Remove(name)
		} else {
			up.Set(name, v)
		}
	}
	err := up.Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("record delivery attempt", err)
	}
	return true, nil
}

// RetryDelivery marks a delivery pending again, due now (the owner's
// retry), and answers it as it now stands; the retrier looks at it again
// at due should its job be lost. A delivery that succeeded is sent again
// too (contract section 13: the owner's retry sends it again now): no
// chain of its own holds it any more, and the job's claim (attempts as
// answered here) keeps racing retries to one attempt. ENOTFOUND when it
// does not exist.
//
// As a request's write (survey.Write) it is a transaction with the
// activity entry and, for a member, the condition on their share
// (runTx), then a strongly consistent read of the delivery (a
// transaction answers no item); alone it is one UpdateItem answering
// the item.
func (s *Store) RetryDelivery(ctx context.Context, d survey.Delivery, due time.Time) (survey.Delivery, error) {
	sk := DeliverySK(d.Created, d.ResponseID)
	retry := func() *dynamo.Update {
		return s.table.Update(AttrPK, DeliveriesPK(d.WebhookID)).Range(AttrSK, sk).
			If("attribute_exists(PK)").
			Set("status", string(survey.DeliveryPending)).Set("next_attempt_at", s.timestamp()).
			Set(AttrGSI2PK, DueKey(dueShard(d.WebhookID, d.ResponseID))).Set(AttrGSI2SK, DueSK(due, d.WebhookID, sk))
	}
	var it deliveryItem
	if _, ok := survey.WriteFrom(ctx); !ok {
		err := retry().Value(ctx, &it)
		if dynamo.IsCondCheckFailed(err) {
			return survey.Delivery{}, survey.ErrNotFound
		}
		if err != nil {
			return survey.Delivery{}, s.fail("retry delivery", err)
		}
		return it.delivery()
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, s.db.WriteTx().Update(retry()))
		if err == nil {
			break
		}
		switch {
		case txFailedAt(err, 0):
			return survey.Delivery{}, survey.ErrNotFound
		case retryConflict(ctx, err, attempt, started):
			continue // an attempt's record, or the member's other write, held an item
		case errors.As(err, new(*survey.Error)):
			return survey.Delivery{}, err // the member's share ended first (memberRefusal)
		}
		return survey.Delivery{}, s.fail("retry delivery", err)
	}
	err := s.table.Get(AttrPK, DeliveriesPK(d.WebhookID)).Range(AttrSK, dynamo.Equal, sk).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Delivery{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Delivery{}, s.fail("read retried delivery", err)
	}
	return it.delivery()
}

// DueDelivery is a pending delivery the due index holds as due.
type DueDelivery struct {
	survey.Delivery
	dueSK string
}

// DueDeliveries reads a page of up to limit deliveries of a shard of the
// due index that are due at now, earliest first, from start (nil: the
// first page); next is nil after the last page. One Query (the index is
// eventually consistent; Requeue's condition settles what it read stale).
func (s *Store) DueDeliveries(ctx context.Context, shard int, now time.Time, start dynamo.PagingKey, limit int) (due []DueDelivery, next dynamo.PagingKey, err error) {
	q := s.table.Get(AttrGSI2PK, DueKey(shard)).Index(IndexGSI2).
		Range(AttrGSI2SK, dynamo.LessOrEqual, pad(now.UnixMilli())+"#~").SearchLimit(limit)
	if start != nil {
		q = q.StartFrom(start)
	}
	var items []deliveryItem
	if next, err = q.AllWithLastEvaluatedKey(ctx, &items); err != nil {
		return nil, nil, s.fail(fmt.Sprintf("query due deliveries of shard %d", shard), err)
	}
	due = make([]DueDelivery, 0, len(items))
	for _, it := range items {
		d, err := it.delivery()
		if err != nil {
			return nil, nil, err
		}
		due = append(due, DueDelivery{Delivery: d, dueSK: it.DueSK})
	}
	return due, next, nil
}

// Requeue moves a due delivery's place in the due index to next (when it
// is looked at again, should the job about to be queued be lost): false
// when it changed since it was read (another retrier run, an attempt, a
// stale read of the index).
func (s *Store) Requeue(ctx context.Context, d DueDelivery, next time.Time) (bool, error) {
	sk := DeliverySK(d.Created, d.ResponseID)
	err := s.table.Update(AttrPK, DeliveriesPK(d.WebhookID)).Range(AttrSK, sk).
		If("GSI2SK = ?", d.dueSK).Set(AttrGSI2SK, DueSK(next, d.WebhookID, sk)).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("requeue delivery", err)
	}
	return true, nil
}

// PausedShards is the partitions of one webhook's paused index.
const PausedShards = 8

// PausedKey is GSI1PK of a paused delivery of webhook wid.
func PausedKey(wid, rid int64) string {
	return fmt.Sprintf("PAUSED#%s#%d", pad(wid), dueShard(wid, rid)%PausedShards)
}

func pausedShardKey(wid int64, shard int) string { return fmt.Sprintf("PAUSED#%s#%d", pad(wid), shard) }

// resumeWorkers bounds the concurrent updates of a resume.
const resumeWorkers = 16

// ResumePaused makes due at now up to limit (0: every one) of webhook
// wid's deliveries held back by its breaker, and answers them as they now
// stand (to queue their jobs at once; the due index holds them anyway,
// should a job be lost). more is true when limit left some paused. Each
// moves with an UpdateItem conditional on its still being paused and
// pending with no attempt under way, so a resume racing an attempt (or
// another resume) moves it once or not at all.
//
// Why the paused index is sharded: docs/webhooks.md#the-paused-index.
func (s *Store) ResumePaused(ctx context.Context, wid int64, now time.Time, limit int) (resumed []survey.Delivery, more bool, err error) {
	var mu sync.Mutex
	var left atomic.Int64
	left.Store(int64(limit))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(resumeWorkers)
	var shards errgroup.Group
	for shard := range PausedShards {
		shards.Go(func() error {
			key := pausedShardKey(wid, shard)
			q := s.table.Get(AttrGSI1PK, key).Index(IndexGSI1)
			it := q.Iter()
			var item deliveryItem
			for it.Next(gctx, &item) {
				if limit > 0 && left.Add(-1) < 0 {
					mu.Lock()
					more = true
					mu.Unlock()
					return nil
				}
				item := item
				g.Go(func() error {
					d, ok, err := s.resumeOne(gctx, item, key, now)
					if err != nil || !ok {
						return err
					}
					mu.Lock()
					resumed = append(resumed, d)
					mu.Unlock()
					return nil
				})
			}
			if err := it.Err(); err != nil {
				return s.fail(fmt.Sprintf("query paused deliveries of webhook %d", wid), err)
			}
			return nil
		})
	}
	qerr := shards.Wait()
	if err := g.Wait(); err != nil {
		return resumed, more, err
	}
	return resumed, more, qerr
}

// resumeOne makes one paused delivery due at now: false when it moved on.
func (s *Store) resumeOne(ctx context.Context, it deliveryItem, key string, now time.Time) (survey.Delivery, bool, error) {
	var out deliveryItem
	err := s.table.Update(AttrPK, it.PK).Range(AttrSK, it.SK).
		If("$ = ? AND $ = ? AND (attribute_not_exists(claim_until) OR claim_until < ?)",
			AttrGSI1PK, key, "status", string(survey.DeliveryPending), now.UnixMilli()).
		Set("next_attempt_at", stamp(now)).
		Set(AttrGSI2PK, DueKey(dueShard(it.WebhookID, it.ResponseID))).Set(AttrGSI2SK, DueSK(now, it.WebhookID, it.SK)).
		Remove(AttrGSI1PK, AttrGSI1SK).
		Value(ctx, &out)
	if dynamo.IsCondCheckFailed(err) {
		return survey.Delivery{}, false, nil
	}
	if err != nil {
		return survey.Delivery{}, false, s.fail("resume a paused delivery", err)
	}
	d, err := out.delivery()
	return d, err == nil, err
}
