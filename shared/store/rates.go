package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"
)

// rateTTL is how long after its window a counter item may stay.
const rateTTL = time.Hour

// RatePK is the partition of one limited key's counters.
func RatePK(scope, key string) string { return "RATE#" + scope + "#" + key }

// RateSK is one shard of one window's counter.
func RateSK(window int64, shard int) string {
	return fmt.Sprintf("%s%02d", rateWindowPrefix(window), shard)
}

func rateWindowPrefix(window int64) string { return "W#" + pad(window) + "#" }

// RateWindow is one window of one limited key's counter: the limiter's
// scope, the key and the window's start.
type RateWindow struct {
	Scope, Key string
	Window     int64
}

// AddRate adds n to a shard of a window's counter (one UpdateItem ADD)
// and answers the shard's new value.
//
// Counters live one partition a limited key, one item a window and shard:
// docs/data-model.md#rate-limit-counters.
func (s *Store) AddRate(ctx context.Context, w RateWindow, shard int, n int64, windowEnd time.Time) (int64, error) {
	scope, key, window := w.Scope, w.Key, w.Window
	var out struct {
		N int64 `dynamo:"n"`
	}
	err := s.table.Update(AttrPK, RatePK(scope, key)).Range(AttrSK, RateSK(window, shard)).
		Add("n", n).Set(AttrTTL, windowEnd.Add(rateTTL).Unix()).Value(ctx, &out)
	if err != nil {
		return 0, s.fail(fmt.Sprintf("count requests of %s %s", scope, key), err)
	}
	return out.N, nil
}

// RateTotal sums a window's counter over its shards: one Query of the
// window's items (strongly consistent: it follows this container's own
// AddRate).
func (s *Store) RateTotal(ctx context.Context, w RateWindow) (int64, error) {
	scope, key, window := w.Scope, w.Key, w.Window
	var items []struct {
		N int64 `dynamo:"n"`
	}
	err := s.table.Get(AttrPK, RatePK(scope, key)).Range(AttrSK, dynamo.BeginsWith, rateWindowPrefix(window)).
		Project("n").Consistent(true).All(ctx, &items)
	if err != nil {
		return 0, s.fail(fmt.Sprintf("sum requests of %s %s", scope, key), err)
	}
	var total int64
	for _, it := range items {
		total += it.N
	}
	return total, nil
}
