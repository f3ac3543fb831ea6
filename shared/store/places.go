package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/singleflight"

	"surveyservice/shared/survey"
)

// Exact caps without a hot item (contract section 25; docs/scale.md, "Exact
// caps"). A cap's places are spread over CapAllowances allowance items,
// each its own partition key:
//
//	CAP#<sid>#<k> / CAP   l<gen>: places of the response limit taken here; q<id>: of quota id
//
// Allowance k holds share(places, k) of a cap's places; a submission takes
// one place of each cap it falls under from one allowance inside its own
// transaction (ADD 1, on the condition that the counter is under the
// share), so the sum over the allowances never passes the cap, whatever
// races: places are neither made nor lost. Nothing is written when a limit
// changes: the shares follow the limit a submission reads. A deleted or
// withdrawn response gives its places back (ADD -1) in its own
// transaction. One item serves every cap of a survey, so a submission
// under the limit and its quotas writes one small item (2 write units)
// while its allowance has room for all of them.

// CapAllowances is how many allowances a survey's caps are spread over:
// at 1,000 submissions a second each takes ~4 a second, far under an
// item's 1,000 write units, and a transaction holding it 10-25 ms meets
// another on it about 7 % of the time (32 allowances: about half).
const CapAllowances = 256

// allowanceSet is a set of allowances, bit k for allowance k.
type allowanceSet [CapAllowances / 64]uint64

func (a *allowanceSet) add(k int)     { a[k/64] |= 1 << (k % 64) }
func (a allowanceSet) has(k int) bool { return a[k/64]&(1<<(k%64)) != 0 }

const capSK = "CAP"

// CapPK is the partition of a survey's allowance k.
func CapPK(sid int64, k int) string {
	return "CAP#" + strconv.FormatInt(sid, 10) + "#" + strconv.Itoa(k)
}

// Cap is one exact cap a submission takes a place of.
type Cap struct {
	// Attr is the cap's counter in the allowances.
	Attr string
	// Places is how many places its allowances hold in all; 0 or less:
	// none (full).
	Places int64
	// Quota is the quota's id; 0 for the response limit. It picks the
	// refusal a full cap answers.
	Quota int64
	// limit is a pending response limit's value: its places are the
	// limit less its base, which the submission waits for
	// (limitbase.go); Places is unknown until then.
	limit, gen int64
	pending    bool
}

// LimitCap is the response limit's cap, from the settings that carry it.
func LimitCap(set survey.Settings) Cap {
	c := Cap{Attr: limitAttr(set.ResponseLimitGen), Places: set.LimitPlaces()}
	if set.ResponseLimitPending && set.ResponseLimit != nil {
		c.Places, c.limit, c.gen, c.pending = 0, *set.ResponseLimit, set.ResponseLimitGen, true
	}
	return c
}

// QuotaCap is a quota's cap.
func QuotaCap(q survey.Quota) Cap { return Cap{Attr: quotaAttr(q.ID), Places: q.Limit, Quota: q.ID} }

func limitAttr(gen int64) string { return "l" + strconv.FormatInt(gen, 10) }
func quotaAttr(id int64) string  { return "q" + strconv.FormatInt(id, 10) }

// capOfAttr is the cap whose counter is attr, without its places: a
// quota's names its id (quotaAttr), a limit's nothing more.
func capOfAttr(attr string) Cap {
	c := Cap{Attr: attr}
	if id, ok := strings.CutPrefix(attr, "q"); ok {
		c.Quota, _ = strconv.ParseInt(id, 10, 64)
	}
	return c
}

// givenAttr is the counter of a cap's places given back in an allowance.
func givenAttr(attr string) string { return "g" + attr }

// refusal is what a submission that finds no place of c answers.
func (c Cap) refusal() error {
	if c.Quota != 0 {
		return survey.ErrQuotaFull
	}
	return survey.ErrSurveyFull
}

// share is allowance k's part of the cap's places. The allowances that
// hold one place more than the rest start at an offset of the cap's own
// (a hash of its counter), so that small caps (quotas of a few dozen)
// do not all sit in the first allowances.
//
// A cap of no places (a response limit at or under its base) has no share
// anywhere, closedShare, until it is given shares of its own (rebase.go):
// a deletion of a response of its base takes a counter under 0, and a
// share of 0 would admit it even while the responses are still over the
// limit.
func (c Cap) share(k int) int64 {
	if c.Places <= 0 {
		return closedShare
	}
	h := fnv.New32a()
	h.Write([]byte(c.Attr))
	j := (k + int(h.Sum32()%CapAllowances)) % CapAllowances
	n := c.Places / CapAllowances
	if int64(j) < c.Places%CapAllowances {
		n++
	}
	return n
}

// How long what a container learned of a cap's allowances is trusted: an
// allowance found full is passed over for capHintFor (a deleted response
// may give it a place back); every allowance read full answers refusals
// without a read for capVerifiedFor.
const (
	capHintFor     = 2 * time.Second
	capVerifiedFor = time.Second
)

// capReadEvery bounds how often a container reads every allowance of a
// survey when it finds one full: as a cap's last places go, learning the
// full allowances one cancelled transaction at a time (hints per
// container, a few submissions each) held allowances long enough to
// starve the others (the model: 14,332 × 503 with 10 quotas); one read
// of them all tells which have room.
const capReadEvery = 250 * time.Millisecond

// capHints is what this container learned of caps' allowances: which are
// full, so that a submission as the last places go picks one with room
// instead of trying each in turn.
type capHints struct {
	mu sync.Mutex
	m  map[string]capHint
	// reads shares one read of a survey's allowances among the
	// container's requests that want it at once: 60 racing for a
	// survey's last places each read all 256 (3 BatchGetItems) and,
	// on a loaded machine, ran past their deadline
	// (TestResponseLimitExactUnderRaces answered 503 to its losers).
	reads singleflight.Group
}

type capHint struct {
	full allowanceSet // allowances found full
	// shares are the allowances' shares as last read (the explicit ones
	// of a cap whose limit changed: rebase.go), nil before any read.
	shares   *[CapAllowances]int64
	at       time.Time // last learned (a mark or a read)
	readAt   time.Time // last read of every allowance
	verified bool      // every allowance read full at readAt
}

func hintKey(sid int64, c Cap) string { return fmt.Sprintf("%d/%s/%d", sid, c.Attr, c.Places) }

func (h *capHints) get(key string, now time.Time) capHint {
	h.mu.Lock()
	defer h.mu.Unlock()
	it, ok := h.m[key]
	if !ok || now.Sub(it.at) > capHintFor {
		return capHint{}
	}
	return it
}

func (h *capHints) set(key string, it capHint) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) > 10_000 {
		h.m = map[string]capHint{}
	}
	h.m[key] = it
}

// forget drops what this container learned of a survey's caps: a place
// given back here (a deletion, a withdrawal) is at once a place to take.
func (h *capHints) forget(sid int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	prefix := strconv.FormatInt(sid, 10) + "/"
	for key := range h.m {
		if strings.HasPrefix(key, prefix) {
			delete(h.m, key)
		}
	}
}

// markFull records allowance k of a cap full.
func (h *capHints) markFull(key string, k int, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	it, ok := h.m[key]
	if !ok || now.Sub(it.at) > capHintFor {
		it = capHint{}
	}
	if h.m == nil {
		h.m = map[string]capHint{}
	}
	it.full.add(k)
	it.at = now
	h.m[key] = it
}

// free are the allowances of c this container does not know to be full;
// when it knows them all full, one strongly consistent BatchGetItem of
// the allowances decides (at most once a capVerifiedFor per container).
//
// An allowance of no share may still have room: a deleted response of a
// response limit's base gives a place back (freedPlaces) in a random
// allowance, most often one of no share, and the read finds it there
// (freeOf). So may one of a cap of no places (a limit at or under its
// base), once a deletion brought the responses under the limit and gave
// its allowances shares of their own (ReopenCaps).
func (s *Store) freeAllowances(ctx context.Context, sid int64, c Cap) ([]int, error) {
	now := time.Now()
	key := hintKey(sid, c)
	h := s.caps.get(key, now)
	free := freeOf(c, h)
	if len(free) > 0 || h.verified && now.Sub(h.readAt) < capVerifiedFor {
		return free, nil
	}
	if err := s.readCaps(ctx, sid, []Cap{c}); err != nil {
		return nil, err
	}
	return freeOf(c, s.caps.get(key, time.Now())), nil
}

// readCaps reads every allowance of a survey (3 BatchGetItems) and
// records, for each of caps, which are full.
func (s *Store) readCaps(ctx context.Context, sid int64, caps []Cap) error {
	keys := make([]string, len(caps))
	for i, c := range caps {
		keys[i] = hintKey(sid, c)
	}
	// The read is shared by every request that needs it at once: it runs
	// with none of their cancellations, only the deadline of the one that
	// started it.
	rctx, cancel := keepDeadline(ctx)
	defer cancel()
	_, err, _ := s.caps.reads.Do(strings.Join(keys, " "), func() (any, error) { return nil, s.readCapsNow(rctx, sid, caps) })
	return err
}

// readCapsNow is readCaps' one read.
func (s *Store) readCapsNow(ctx context.Context, sid int64, caps []Cap) error {
	now := time.Now()
	used, err := s.allowances(ctx, sid)
	if err != nil {
		return err
	}
	owing := false
	for _, c := range caps {
		var full allowanceSet
		shares := new([CapAllowances]int64)
		for k := range CapAllowances {
			shares[k] = c.shareIn(k, used[k])
			if used[k][c.Attr] >= shares[k] {
				full.add(k)
			}
		}
		h := capHint{full: full, shares: shares, at: now, readAt: now}
		h.verified = len(freeOf(c, h)) == 0
		owing = owing || h.verified
		s.caps.set(hintKey(sid, c), h)
	}
	if !owing {
		return nil
	}
	// A cap read full may be a change of its limit cut short (frozen):
	// finish it (rebase.go), and read again.
	rebase, _, err := s.capsRebase(ctx, sid)
	if err != nil {
		return err
	}
	healed, err := s.healCaps(ctx, sid, rebase, caps)
	if err != nil || !healed {
		return err
	}
	return s.readCapsNow(ctx, sid, caps)
}

// freeOf are the allowances of c that h does not know to be full and
// that have a share (Cap.share's, before any read), or that the last read
// of them all found under theirs (a place given back to one of no share).
func freeOf(c Cap, h capHint) []int {
	var free []int
	for k := range CapAllowances {
		share := c.share(k)
		if h.shares != nil {
			share = h.shares[k]
		}
		// An allowance of no share has room only when a read found it
		// under its share (a place given back there: freedPlaces).
		if (share > 0 || h.shares != nil) && !h.full.has(k) {
			free = append(free, k)
		}
	}
	return free
}

// allowances reads a survey's allowances, strongly consistent, in
// BatchGetItems of 100 (3 calls): each one's counters.
func (s *Store) allowances(ctx context.Context, sid int64) ([CapAllowances]map[string]int64, error) {
	var out [CapAllowances]map[string]int64
	keys := make([]dynamo.Keyed, CapAllowances)
	for k := range CapAllowances {
		keys[k] = dynamo.Keys{CapPK(sid, k), capSK}
	}
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return out, s.fail(fmt.Sprintf("read the allowances of survey %d", sid), err)
	}
	for _, it := range items {
		k, ok := allowanceOf(sid, it)
		if ok {
			out[k] = counters(it)
		}
	}
	return out, nil
}

// allowanceOf is the k of an allowance item of survey sid.
func allowanceOf(sid int64, it dynamo.Item) (int, bool) {
	pk, ok := it[AttrPK].(*types.AttributeValueMemberS)
	if !ok {
		return 0, false
	}
	for k := range CapAllowances {
		if pk.Value == CapPK(sid, k) {
			return k, true
		}
	}
	return 0, false
}

// counters are an allowance item's numeric attributes.
func counters(it dynamo.Item) map[string]int64 {
	out := map[string]int64{}
	for name, v := range it {
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			if x, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
				out[name] = x
			}
		}
	}
	return out
}

// CapCount is how many places of a cap are taken: the sum of its counter
// over the allowances (one strongly consistent BatchGetItem), exact at
// once.
func (s *Store) CapCount(ctx context.Context, sid int64, attr string) (int64, error) {
	used, err := s.allowances(ctx, sid)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, u := range used {
		n += u[attr]
	}
	return n, nil
}

// pickPlaces chooses, for each cap of a submission, the allowance it takes
// its place from: one allowance with room for all of them when this
// container knows one (one item written), else each cap's own. A cap with
// no place left answers its refusal (410).
func (s *Store) pickPlaces(ctx context.Context, sid int64, caps []Cap) ([]int, error) {
	if len(caps) == 0 {
		return nil, nil
	}
	frees := make([][]int, len(caps))
	for i, c := range caps {
		free, err := s.freeAllowances(ctx, sid, c)
		if err != nil {
			return nil, err
		}
		if len(free) == 0 {
			return nil, c.refusal()
		}
		frees[i] = free
	}
	common := frees[0]
	for _, f := range frees[1:] {
		common = slices.DeleteFunc(slices.Clone(common), func(k int) bool { return !slices.Contains(f, k) })
	}
	picks := make([]int, len(caps))
	if len(common) > 0 {
		k := common[rand.IntN(len(common))]
		for i := range picks {
			picks[i] = k
		}
		return picks, nil
	}
	for i, f := range frees {
		picks[i] = f[rand.IntN(len(f))]
	}
	return picks, nil
}

// placeWrite is one allowance's update in a submission's transaction: its
// index there, the allowance, and the caps (indexes into the Submission's
// Caps) it takes a place of.
type placeWrite struct {
	at, k int
	caps  []int
}

// takePlaces adds to a submission's transaction, from its n-th write on,
// one Update for each allowance picked: 1 added to each of its caps'
// counters, on the condition that each is under the allowance's share.
func (s *Store) takePlaces(tx *dynamo.WriteTx, sid int64, caps []Cap, picks []int, n int) ([]placeWrite, int) {
	var writes []placeWrite
	for i, k := range picks {
		j := slices.IndexFunc(writes, func(w placeWrite) bool { return w.k == k })
		if j < 0 {
			writes = append(writes, placeWrite{k: k})
			j = len(writes) - 1
		}
		writes[j].caps = append(writes[j].caps, i)
	}
	for i := range writes {
		w := &writes[i]
		u := s.table.Update(AttrPK, CapPK(sid, w.k)).Range(AttrSK, capSK).IncludeItemInCondCheckFail(true)
		for _, ci := range w.caps {
			takePlace(u, caps[ci], w.k)
		}
		tx.Update(u)
		w.at, n = n, n+1
	}
	return writes, n
}

// takePlace adds to u, allowance k's update, 1 taken of cap c, on the
// condition that the allowance has room: its explicit share once the
// cap's limit has changed (rebase.go), else Cap.share's for the places it
// read.
func takePlace(u *dynamo.Update, c Cap, k int) {
	u.Add(c.Attr, 1).If("($ < $ OR (attribute_not_exists($) AND (attribute_not_exists($) OR $ < ?)))",
		c.Attr, shareAttr(c.Attr), shareAttr(c.Attr), c.Attr, c.Attr, c.share(k))
}

// movePlaces adds to an edit's transaction, from its n-th write on, one
// Update for each allowance the edit changes: 1 given back of each
// counter in give (as givePlacesBack) and 1 taken of each cap of take at
// its pick (as takePlaces, on its condition), one Update an allowance
// (a transaction names an item once).
func (s *Store) movePlaces(tx *dynamo.WriteTx, sid int64, give map[string]int, take []Cap, picks []int, n int) ([]placeWrite, int) {
	w := s.allowanceWrites(sid)
	for attr, k := range give {
		w.at(k).Add(attr, -1).Add(givenAttr(attr), 1)
	}
	var writes []placeWrite
	for i, k := range picks {
		takePlace(w.at(k).IncludeItemInCondCheckFail(true), take[i], k)
		j := slices.IndexFunc(writes, func(w placeWrite) bool { return w.k == k })
		if j < 0 {
			writes = append(writes, placeWrite{k: k})
			j = len(writes) - 1
		}
		writes[j].caps = append(writes[j].caps, i)
	}
	return writes, w.addTo(tx, n, writes)
}

// placesOf is what a response records of the places it took: counter ->
// allowance, for its deletion to give them back.
func placesOf(caps []Cap, picks []int) map[string]int {
	if len(picks) == 0 {
		return nil
	}
	out := make(map[string]int, len(caps))
	for i, c := range caps {
		out[c.Attr] = picks[i]
	}
	return out
}

// givePlacesBack adds to tx the Updates that give a response's places
// back (1 taken from each counter in its allowance, and 1 added to the
// cap's count of places given back there, g<counter>, which names each
// time the cap fills: CapFill).
func (s *Store) givePlacesBack(tx *dynamo.WriteTx, sid int64, places map[string]int) {
	w := s.allowanceWrites(sid)
	for attr, k := range places {
		w.at(k).Add(attr, -1).Add(givenAttr(attr), 1)
	}
	w.addTo(tx, 0, nil)
}

// allowanceUpdates are one Update an allowance of a survey (a transaction
// names an item once), built by at and added to a transaction by addTo.
type allowanceUpdates struct {
	s   *Store
	sid int64
	byK map[int]*dynamo.Update
}

func (s *Store) allowanceWrites(sid int64) *allowanceUpdates {
	return &allowanceUpdates{s: s, sid: sid, byK: map[int]*dynamo.Update{}}
}

// at is allowance k's Update.
func (a *allowanceUpdates) at(k int) *dynamo.Update {
	if a.byK[k] == nil {
		a.byK[k] = a.s.table.Update(AttrPK, CapPK(a.sid, k)).Range(AttrSK, capSK)
	}
	return a.byK[k]
}

// addTo adds the Updates to tx in allowance order, from its n-th write on,
// recording in writes where each of theirs is; it returns the next index.
func (a *allowanceUpdates) addTo(tx *dynamo.WriteTx, n int, writes []placeWrite) int {
	for _, k := range slices.Sorted(maps.Keys(a.byK)) {
		tx.Update(a.byK[k])
		if j := slices.IndexFunc(writes, func(w placeWrite) bool { return w.k == k }); j >= 0 {
			writes[j].at = n
		}
		n++
	}
	return n
}

// learnPlaces reads what a cancelled submission met at its allowances:
// an allowance whose condition failed (its item returned) or that another
// transaction held (read again, strongly consistent) is marked full for
// each cap it has no room for, so that the next try picks another. A
// full allowance met makes the container read them all, unless it did
// within capReadEvery (readCaps). It reports whether the next try may
// pick otherwise (an allowance held, or one marked full).
func (s *Store) learnPlaces(ctx context.Context, sid int64, caps []Cap, writes []placeWrite, err error) (bool, error) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false, nil
	}
	now := time.Now()
	cancelled, reread := false, false
	for _, w := range writes {
		if w.at >= len(tce.CancellationReasons) {
			continue
		}
		reason := tce.CancellationReasons[w.at]
		var item dynamo.Item
		switch reasonCode(reason.Code) {
		case "ConditionalCheckFailed":
			item = reason.Item
		case "TransactionConflict":
			rerr := s.table.Get(AttrPK, CapPK(sid, w.k)).Range(AttrSK, dynamo.Equal, capSK).Consistent(true).One(ctx, &item)
			if rerr != nil && !errors.Is(rerr, dynamo.ErrNotFound) {
				return true, s.fail(fmt.Sprintf("read allowance %d of survey %d", w.k, sid), rerr)
			}
		default:
			continue
		}
		// A conflict decides nothing (its holder may fail): pick again. A
		// failed condition marks what it found full.
		cancelled = cancelled || reasonCode(reason.Code) == "TransactionConflict"
		used := counters(item)
		for _, ci := range w.caps {
			c := caps[ci]
			if used[c.Attr] >= c.shareIn(w.k, used) {
				h := s.caps.get(hintKey(sid, c), now)
				reread = reread || now.Sub(h.readAt) >= capReadEvery
				s.caps.markFull(hintKey(sid, c), w.k, now)
				cancelled = true
			}
		}
	}
	if reread {
		return true, s.readCaps(ctx, sid, caps)
	}
	return cancelled, nil
}

func reasonCode(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// freedPlaces are the places a deleted response gives back: those it took,
// and, under a response limit it took no place of (recorded before the
// limit was set: its base), one place of the limit in a random allowance,
// as its deletion lowers the recorded responses the limit counts.
func freedPlaces(took map[string]int, limited bool, gen int64) map[string]int {
	out := maps.Clone(took)
	if !limited {
		return out
	}
	if _, ok := out[limitAttr(gen)]; !ok {
		if out == nil {
			out = map[string]int{}
		}
		out[limitAttr(gen)] = rand.IntN(CapAllowances)
	}
	return out
}
