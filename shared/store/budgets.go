package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/guregu/dynamo/v2"
)

// budgetTTL is how long after its window a budget's counter may stay:
// DynamoDB's TTL removes it within days, and no read looks at a window
// that has ended.
const budgetTTL = time.Hour

// BudgetPK is the partition of one sending budget's counters: the budget's
// scope (what is limited, as "verify-survey") and its key (which one).
func BudgetPK(scope, key string) string { return "BUDGET#" + scope + "#" + key }

// BudgetSK is one fixed window's counter, named by its start (Unix
// seconds).
func BudgetSK(start int64) string { return "W#" + pad(start) }

// budgetShardPK is the partition of a budget's counter shard: shard 0 is
// the budget's own (BudgetPK), shard i > 0 BudgetPK#i, a partition key of
// its own, so that the shards spread the writes over partitions (one
// partition key takes 1,000 WCU/s).
func budgetShardPK(scope, key string, shard int) string {
	if shard == 0 {
		return BudgetPK(scope, key)
	}
	return BudgetPK(scope, key) + "#" + strconv.Itoa(shard)
}

// BudgetShards is how many counters a budget that every send of a survey
// or an account spends from is spread over: at the most sends a second
// the stage lets through (about 1,000), each counter takes some 60 writes
// a second, never one item that every send writes.
const BudgetShards = 16

// shareOf is shard i's part of limit over n shards: they sum to limit.
func shareOf(limit int64, i, n int) int64 {
	q, r := limit/int64(n), limit%int64(n)
	if int64(i) < r {
		q++
	}
	return q
}

// BudgetClientKey is the key of a client in a budget: its IP address, an
// IPv6 client by its /64 (as the code-guess guard counts clients).
func BudgetClientKey(ip string) string { return clientKey(ip) }

// BudgetWindow is one fixed window of one budget: its counter item.
type BudgetWindow struct {
	Scope, Key string
	// Start and End bound the window; End also sets the item's TTL.
	Start, End time.Time
	// Shards spreads the window's counter over that many items (0 or 1:
	// one), each holding its share of the limit; Shard is the one a spend
	// took from (SpendBudget sets it, RefundBudget gives back to it).
	Shards, Shard int
}

// SpendBudget adds n to the window's counter unless that would take it
// past limit: one conditional UpdateItem, so racing spenders are admitted
// exactly up to the limit. It reports whether it spent, and the window
// with the shard it spent from.
//
// A sharded window (Shards > 1) spends from a shard picked at random,
// within that shard's share of the limit (the shares sum to the limit);
// a full shard sends the spend on to the next, in turn, so a spend is
// refused only when every shard is full: exact, never over the limit, and
// no item that every send writes.
//
// Each budget is its own item, never in a transaction with another: a
// shared counter (a survey's, an account's) in a transaction would cancel
// every concurrent transaction that touches it (TransactionConflict).
func (s *Store) SpendBudget(ctx context.Context, w BudgetWindow, n, limit int64) (BudgetWindow, bool, error) {
	shards := max(w.Shards, 1)
	first := 0
	if shards > 1 {
		first = rand.IntN(shards)
	}
	for k := range shards {
		i := (first + k) % shards
		share := shareOf(limit, i, shards)
		if n > share {
			continue
		}
		err := s.table.Update(AttrPK, budgetShardPK(w.Scope, w.Key, i)).Range(AttrSK, BudgetSK(w.Start.Unix())).
			Add("n", n).Set(AttrTTL, w.End.Add(budgetTTL).Unix()).
			If("attribute_not_exists(n) OR n <= ?", share-n).Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			continue
		}
		if err != nil {
			return w, false, s.fail(fmt.Sprintf("spend budget %s %s", w.Scope, w.Key), err)
		}
		w.Shard = i
		return w, true, nil
	}
	return w, false, nil
}

// RefundBudget gives n back to the window's counter: a spend whose send
// failed, or an earlier budget of a spend that a later one refused. It
// never takes the counter below zero (nor creates it).
func (s *Store) RefundBudget(ctx context.Context, w BudgetWindow, n int64) error {
	err := s.table.Update(AttrPK, budgetShardPK(w.Scope, w.Key, w.Shard)).Range(AttrSK, BudgetSK(w.Start.Unix())).
		Add("n", -n).If("n >= ?", n).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("refund budget %s %s", w.Scope, w.Key), err)
	}
	return nil
}

// BudgetSpent answers a window's counter (0 when nothing was spent in
// it), read strongly consistent: one GetItem, or one BatchGetItem of a
// sharded window's shards.
func (s *Store) BudgetSpent(ctx context.Context, w BudgetWindow) (int64, error) {
	shards := max(w.Shards, 1)
	keys := make([]dynamo.Keyed, shards)
	for i := range shards {
		keys[i] = dynamo.Keys{budgetShardPK(w.Scope, w.Key, i), BudgetSK(w.Start.Unix())}
	}
	var out []struct {
		N int64 `dynamo:"n"`
	}
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &out)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, s.fail(fmt.Sprintf("read budget %s %s", w.Scope, w.Key), err)
	}
	var n int64
	for _, c := range out {
		n += c.N
	}
	return n, nil
}
