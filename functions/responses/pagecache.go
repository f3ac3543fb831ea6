package responses

import (
	"sync"
	"time"

	"surveyservice/shared/store"
)

// pageStarts remembers, per container, where the pages of a results-table
// walk start. DynamoDB has no offset: page k of a query begins after its
// (k-1)*size-th response, which costs reading every response before it.
// Clients read page 1, 2, 3... in turn, usually from the same warm
// container, so remembering where each page ended makes page k+1 one
// Query of its own items. A start is a position (a key), not a count: a
// response deleted or added since only shifts what later pages hold, as it
// would between any two requests of page-number pagination.
type pageStarts struct {
	mu      sync.Mutex
	entries map[pageKey]pageStart
	now     func() time.Time
}

// pageKey names one page of one query of one survey.
type pageKey struct {
	sid           int64
	after, before int64 // Unix microseconds, 0 when open
	ascending     bool
	size, page    int
}

type pageStart struct {
	after *store.ResponsePosition // the page starts after it; nil: at the start
	at    time.Time
}

// Bounds of the memory: entries live a few minutes, and there are at most
// maxPageStarts (about 100 bytes each).
const (
	pageStartTTL  = 10 * time.Minute
	maxPageStarts = 10000
)

func newPageStarts(now func() time.Time) *pageStarts {
	return &pageStarts{entries: map[pageKey]pageStart{}, now: now}
}

// nearest returns the closest known start at or before k's page, and that
// page's number (1 with a nil start when none is known).
func (c *pageStarts) nearest(k pageKey) (int, *store.ResponsePosition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for p := k.page; p > 1 && k.page-p < 64; p-- {
		k2 := k
		k2.page = p
		if e, ok := c.entries[k2]; ok && now.Sub(e.at) < pageStartTTL {
			return p, e.after
		}
	}
	return 1, nil
}

// remember records that page k starts after pos.
func (c *pageStarts) remember(k pageKey, pos store.ResponsePosition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.entries) >= maxPageStarts {
		for key, e := range c.entries {
			if now.Sub(e.at) >= pageStartTTL || len(c.entries) >= maxPageStarts {
				delete(c.entries, key)
			}
			if len(c.entries) < maxPageStarts*9/10 {
				break
			}
		}
	}
	c.entries[k] = pageStart{after: &pos, at: now}
}
