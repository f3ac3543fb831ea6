// Package ratelimit holds the public functions' limits per client and per
// survey: one client's script, or one survey's flood, is held
// back in the function, so that every other client and survey keeps the
// stage's throughput (template.yaml's stage throttles are for the account
// as a whole).
//
// # Keys
//
// A client is API Gateway's source IP (api.ClientIP: requestContext.http.
// sourceIp, never X-Forwarded-For), an IPv6 address by its /64 (one
// subscriber's prefix). A survey is the slug in the request's path, so a
// limit costs no read of the survey.
//
// # Counting across containers, without a hot item
//
// Each container counts in memory, per key and fixed window, the requests
// it admitted since it last synchronised ("pending"), and what the table
// said the window's total was then ("known"). It admits a request while
// known + pending < limit. Once pending reaches a step, it synchronises:
// one UpdateItem ADDs pending to one of the key's counter shards, and (for
// a sharded key) one Query sums the window's shards (store.AddRate,
// store.RateTotal); known becomes that total. The step is the room left
// divided by Spread (at least 1, at most MaxStep), so:
//
//   - a key far below its limit costs nothing: a responder's few requests,
//     or a survey's hundreds a second spread over containers that each see
//     fewer than a step within one window, never write;
//   - a key at its limit is refused in memory by each container that knows
//     it (no write, no read), until the window ends;
//   - overshoot: a Lambda container serves one request at a time, so each
//     admits at most one step unseen by the others; with N containers
//     serving the key, a window admits at most limit + N × step, step ≤
//     max(1, limit / Spread): for a client (600 a minute, Spread 64) at most
//     9 a container, for a survey (3,000 a second, Spread 256) at most 11
//     a container, so 60 containers may let a survey's window run 660 over
//     (22 %), and far fewer once the containers know the total is close
//     (the step shrinks with the room left).
//   - cost: a key that admits R requests a window spread over N containers
//     writes about R / step + N times a window; a viral survey at 1,000
//     submissions and 1,000 sessions a second on 60 containers: 208
//     UpdateItem ADDs (1 WCU each, over 8 shards) and as many Queries of a
//     few dozen bytes (0.5 RCU each) a second, 0.10 WCU a request
//     (BenchmarkViralSurveyKey).
//
// A failure of the counters' table (throttled, unavailable) admits the
// request and logs it: a limit that fails closed would turn a brief
// DynamoDB throttle into an outage for every responder.
package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Rate is one limit: Limit requests a Window for each key, counted over
// Shards counter items.
type Rate struct {
	Limit  int64
	Window time.Duration
	// Shards: 1 for a key whose requests only its own owner sends (a
	// client), several for one that many clients share (a survey).
	Shards int
	// Spread is how many containers the step is made for (overshoot at
	// most one request a container while they are no more); MaxStep caps
	// the requests a container admits between synchronisations.
	Spread, MaxStep int64
}

// Counters are the table's counters; *store.Store implements them.
type Counters interface {
	AddRate(ctx context.Context, w store.RateWindow, shard int, n int64, windowEnd time.Time) (int64, error)
	RateTotal(ctx context.Context, w store.RateWindow) (int64, error)
}

// Limiter counts the requests of one scope's keys (one per function and
// kind: "responders:client", "responders:survey", ...).
type Limiter struct {
	scope    string
	rate     Rate
	counters Counters
	now      func() time.Time

	mu   sync.Mutex
	keys map[string]*window
	// syncs counts the synchronisations, for tests and benchmarks.
	syncs int64
}

type window struct {
	start   int64 // Unix seconds
	known   int64
	pending int64
	syncing bool
}

// New returns a limiter of a scope's keys at rate.
func New(scope string, rate Rate, counters Counters, now func() time.Time) *Limiter {
	if rate.Shards < 1 {
		rate.Shards = 1
	}
	if rate.Spread < 1 {
		rate.Spread = 1
	}
	if rate.MaxStep < 1 {
		rate.MaxStep = 1
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{scope: scope, rate: rate, counters: counters, now: now, keys: map[string]*window{}}
}

// Throttled is the 429 of a limit, in DRF's words for a throttled request;
// Retry-After is the time to the window's end.
func Throttled(wait time.Duration) error {
	secs := int64((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return &survey.Error{Code: survey.ETOOMANY, Detail: fmt.Sprintf("Request was throttled. Expected available in %d %s.", secs, unit), RetryAfter: time.Duration(secs) * time.Second}
}

// maxKeys bounds the keys a container remembers; past it, windows that
// have ended are dropped (and, if still full, every key: counts restart
// from the table's at the next step).
const maxKeys = 100_000

// KeyGuessRate bounds failed API keys sent in a body (POST /api/whoami/,
// contract section 21 amended), as section 18's guard bounds failed codes:
// 10 a minute per client. Each failure is counted in the table at once
// (step 1), so every container knows the count after its own next one.
var KeyGuessRate = Rate{Limit: 10, Window: time.Minute, Shards: 1, Spread: 1, MaxStep: 1}

// Over answers the 429 (Throttled) while key's current window is known to
// be at its limit, without counting anything: for a guard that counts
// only failures (Allow after one) but refuses every attempt past them.
func (l *Limiter) Over(key string) error {
	now := l.now()
	w := int64(l.rate.Window / time.Second)
	if w < 1 {
		w = 1
	}
	start := now.Unix() - ((now.Unix()%w)+w)%w
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.keys[key]; st != nil && st.start == start && st.known+st.pending >= l.rate.Limit {
		return Throttled(time.Unix(start+w, 0).Sub(now))
	}
	return nil
}

// Allow counts one request of key: nil to serve it, or the 429 (Throttled)
// while the key's window is at its limit.
func (l *Limiter) Allow(ctx context.Context, key string) error {
	now := l.now()
	w := int64(l.rate.Window / time.Second)
	if w < 1 {
		w = 1
	}
	start := now.Unix() - ((now.Unix()%w)+w)%w
	end := time.Unix(start+w, 0)

	l.mu.Lock()
	st := l.keys[key]
	if st == nil || st.start != start {
		if st == nil && len(l.keys) >= maxKeys {
			l.prune(start)
		}
		st = &window{start: start}
		l.keys[key] = st
	}
	if st.known+st.pending >= l.rate.Limit {
		l.mu.Unlock()
		return Throttled(end.Sub(now))
	}
	st.pending++
	step := (l.rate.Limit - st.known) / l.rate.Spread
	step = max(1, min(step, l.rate.MaxStep))
	if st.pending < step || st.syncing {
		l.mu.Unlock()
		return nil
	}
	delta := st.pending
	st.pending, st.syncing = 0, true
	l.syncs++
	l.mu.Unlock()

	total, err := l.sync(ctx, key, start, delta, end)

	l.mu.Lock()
	defer l.mu.Unlock()
	st.syncing = false
	if err != nil {
		st.pending += delta // counted again at the next step
		slog.WarnContext(ctx, "rate limit not counted", slog.String("scope", l.scope), slog.String("error", err.Error()))
		return nil
	}
	if cur := l.keys[key]; cur == st && total > st.known {
		st.known = total
	}
	return nil
}

// sync adds delta to a random shard of the window and answers the
// window's total: the shard's new value when there is one shard, else the
// sum of the shards' (one Query).
func (l *Limiter) sync(ctx context.Context, key string, start, delta int64, end time.Time) (int64, error) {
	shard := 0
	if l.rate.Shards > 1 {
		shard = rand.IntN(l.rate.Shards)
	}
	w := store.RateWindow{Scope: l.scope, Key: key, Window: start}
	n, err := l.counters.AddRate(ctx, w, shard, delta, end)
	if err != nil || l.rate.Shards == 1 {
		return n, err
	}
	return l.counters.RateTotal(ctx, w)
}

// prune drops the windows that ended; l.mu is held.
func (l *Limiter) prune(start int64) {
	for k, st := range l.keys {
		if st.start != start && !st.syncing {
			delete(l.keys, k)
		}
	}
	if len(l.keys) >= maxKeys {
		clear(l.keys)
	}
}

// Syncs is how many times the limiter synchronised with the table.
func (l *Limiter) Syncs() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncs
}

// ClientKey is the key of a client address: an IPv4 address, the /64 of
// an IPv6 one, or "unknown" for an address that does not parse (all such
// requests share one key).
func ClientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "unknown"
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// SurveyKey is the key of a survey's slug (or report code): itself when
// short and plain, else a hash, so a key stays a small part of a
// partition key whatever a path holds.
func SurveyKey(slug string) string {
	plain := len(slug) <= 64
	for i := 0; plain && i < len(slug); i++ {
		c := slug[i]
		plain = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if plain && slug != "" {
		return slug
	}
	h := sha256.Sum256([]byte(slug))
	return "h" + hex.EncodeToString(h[:12])
}
