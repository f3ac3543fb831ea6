package store

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestResponseKeyRange holds the key conditions of a responses page to
// their meaning: for random sets of responses (many sharing a microsecond)
// and random queries, the keys within the bounds are exactly the responses
// strictly after After, strictly before Before, and past From in the
// query's order.
func TestResponseKeyRange(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func() time.Time { return base.Add(time.Duration(rng.IntN(20)) * time.Microsecond) }
	type resp struct {
		t  time.Time
		id int64
	}
	for round := range 3000 {
		var rs []resp
		for range rng.IntN(12) {
			rs = append(rs, resp{at(), int64(rng.IntN(30) + 1)})
		}
		q := ResponseQuery{Ascending: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			q.After = at().Add(time.Duration(rng.IntN(3)-1) * 300) // sometimes between microseconds
		}
		if rng.IntN(2) == 0 {
			q.Before = at().Add(time.Duration(rng.IntN(3)-1) * 300)
		}
		if len(rs) > 0 && rng.IntN(2) == 0 {
			r := rs[rng.IntN(len(rs))]
			q.From = &ResponsePosition{SubmittedAt: r.t, ID: r.id}
		}
		lo, hi, ok := responseKeyRange(q)
		for _, r := range rs {
			key := ResponseTimeSK(r.t, r.id)
			got := ok && (lo == "" || key >= lo) && (hi == "" || key <= hi)
			want := (q.After.IsZero() || r.t.After(q.After)) && (q.Before.IsZero() || r.t.Before(q.Before))
			if f := q.From; f != nil {
				cmp := r.t.Compare(f.SubmittedAt)
				if cmp == 0 {
					cmp = int(r.id - f.ID)
				}
				want = want && (q.Ascending && cmp > 0 || !q.Ascending && cmp < 0)
			}
			if got != want {
				t.Fatalf("round %d: query %+v (from %+v): response %v#%d in range = %v, want %v (lo %q hi %q ok %v)",
					round, q, q.From, r.t.Format(time.RFC3339Nano), r.id, got, want, lo, hi, ok)
			}
		}
	}
}

// TestResponseKeyRangeEdges: bounds at the ends of what a key can spell.
func TestResponseKeyRangeEdges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		q    ResponseQuery
		ok   bool
	}{
		{"open", ResponseQuery{}, true},
		{"after the last time", ResponseQuery{After: maxKeyTime}, false},
		{"after the year 10000", ResponseQuery{After: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}, false},
		{"before the year 1", ResponseQuery{Before: time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)}, false},
		{"before the year 10000", ResponseQuery{Before: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}, true},
		{"after later than before", ResponseQuery{After: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Before: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, false},
	} {
		lo, hi, ok := responseKeyRange(tc.q)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v (lo %q hi %q)", tc.name, ok, tc.ok, lo, hi)
		}
		for _, k := range []string{lo, hi} {
			if k != "" && !slices.Contains([]int{len("2026-01-01T00:00:00.000000Z"), len("2026-01-01T00:00:00.000000Z#~")}, len(k)) &&
				!strings.Contains(k, "#") {
				t.Errorf("%s: bound %q is not a fixed-width time", tc.name, k)
			}
		}
	}
}
