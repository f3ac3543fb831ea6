package store

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Integer ids.
//
// The API's ids are small integers (clients treat them as int32), so they
// cannot be random 64-bit values or time-based snowflakes. One counter item
// per kind would be a single hot key taking every create of the service.
// Instead each kind has IDShards counter items; an allocation picks a shard at
// random and ADDs to it atomically. Shard k hands out k, k+16, k+32, ... (id =
// sequence*IDShards + k), so two shards can never produce the same id and a
// counter never goes backwards: ids never repeat, even across failed writes
// (a failed create leaves a gap, which is harmless). Writes spread over 16
// partitions, well beyond what one account or the whole service needs, and a
// batch (an array of variables) takes its n ids in one ADD.
//
// IDShards may never change once ids exist: another value would break the
// residues that keep shards apart.
const IDShards = 16

// Kinds of ids; each has its own counters.
const (
	KindAccount  = "account"
	KindFolder   = "folder"
	KindSurvey   = "survey"
	KindElement  = "element"
	KindVariable = "variable"
	KindResponse = "response"
	KindChoice   = "choice"
	KindWebhook  = "webhook"
	// KindMember numbers the members of accounts (sub_user).
	KindMember = "member"
	// KindTheme numbers the accounts' themes (above the public themes' ids).
	KindTheme = "theme"
)

// maxID keeps ids within int32 for the clients the specification describes.
const maxID = 1<<31 - 1

// NewIDs allocates n ids of a kind in one UpdateItem call.
func (s *Store) NewIDs(ctx context.Context, kind string, n int) ([]int64, error) {
	if n < 1 {
		return nil, nil
	}
	return s.alloc(ctx, kind, n)
}

// addIDs is the allocator: n ids of a kind from one ADD on a random shard.
func (s *Store) addIDs(ctx context.Context, kind string, n int) ([]int64, error) {
	shard := rand.IntN(IDShards)
	var out struct {
		Seq int64 `dynamo:"seq"`
	}
	err := s.table.Update(AttrPK, CounterPK(kind, shard)).Range(AttrSK, "COUNTER").
		Add("seq", n).Value(ctx, &out)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("allocate %d %s ids", n, kind), err)
	}
	ids := make([]int64, n)
	for i := range ids {
		seq := out.Seq - int64(n) + 1 + int64(i)
		ids[i] = seq*IDShards + int64(shard)
	}
	if ids[n-1] > maxID {
		return nil, survey.Errorf(survey.EINTERNAL, "store: %s ids exhausted on shard %d", kind, shard)
	}
	return ids, nil
}

// idLease is how many ids of a kind a Store takes at once: most creates
// then cost no counter call at all. Ids a container never hands out (it was
// recycled) are gaps, which are harmless; ids still never repeat.
const idLease = 16

// responseIDLease is the lease of response ids: a container that takes
// submissions takes many, and each lease is a counter write on the
// submission's path.
const responseIDLease = 256

func leaseOf(kind string) int {
	if kind == KindResponse {
		return responseIDLease
	}
	return idLease
}

// idPools holds a Store's leased, unused ids, by kind.
type idPools struct {
	mu   sync.Mutex
	free map[string][]int64
}

func (p *idPools) take(kind string) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.free[kind]
	if len(ids) == 0 {
		return 0, false
	}
	p.free[kind] = ids[1:]
	return ids[0], true
}

// takeN takes n ids of a kind when the pool holds that many.
func (p *idPools) takeN(kind string, n int) ([]int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.free[kind]
	if len(ids) < n {
		return nil, false
	}
	p.free[kind] = ids[n:]
	return ids[:n:n], true
}

// drop forgets the leased ids of a kind.
func (p *idPools) drop(kind string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.free, kind)
}

func (p *idPools) give(kind string, ids []int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.free == nil {
		p.free = map[string][]int64{}
	}
	p.free[kind] = append(p.free[kind], ids...)
}

// NewID hands out one id of a kind from the Store's lease, taking a new
// lease of idLease ids (responseIDLease for responses; one UpdateItem)
// when it runs out.
func (s *Store) NewID(ctx context.Context, kind string) (int64, error) {
	if id, ok := s.ids.take(kind); ok {
		return id, nil
	}
	ids, err := s.NewIDs(ctx, kind, leaseOf(kind))
	if err != nil {
		return 0, err
	}
	s.ids.give(kind, ids[1:])
	return ids[0], nil
}

// takeIDs hands out n ids of a kind with at most one UpdateItem: from the
// Store's lease when it holds n, else from one NewIDs call of n+idLease ids
// whose rest it keeps for the next writes.
func (s *Store) takeIDs(ctx context.Context, kind string, n int) ([]int64, error) {
	if n < 1 {
		return nil, nil
	}
	if ids, ok := s.ids.takeN(kind, n); ok {
		return ids, nil
	}
	ids, err := s.NewIDs(ctx, kind, n+idLease)
	if err != nil {
		return nil, err
	}
	s.ids.give(kind, ids[n:])
	return ids[:n], nil
}

// idAttempts bounds the fresh ids one create tries before it answers 503.
const idAttempts = 4

// errIDsTaken answers a create whose every id was taken: a counter far
// behind its items. Each attempt pushed the counter on, so a retry later
// gets further.
var errIDsTaken = survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")

// idTaken records that id of a kind was found taken by an item this Store
// did not write: the rest of the kind's lease is dropped (it came from the
// same counter range) and the id's shard is raised to at least the id's
// sequence (a conditional SET: it never lowers a counter that has moved
// on), so neither this container nor another is handed the id again.
//
// A counter can lag behind the items; a create then takes a fresh id
// instead of failing: docs/data-model.md#ids-handed-out-twice.
func (s *Store) idTaken(ctx context.Context, kind string, id int64) error {
	s.ids.drop(kind)
	s.idCollisions.Add(1)
	shard, seq := int(id%IDShards), id/IDShards
	err := s.table.Update(AttrPK, CounterPK(kind, shard)).Range(AttrSK, "COUNTER").
		Set("seq", seq).If("attribute_not_exists(seq) OR seq < ?", seq).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("raise %s counter shard %d past %d", kind, shard, id), err)
	}
	slog.WarnContext(ctx, "store: id handed out twice; counter raised", "kind", kind, "id", id, "shard", shard)
	return nil
}

// IDCollisions is how many new ids this Store found already taken (and
// replaced by fresh ones) since it was made.
func (s *Store) IDCollisions() int64 { return s.idCollisions.Load() }
