package store

import "sync"

// slugCacheSize bounds the slugs a container remembers: a few hundred
// kilobytes at most.
const slugCacheSize = 10000

// foreverCache remembers mappings that never change once made: which
// survey a public slug names (a slug is drawn once, for one survey, and
// never reassigned), which account a survey belongs to. An entry never goes
// stale; only what was found is kept, so a survey created after a miss is
// found at once. When full (slugCacheSize), an arbitrary entry makes room:
// the cache is for the few surveys a container serves often, not for all
// of them.
type foreverCache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func (c *foreverCache[K, V]) get(k K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *foreverCache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[K]V)
	}
	if len(c.m) >= slugCacheSize {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = v
}
