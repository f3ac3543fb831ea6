package store

import (
	"testing"
	"time"
)

// TestLimitBasePlace: a response without a place of a limit set while it
// was in flight is one of the limit's base exactly when the count read it.
// Stamped in the limitSeenFor before t0, the ids the count kept decide,
// however late its transaction returned (under load, seconds after its
// commit); stamped earlier, it stands when its transaction returned
// limitIndexLag before the count began. A base counted before the ids were
// kept (SeenFrom 0) decides every response by its return. Any other is
// submitted again with a place.
func TestLimitBasePlace(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	counted := t0.Add(limitSettleLag + limitIndexLag)
	from := t0.Add(-limitSeenFor)
	kept := limitBase{Base: 7, T0: t0.UnixNano(), Counted: counted.UnixNano(), SeenFrom: from.UnixNano()}
	old := kept
	old.SeenFrom = 0
	for _, c := range []struct {
		name        string
		b           limitBase
		stamp, done time.Time
		want        basePlace
	}{
		{"stamped and returned before t0", kept, t0.Add(-time.Second), t0.Add(-900 * time.Millisecond), seenDecides},
		{"stamped before t0, returned after the count", kept, t0.Add(-time.Millisecond), counted.Add(5 * time.Second), seenDecides},
		{"stamped at the window's start", kept, from, counted.Add(time.Second), seenDecides},
		{"stamped before the window, returned early", kept, from.Add(-time.Microsecond), from, inBase},
		{"stamped before the window, returned too late for the count", kept, from.Add(-time.Microsecond), counted.Add(-limitIndexLag), notInBase},
		{"stamped at t0", kept, t0, t0.Add(time.Millisecond), notInBase},
		{"stamped after t0", kept, t0.Add(time.Millisecond), t0.Add(2 * time.Millisecond), notInBase},
		{"no ids kept: stamped and returned before t0", old, t0.Add(-time.Second), t0.Add(-900 * time.Millisecond), inBase},
		{"no ids kept: returned within the settle lag", old, t0.Add(-time.Millisecond), t0.Add(limitSettleLag - time.Millisecond), inBase},
		{"no ids kept: returned too late for the count", old, t0.Add(-time.Millisecond), counted.Add(-limitIndexLag), notInBase},
		{"no ids kept: stamped after t0", old, t0.Add(time.Millisecond), t0.Add(2 * time.Millisecond), notInBase},
	} {
		if got := c.b.place(c.stamp, c.done); got != c.want {
			t.Errorf("%s: place %v, want %v", c.name, got, c.want)
		}
	}
}
