package store

import (
	"context"
	"errors"
	"fmt"
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

// BudgetClientKey is the key of a client in a budget: its IP address, an
// IPv6 client by its /64 (as the code-guess guard counts clients).
func BudgetClientKey(ip string) string { return clientKey(ip) }

// BudgetWindow is one fixed window of one budget: its counter item.
type BudgetWindow struct {
	Scope, Key string
	// Start and End bound the window; End also sets the item's TTL.
	Start, End time.Time
}

// SpendBudget adds n to the window's counter unless that would take it
// past limit: one conditional UpdateItem, so racing spenders are admitted
// exactly up to the limit. It reports whether it spent.
//
// Each budget is its own item, never in a transaction with another: a
// shared counter (a survey's, an account's) in a transaction would cancel
// every concurrent transaction that touches it (TransactionConflict).
func (s *Store) SpendBudget(ctx context.Context, w BudgetWindow, n, limit int64) (bool, error) {
	if n > limit {
		return false, nil
	}
	err := s.table.Update(AttrPK, BudgetPK(w.Scope, w.Key)).Range(AttrSK, BudgetSK(w.Start.Unix())).
		Add("n", n).Set(AttrTTL, w.End.Add(budgetTTL).Unix()).
		If("attribute_not_exists(n) OR n <= ?", limit-n).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("spend budget %s %s", w.Scope, w.Key), err)
	}
	return true, nil
}

// RefundBudget gives n back to the window's counter: a spend whose send
// failed, or an earlier budget of a spend that a later one refused. It
// never takes the counter below zero (nor creates it).
func (s *Store) RefundBudget(ctx context.Context, w BudgetWindow, n int64) error {
	err := s.table.Update(AttrPK, BudgetPK(w.Scope, w.Key)).Range(AttrSK, BudgetSK(w.Start.Unix())).
		Add("n", -n).If("n >= ?", n).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("refund budget %s %s", w.Scope, w.Key), err)
	}
	return nil
}

// BudgetSpent answers a window's counter (0 when nothing was spent in
// it), read strongly consistent.
func (s *Store) BudgetSpent(ctx context.Context, w BudgetWindow) (int64, error) {
	var out struct {
		N int64 `dynamo:"n"`
	}
	err := s.table.Get(AttrPK, BudgetPK(w.Scope, w.Key)).Range(AttrSK, dynamo.Equal, BudgetSK(w.Start.Unix())).
		Consistent(true).One(ctx, &out)
	if errors.Is(err, dynamo.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail(fmt.Sprintf("read budget %s %s", w.Scope, w.Key), err)
	}
	return out.N, nil
}
