package ddbsim

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Rules are DynamoDB's, as the model applies them. The defaults are AWS's
// documented limits; Hold is the time a transaction keeps its items, which
// no emulator shows: 10-25 ms is what the issue measured on AWS for a
// transaction of a few items in one region.
type Rules struct {
	// PartitionWCU is what one partition key (and one GSI partition)
	// takes a second; a write past it is throttled. The bucket holds one
	// second of it.
	PartitionWCU float64
	// PartitionRCU is what one partition key (and one GSI partition)
	// reads a second; a read past it is throttled (the SDK retries it).
	PartitionRCU float64
	// HoldMin, HoldMax bound a transaction's hold of its items (uniform).
	HoldMin, HoldMax time.Duration
	// ReadLatency, WriteLatency bound a GetItem's and a single write's
	// round trip (uniform between Min and 2*Min).
	ReadLatency, WriteLatency time.Duration
}

// DefaultRules are DynamoDB's limits with the hold times.
var DefaultRules = Rules{
	PartitionWCU: 1000, PartitionRCU: 3000, HoldMin: 10 * time.Millisecond, HoldMax: 25 * time.Millisecond,
	ReadLatency: 2 * time.Millisecond, WriteLatency: 4 * time.Millisecond,
}

// Retry is the caller's policy, mirrored from the code that sends the
// requests: a transaction cancelled by a conflict is tried again after
// Backoff(attempt) up to TxAttempts times; a throttled single write is
// retried by the SDK (WriteAttempts, jittered backoff up to 500 ms); a
// throttled transaction answers 503 at once (the SDK does not retry a
// TransactionCanceledException).
type Retry struct {
	TxAttempts    int
	Backoff       func(attempt int, r *rand.Rand) time.Duration
	WriteAttempts int
	// For, when set, replaces TxAttempts: a transaction lost to a
	// conflict or a Versioned condition is tried again while the
	// operation has run less than For (an owner's write: ownerRetryFor).
	For time.Duration
	// Rereads: a Versioned condition that failed makes the operation
	// start again from its first request (a read); without it, it is 503.
	Rereads bool
}

// Flow is a stream of operations arriving at Rate a second (Poisson),
// each a sequence of requests sent one after another.
type Flow struct {
	Name string
	Rate float64
	// Retry is the flow's own policy; nil: the run's.
	Retry *Retry
	// Next returns the requests of the i-th operation.
	Next func(i int) []Request
}

// FlowResult is how a flow fared.
type FlowResult struct {
	Name      string
	Ops, OK   int
	Busy      int // answered 503: a conflict past the attempts, or a throttle
	Conflicts int // transaction attempts cancelled by a conflict
	Stale     int // transaction attempts whose Versioned condition failed
	Throttles int // requests throttled
	P50, P99  time.Duration
	WCU       float64 // write units of the operations that succeeded
	WCUPerOp  float64
	RCU       float64 // read units of the operations that succeeded
	RCUPerOp  float64
	latencies []time.Duration
}

// Result is a run's outcome.
type Result struct {
	Flows []FlowResult
	// HotPartition is the partition (or GSI partition, "GSI1:...") that
	// consumed the most write units, and HotWCU its units a second.
	HotPartition string
	HotWCU       float64
	// HotReadPartition is the partition that read the most units, and
	// HotRCU its units a second.
	HotReadPartition string
	HotRCU           float64
	// ReadRCU is every partition's read units a second.
	ReadRCU map[string]float64
	// WriteWCU is every partition's write units a second.
	WriteWCU map[string]float64
}

// Run replays the flows for d of virtual time.
func Run(rules Rules, retry Retry, d time.Duration, seed uint64, flows ...Flow) Result {
	m := &model{rules: rules, retry: retry, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		held: map[string]time.Duration{}, written: map[string]time.Duration{}, buckets: map[string]*bucket{}, used: map[string]float64{},
		readBuckets: map[string]*bucket{}, read: map[string]float64{}}
	res := make([]FlowResult, len(flows))
	for fi, f := range flows {
		res[fi].Name = f.Name
		t := time.Duration(0)
		for i := 0; ; i++ {
			t += time.Duration(m.rnd.ExpFloat64() / f.Rate * float64(time.Second))
			if t >= d {
				break
			}
			op := &op{flow: &res[fi], reqs: f.Next(i), start: t, pass: t, retry: m.retry}
			if f.Retry != nil {
				op.retry = *f.Retry
			}
			res[fi].Ops++
			m.at(t, func() { m.send(op) })
		}
	}
	for m.q.Len() > 0 {
		e := heap.Pop(&m.q).(event)
		m.now = e.t
		e.fn()
	}
	out := Result{Flows: res, WriteWCU: make(map[string]float64, len(m.used))}
	for p, u := range m.used {
		out.WriteWCU[p] = u / d.Seconds()
		if w := u / d.Seconds(); w > out.HotWCU {
			out.HotPartition, out.HotWCU = p, w
		}
	}
	out.ReadRCU = make(map[string]float64, len(m.read))
	for p, u := range m.read {
		out.ReadRCU[p] = u / d.Seconds()
		if r := u / d.Seconds(); r > out.HotRCU {
			out.HotReadPartition, out.HotRCU = p, r
		}
	}
	for i := range out.Flows {
		f := &out.Flows[i]
		sort.Slice(f.latencies, func(a, b int) bool { return f.latencies[a] < f.latencies[b] })
		f.P50, f.P99 = quantile(f.latencies, 0.5), quantile(f.latencies, 0.99)
		if f.OK > 0 {
			f.WCUPerOp = f.WCU / float64(f.OK)
			f.RCUPerOp = f.RCU / float64(f.OK)
		}
	}
	return out
}

func quantile(s []time.Duration, q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[int(math.Ceil(q*float64(len(s))))-1]
}

type op struct {
	flow    *FlowResult
	reqs    []Request
	next    int // request being sent
	attempt int // attempts of the current request
	start   time.Duration
	pass    time.Duration // when the current pass (from the first request) began
	tries   int           // transaction attempts of the operation
	retry   Retry
	wcu     float64
	rcu     float64
}

type model struct {
	rules   Rules
	retry   Retry
	rnd     *rand.Rand
	now     time.Duration
	q       events
	seq     int
	held    map[string]time.Duration // item key -> end of the transaction holding it
	written map[string]time.Duration // item key -> when its last write committed
	buckets map[string]*bucket
	used    map[string]float64 // partition -> write units consumed
	// readBuckets and read are the same for read units.
	readBuckets map[string]*bucket
	read        map[string]float64
}

type bucket struct {
	tokens float64
	at     time.Duration
}

func (m *model) take(p string, units float64) bool {
	return m.takeFrom(m.buckets, m.rules.PartitionWCU, p, units)
}

func (m *model) takeFrom(buckets map[string]*bucket, rate float64, p string, units float64) bool {
	b := buckets[p]
	if b == nil {
		b = &bucket{tokens: rate, at: m.now}
		buckets[p] = b
	}
	b.tokens = math.Min(rate, b.tokens+(m.now-b.at).Seconds()*rate)
	b.at = m.now
	return b.tokens >= units
}

// reads tells whether every partition the read reads has the units, and
// spends them.
func (m *model) reads(r Request) (float64, bool) {
	need := ReadUnits(r)
	if m.rules.PartitionRCU > 0 {
		for p, u := range need {
			if !m.takeFrom(m.readBuckets, m.rules.PartitionRCU, p, u) {
				return 0, false
			}
		}
	}
	total := 0.0
	for p, u := range need {
		if b := m.readBuckets[p]; b != nil {
			b.tokens -= u
		}
		m.read[p] += u
		total += u
	}
	return total, true
}

func (m *model) spend(p string, units float64) {
	m.buckets[p].tokens -= units
	m.used[p] += units
}

func (m *model) at(t time.Duration, fn func()) {
	m.seq++
	heap.Push(&m.q, event{t: t, seq: m.seq, fn: fn})
}

func (m *model) between(lo time.Duration) time.Duration {
	return lo + time.Duration(m.rnd.Int64N(int64(lo)+1))
}

// units is what writing an item costs: per KB (rounded up), doubled in a
// transaction; its GSI writes cost 1 unit per KB each.
func units(it Item, tx bool) (table, gsi float64) {
	kb := math.Ceil(float64(max(it.Bytes, 1)) / 1024)
	table = kb
	if tx {
		table = 2 * kb
	}
	if !it.Check {
		gsi = kb
	}
	return table, gsi
}

// fits tells whether every partition the request writes has the units.
func (m *model) fits(r Request) bool {
	need := map[string]float64{}
	for _, it := range r.Items {
		t, g := units(it, r.Kind == Tx)
		need[it.Partition] += t
		for _, p := range it.GSIs {
			need[p] += g
		}
	}
	for p, u := range need {
		if !m.take(p, u) {
			return false
		}
	}
	for p, u := range need {
		m.spend(p, u)
	}
	return true
}

// Cost is the write units a write request costs by the model's rules
// (0 for a read): what DynamoDB's ConsumedCapacity must say.
func Cost(r Request) float64 {
	if r.Kind == Read {
		return 0
	}
	return (&model{}).cost(r)
}

func (m *model) cost(r Request) float64 {
	total := 0.0
	for _, it := range r.Items {
		t, g := units(it, r.Kind == Tx)
		total += t + g*float64(len(it.GSIs))
	}
	return total
}

func (m *model) send(o *op) {
	if o.next == len(o.reqs) {
		o.flow.OK++
		o.flow.WCU += o.wcu
		o.flow.RCU += o.rcu
		o.flow.latencies = append(o.flow.latencies, m.now-o.start)
		return
	}
	r := o.reqs[o.next]
	o.attempt++
	switch r.Kind {
	case Read:
		u, ok := m.reads(r)
		if !ok {
			o.flow.Throttles++
			m.retryWrite(o)
			return
		}
		o.rcu += u
		m.at(m.now+m.between(m.rules.ReadLatency), func() { m.done(o) })
	case Write:
		for _, it := range r.Items {
			if m.held[it.Key] > m.now {
				// A single write on an item a transaction holds fails
				// with TransactionConflictException; the SDK retries it.
				o.flow.Conflicts++
				m.retryWrite(o)
				return
			}
		}
		if !m.fits(r) {
			o.flow.Throttles++
			m.retryWrite(o)
			return
		}
		o.wcu += m.cost(r)
		m.at(m.now+m.between(m.rules.WriteLatency), func() { m.done(o) })
	case Tx:
		o.tries++
		for _, it := range r.Items {
			if m.held[it.Key] > m.now {
				o.flow.Conflicts++
				m.txAgain(o, false)
				return
			}
		}
		for _, it := range r.Items {
			if it.Versioned && m.written[it.Key] > o.pass {
				o.flow.Stale++
				m.txAgain(o, true)
				return
			}
		}
		if !m.fits(r) {
			o.flow.Throttles++
			m.at(m.now+m.between(m.rules.ReadLatency), func() { m.busy(o) })
			return
		}
		hold := m.rules.HoldMin + time.Duration(m.rnd.Int64N(int64(m.rules.HoldMax-m.rules.HoldMin)+1))
		for _, it := range r.Items {
			m.held[it.Key] = m.now + hold
			if !it.Check {
				m.written[it.Key] = m.now + hold
			}
		}
		o.wcu += m.cost(r)
		m.at(m.now+hold+m.between(m.rules.ReadLatency)/2, func() { m.done(o) })
	}
}

// txAgain decides on a transaction that lost (stale: its Versioned
// condition failed): tried again after the backoff while the policy
// allows, from the operation's first request (a read) when it Rereads;
// else 503. A stale write of an operation that does not reread is 503.
func (m *model) txAgain(o *op, stale bool) {
	p := o.retry
	more := o.attempt < p.TxAttempts
	if p.Rereads {
		more = o.tries < p.TxAttempts
	}
	if p.For > 0 {
		more = m.now-o.start < p.For
	}
	if !more || stale && !p.Rereads {
		m.at(m.now+m.between(m.rules.ReadLatency), func() { m.busy(o) })
		return
	}
	n := o.attempt
	if p.Rereads {
		n = o.tries
	}
	back := p.Backoff(n, m.rnd)
	m.at(m.now+m.between(m.rules.ReadLatency)+back, func() {
		if p.Rereads {
			o.next, o.attempt, o.pass = 0, 0, m.now
		}
		m.send(o)
	})
}

func (m *model) retryWrite(o *op) {
	if o.attempt >= o.retry.WriteAttempts {
		m.at(m.now+m.between(m.rules.ReadLatency), func() { m.busy(o) })
		return
	}
	// The SDK's exponential jitter: rand * min(500 ms, 2^attempt s).
	back := time.Duration(m.rnd.Float64() * float64(500*time.Millisecond))
	m.at(m.now+m.between(m.rules.ReadLatency)+back, func() { m.send(o) })
}

func (m *model) done(o *op) {
	o.next++
	o.attempt = 0
	m.send(o)
}

func (m *model) busy(o *op) {
	o.flow.Busy++
	o.flow.latencies = append(o.flow.latencies, m.now-o.start)
}

type event struct {
	t   time.Duration
	seq int
	fn  func()
}

type events []event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].t != e[j].t {
		return e[i].t < e[j].t
	}
	return e[i].seq < e[j].seq
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// Pool turns a few recorded operations into as many as a run needs: an
// item key that occurs in one recorded operation only (a response, an
// Idempotency-Key) belongs to that operation, so each reuse gets its own
// copy of it; a key several operations share (the survey, a count shard)
// stays shared. Partitions are never renamed (PoolRespelled renames
// them). Every other field of a request (a read's consistency, the units
// DynamoDB reported) is the recorded one.
func Pool(recorded [][]Request) func(i int) []Request {
	return PoolRespelled(recorded, nil)
}

// PoolRespelled is Pool, each operation's requests then handed to
// respell (when not nil) with the operation's number: what a replay of a
// few recorded operations cannot show by itself, such as each simulated
// session its own session hash (and so its own partitions), the caller
// writes in (a copy; the recorded requests are not changed).
func PoolRespelled(recorded [][]Request, respell func(i int, reqs []Request) []Request) func(i int) []Request {
	seen := map[string]map[int]bool{}
	for n, reqs := range recorded {
		for _, r := range reqs {
			for _, it := range r.Items {
				if seen[it.Key] == nil {
					seen[it.Key] = map[int]bool{}
				}
				seen[it.Key][n] = true
			}
		}
	}
	return func(i int) []Request {
		src := recorded[i%len(recorded)]
		out := make([]Request, len(src))
		for k, r := range src {
			out[k] = r
			out[k].Items = make([]Item, len(r.Items))
			for j, it := range r.Items {
				if len(seen[it.Key]) == 1 {
					it.Key += "#" + strconv.Itoa(i)
				}
				it.GSIs = slices.Clone(it.GSIs)
				out[k].Items[j] = it
			}
		}
		if respell != nil {
			out = respell(i, out)
		}
		return out
	}
}
