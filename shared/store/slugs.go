package store

import "sync"

// slugCacheSize bounds the slugs a container remembers: a few hundred
// kilobytes at most.
const slugCacheSize = 10000

// slugCache remembers which survey a public slug names. The mapping never
// changes (a slug is drawn once, for one survey, and never reassigned), so
// an entry never goes stale; only slugs that were found are kept, so a
// survey created after a miss is found at once. When full, an arbitrary
// entry makes room: the cache is for the few surveys a container serves
// often, not for all of them.
type slugCache struct {
	mu sync.RWMutex
	m  map[string]int64
}

func (c *slugCache) get(slug string) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	sid, ok := c.m[slug]
	return sid, ok
}

func (c *slugCache) put(slug string, sid int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]int64)
	}
	if len(c.m) >= slugCacheSize {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[slug] = sid
}
