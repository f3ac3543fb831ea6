package survey

import (
	"math"
	"testing"
)

func TestPageOffset(t *testing.T) {
	for _, c := range []struct {
		page, size int
		want       int64
		ok         bool
	}{
		{1, 20, 0, true},
		{2, 20, 20, true},
		{461168601842738792, 20, 0, false},
		{math.MaxInt, 1, 0, false},
		{math.MaxInt, 100, 0, false},
		{0, 20, 0, false},
		{-1, 20, 0, false},
		{math.MinInt, 20, 0, false},
		{2, 0, 0, false},
		{MaxPageOffset + 1, 1, MaxPageOffset, true},
		{MaxPageOffset + 2, 1, 0, false},
	} {
		got, ok := PageOffset(c.page, c.size)
		if got != c.want || ok != c.ok {
			t.Errorf("PageOffset(%d, %d) = %d, %v; want %d, %v", c.page, c.size, got, ok, c.want, c.ok)
		}
	}
}

// FuzzPageOffset: whatever the page parameters, the offset decision
// neither panics nor overflows, agrees with exact arithmetic, and a page
// past the end of count items is past it.
func FuzzPageOffset(f *testing.F) {
	f.Add(461168601842738792, 20, int64(5))
	f.Add(math.MaxInt, 100, int64(0))
	f.Add(-3, 5, int64(10))
	f.Add(2, 1, int64(1))
	f.Fuzz(func(t *testing.T, page, size int, count int64) {
		if count < 0 {
			count = -count
		}
		off, ok := PageOffset(page, size)
		if ok {
			if page < 1 || size < 1 || off < 0 || off > MaxPageOffset || off/int64(size) != int64(page-1) || off%int64(size) != 0 {
				t.Fatalf("PageOffset(%d, %d) = %d", page, size, off)
			}
		}
		past := PagePastEnd(page, size, count)
		if ok && page > 1 && past != (off >= count) {
			t.Fatalf("PagePastEnd(%d, %d, %d) = %v with offset %d", page, size, count, past, off)
		}
		if !ok && page > 1 && !past {
			t.Fatalf("PagePastEnd(%d, %d, %d) = false for a page without an offset", page, size, count)
		}
	})
}
