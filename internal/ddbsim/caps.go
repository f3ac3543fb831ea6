package ddbsim

import (
	"container/heap"
	"math/rand/v2"
	"sort"
	"time"
)

// The exact caps of contract section 25 (shared/store/places.go) under
// DynamoDB's rules: the model above replays requests without their items'
// values; this one keeps the allowances' counters, so that it can say how
// many responses a cap records and what the last places cost. Each
// submission is served by one of Containers (each with its own hints, as
// the store's capHints are per container) and follows the store's Submit:
// the survey's tally count (lagging by TallyLag) refuses it at once once
// the limit is reached; else it picks an allowance with room for all its
// caps among those its container does not know full, and sends its
// transaction (its own items, ResponseWCU, and the allowance's update, 2
// units). A transaction meeting an allowance another holds is cancelled
// (the store reads the allowance, strongly consistent, and tries again
// after its backoff); one whose condition fails marks the allowance full
// for its container and tries another at once; when the container knows
// every allowance of a cap full it reads them all (3 BatchGetItems) and
// refuses (410), trusting that for a second. A submission still cancelled
// after RaceFor answers 503.

// CapReadEvery is the store's capReadEvery: a container reads every
// allowance at most this often when it finds one full.
const CapReadEvery = 250 * time.Millisecond

// CapRun describes a run.
type CapRun struct {
	Rules       Rules
	Allowances  int
	Containers  int
	Rate        float64 // submissions a second (Poisson)
	Submissions int
	Limit       int64 // the response limit (0: none)
	// Quotas' limits; a submission matches quota i with probability
	// QuotaShare (disjoint: one choice of 1/QuotaShare), or none.
	Quotas      []int64
	QuotaShare  float64
	ResponseWCU float64       // the submission's own items (its response, key, session...)
	TallyLag    time.Duration // the survey's count lags the submissions
	RaceFor     time.Duration // how long a submission tries while it loses races
	Seed        uint64
}

// CapResult is a run's outcome.
type CapResult struct {
	Recorded      int64   // responses recorded
	QuotaRecorded []int64 // per quota
	Refused       int     // 410
	Busy          int     // 503
	Conflicts     int     // transactions cancelled by a held allowance
	CondFailed    int     // transactions cancelled by a full allowance
	Verifications int     // reads of every allowance (3 BatchGetItems each)
	// CapWCUPerSubmission are the allowances' write units per recorded
	// response (committed writes); TxPerRecorded the transactions sent
	// per recorded response.
	CapWCUPerSubmission float64
	TxPerRecorded       float64
	HotAllowanceWCU     float64 // the busiest allowance's write units a second
	P99                 time.Duration
	// LastPlaces: the p99 latency of the submissions recorded among the
	// last 1 % of the limit's places, and their transactions each.
	LastPlacesP99 time.Duration
	LastPlacesTx  float64
}

type capSub struct {
	id      int
	start   time.Duration
	caps    []int // 0: the limit; i+1: quota i
	cont    int
	tries   int
	attempt int
}

type capHint struct {
	full     []bool
	at       time.Duration // last learned (a mark or a read); the hint lasts 2 s from it
	readAt   time.Duration // last read of every allowance
	verified bool
}

// RunCaps runs the model.
func RunCaps(c CapRun) CapResult {
	rnd := rand.New(rand.NewPCG(c.Seed, c.Seed^0x5851f42d4c957f2d))
	k := c.Allowances
	nCaps := 1 + len(c.Quotas)
	places := make([]int64, nCaps)
	places[0] = c.Limit
	copy(places[1:], c.Quotas)
	// The store's Cap.share: the larger shares start at an offset of
	// each cap's own.
	share := func(ci, a int) int64 {
		p := places[ci]
		if p <= 0 {
			return 0
		}
		j := (a + ci*(k/nCaps+7)) % k
		n := p / int64(k)
		if int64(j) < p%int64(k) {
			n++
		}
		return n
	}
	used := make([][]int64, k)
	for a := range used {
		used[a] = make([]int64, nCaps)
	}
	held := make([]time.Duration, k)
	allowWCU := make([]float64, k)
	hints := make([]map[int]*capHint, c.Containers)
	for i := range hints {
		hints[i] = map[int]*capHint{}
	}
	var q events
	now, seq := time.Duration(0), 0
	at := func(t time.Duration, fn func()) { seq++; heap.Push(&q, event{t: t, seq: seq, fn: fn}) }
	between := func(lo time.Duration) time.Duration { return lo + time.Duration(rnd.Int64N(int64(lo)+1)) }
	res := CapResult{QuotaRecorded: make([]int64, len(c.Quotas))}
	type rec struct {
		t     time.Duration
		count int64
	}
	var history []rec // the limit's count over time, for the tally's lag
	tallied := func() int64 {
		i := sort.Search(len(history), func(i int) bool { return history[i].t > now-c.TallyLag })
		if i == 0 {
			return 0
		}
		return history[i-1].count
	}
	var latencies, lastLat []time.Duration
	var lastTx, capWCU float64
	lastFrom := c.Limit - c.Limit/100
	hintOf := func(s *capSub, ci int) *capHint {
		h := hints[s.cont][ci]
		if h == nil || now-h.at > 2*time.Second {
			h = &capHint{full: make([]bool, k), at: now, readAt: -time.Hour}
			hints[s.cont][ci] = h
		}
		return h
	}
	markFull := func(s *capSub, ci, a int) {
		h := hintOf(s, ci)
		h.full[a] = true
		h.at = now
	}
	free := func(s *capSub, ci int) []int {
		h := hintOf(s, ci)
		var out []int
		for a := range k {
			if share(ci, a) > 0 && !h.full[a] {
				out = append(out, a)
			}
		}
		return out
	}
	// readAll is the store's readCaps: one read of every allowance (3
	// BatchGetItems) tells the container which have room for each of the
	// submission's caps.
	readAll := func(s *capSub) {
		res.Verifications++
		for _, ci := range s.caps {
			h := hintOf(s, ci)
			nFree := 0
			for a := range k {
				h.full[a] = used[a][ci] >= share(ci, a)
				if !h.full[a] && share(ci, a) > 0 {
					nFree++
				}
			}
			h.at, h.readAt, h.verified = now, now, nFree == 0
		}
	}
	var try func(s *capSub)
	finish := func(s *capSub, code int) {
		lat := now - s.start
		switch code {
		case 201:
			latencies = append(latencies, lat)
		case 410:
			res.Refused++
		case 503:
			res.Busy++
		}
	}
	try = func(s *capSub) {
		if c.Limit > 0 && tallied() >= c.Limit {
			at(now+between(c.Rules.ReadLatency), func() { finish(s, 410) })
			return
		}
		picks := make([]int, len(s.caps))
		var common []int
		for i, ci := range s.caps {
			f := free(s, ci)
			if len(f) == 0 {
				h := hintOf(s, ci)
				if !(h.verified && now-h.readAt < time.Second) {
					readAll(s)
					f = free(s, ci)
				}
				if len(f) == 0 {
					at(now+3*between(c.Rules.ReadLatency), func() { finish(s, 410) })
					return
				}
			}
			if i == 0 {
				common = f
			} else {
				common = intersect(common, f)
			}
			picks[i] = f[rnd.IntN(len(f))]
		}
		if len(common) > 0 {
			a := common[rnd.IntN(len(common))]
			for i := range picks {
				picks[i] = a
			}
		}
		s.tries++
		s.attempt++
		distinct := map[int]bool{}
		for _, a := range picks {
			distinct[a] = true
		}
		for a := range distinct {
			if held[a] > now {
				res.Conflicts++
				if now-s.start > c.RaceFor {
					at(now+between(c.Rules.ReadLatency), func() { finish(s, 503) })
					return
				}
				// Read the allowance (the store's learnPlaces: marked full
				// if it has no room), then the store's backoff.
				back := time.Duration(rnd.IntN(8*min(s.attempt, 8)+8)+2) * time.Millisecond
				at(now+between(c.Rules.ReadLatency), func() {
					reread := false
					for i, ci := range s.caps {
						if used[picks[i]][ci] >= share(ci, picks[i]) {
							reread = reread || now-hintOf(s, ci).readAt >= CapReadEvery
							markFull(s, ci, picks[i])
						}
					}
					if reread {
						readAll(s)
						back += 3 * between(c.Rules.ReadLatency)
					}
					at(now+back, func() { try(s) })
				})
				return
			}
		}
		hold := c.Rules.HoldMin + time.Duration(rnd.Int64N(int64(c.Rules.HoldMax-c.Rules.HoldMin)+1))
		failed, reread := false, false
		for i, ci := range s.caps {
			if used[picks[i]][ci] >= share(ci, picks[i]) {
				failed = true
				markFull(s, ci, picks[i])
				reread = reread || now-hintOf(s, ci).readAt >= CapReadEvery
			}
		}
		for a := range distinct {
			held[a] = now + hold
		}
		if failed {
			res.CondFailed++
			if !reread {
				at(now+hold, func() { try(s) })
				return
			}
			// The store's learnPlaces: an allowance found full reads
			// them all (unless this container did within CapReadEvery),
			// so the next try picks one with room.
			at(now+hold, func() {
				readAll(s)
				at(now+3*between(c.Rules.ReadLatency), func() { try(s) })
			})
			return
		}
		for i, ci := range s.caps {
			used[picks[i]][ci]++
			if ci > 0 {
				res.QuotaRecorded[ci-1]++
			}
		}
		for a := range distinct {
			allowWCU[a] += 2
			capWCU += 2
		}
		res.Recorded++
		history = append(history, rec{t: now + hold, count: res.Recorded})
		if c.Limit > 0 && res.Recorded > lastFrom {
			lastTx += float64(s.tries)
			at(now+hold, func() { lastLat = append(lastLat, now-s.start); finish(s, 201) })
			return
		}
		at(now+hold, func() { finish(s, 201) })
	}
	t := time.Duration(0)
	for i := range c.Submissions {
		t += time.Duration(rnd.ExpFloat64() / c.Rate * float64(time.Second))
		s := &capSub{id: i, start: t, cont: rnd.IntN(c.Containers)}
		if c.Limit > 0 {
			s.caps = append(s.caps, 0)
		}
		if len(c.Quotas) > 0 {
			if qi := int(rnd.Float64() / c.QuotaShare); qi < len(c.Quotas) {
				s.caps = append(s.caps, qi+1)
			}
		}
		at(t, func() { try(s) })
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(event)
		now = e.t
		e.fn()
	}
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	sort.Slice(lastLat, func(a, b int) bool { return lastLat[a] < lastLat[b] })
	res.P99, res.LastPlacesP99 = quantile(latencies, 0.99), quantile(lastLat, 0.99)
	if res.Recorded > 0 {
		res.CapWCUPerSubmission = capWCU / float64(res.Recorded)
		res.TxPerRecorded = float64(res.Recorded+int64(res.Conflicts)+int64(res.CondFailed)) / float64(res.Recorded)
	}
	if len(lastLat) > 0 {
		res.LastPlacesTx = lastTx / float64(len(lastLat))
	}
	secs := t.Seconds()
	for _, w := range allowWCU {
		res.HotAllowanceWCU = max(res.HotAllowanceWCU, w/secs)
	}
	return res
}

func intersect(a, b []int) []int {
	in := map[int]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []int
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}
