package store

import (
	"testing"
	"time"
)

// TestLimitBaseStands: a response without a place of a limit set while it
// was in flight is one of the limit's base exactly when the count saw it:
// stamped before t0, and its transaction returned limitIndexLag before
// the count began. Any other is submitted again with a place.
func TestLimitBaseStands(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	counted := t0.Add(limitSettleLag + limitIndexLag)
	b := limitBase{Base: 7, T0: t0.UnixNano(), Counted: counted.UnixNano()}
	for _, c := range []struct {
		name        string
		stamp, done time.Time
		want        bool
	}{
		{"stamped and returned before t0", t0.Add(-time.Second), t0.Add(-900 * time.Millisecond), true},
		{"stamped before t0, returned within the settle lag", t0.Add(-time.Millisecond), t0.Add(limitSettleLag - time.Millisecond), true},
		{"stamped before t0, returned too late for the count", t0.Add(-time.Millisecond), counted.Add(-limitIndexLag), false},
		{"stamped at t0", t0, t0.Add(time.Millisecond), false},
		{"stamped after t0", t0.Add(time.Millisecond), t0.Add(2 * time.Millisecond), false},
	} {
		if got := b.stands(c.stamp, c.done); got != c.want {
			t.Errorf("%s: stands %v, want %v", c.name, got, c.want)
		}
	}
}
