package store

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/guregu/dynamo/v2"
)

// HalfDeleteFolder leaves a folder as a DeleteFolder that died half way
// would: marked deleting, and only the first n of its surveys (by id) in
// the trash.
func (s *Store) HalfDeleteFolder(ctx context.Context, aid, fid int64, n int) error {
	if err := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).Set("deleting", true).Run(ctx); err != nil {
		return err
	}
	var members []struct {
		SK string `dynamo:"SK"`
		ID int64  `dynamo:"id"`
	}
	err := s.table.Get(AttrGSI1PK, OwnerKey(aid)).Index(IndexGSI1).
		Range(AttrGSI1SK, dynamo.BeginsWith, FolderOwnerSK(fid)+"#S#").All(ctx, &members)
	if err != nil {
		return err
	}
	members = slices.DeleteFunc(members, func(m struct {
		SK string `dynamo:"SK"`
		ID int64  `dynamo:"id"`
	}) bool {
		return m.SK != SurveySK
	})
	sort.Slice(members, func(i, j int) bool { return members[i].ID < members[j].ID })
	for _, m := range members[:min(n, len(members))] {
		err := s.table.Update(AttrPK, SurveyPK(m.ID)).Range(AttrSK, SurveySK).
			Set("deleted", true).Remove(AttrGSI1PK, AttrGSI1SK).Run(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

// PutElementDoc stores an element item with a raw JSON document, as an
// older version of the service may have written it.
func (s *Store) PutElementDoc(ctx context.Context, sid, eid int64, doc string) error {
	return s.table.Put(elementItem{PK: SurveyPK(sid), SK: ElementSK(eid), ID: eid, Doc: doc}).Run(ctx)
}

// ForceIDs makes the next allocations of a kind hand out ids first, one
// per allocation, as a counter that lags behind its items would; the
// kind's lease is dropped so that the next NewID allocates. The Store must
// not be in use by other goroutines while it is called.
func (s *Store) ForceIDs(kind string, ids ...int64) {
	s.ids.drop(kind)
	var mu sync.Mutex
	queue := ids
	next := s.alloc
	s.alloc = func(ctx context.Context, k string, n int) ([]int64, error) {
		mu.Lock()
		if k != kind || len(queue) == 0 {
			mu.Unlock()
			return next(ctx, k, n)
		}
		id := queue[0]
		queue = queue[1:]
		mu.Unlock()
		if n == 1 {
			return []int64{id}, nil
		}
		rest, err := next(ctx, k, n-1)
		return append([]int64{id}, rest...), err
	}
}

// TallyPartialAsBefore adds n to the survey item's partial count with its
// checkpoint of streamShard at record seq, as the tally did before the
// partial count item: what a batch applied then left.
func (s *Store) TallyPartialAsBefore(ctx context.Context, sid int64, streamShard, seq string, n int64) error {
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(AttrPartialCount, n).
		Set(tallyCheckpoint(streamShard), tallyCheckpointValue(partKey(seq, 0))).Run(ctx)
}

// PartialCountItems are the survey's partial count items: the base
// (PartialCountSK) and, by stream shard (of shards), each shard's.
func (s *Store) PartialCountItems(ctx context.Context, sid int64, shards ...string) (base bool, of []string, err error) {
	var items []map[string]any
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.BeginsWith, PartialCountSK).Consistent(true).All(ctx, &items); err != nil {
		return false, nil, err
	}
	for _, it := range items {
		if it[AttrSK] == PartialCountSK {
			base = true
		}
		for _, sh := range shards {
			if it[AttrSK] == partialShardSK(sh) {
				if _, ok := it[tallyCheckpoint(sh)].([]byte); ok {
					of = append(of, sh)
				}
			}
		}
	}
	return base, of, nil
}

// TallyCheckpoints are the checkpoints an item carries, by the stream
// shard (of shards) each is of.
func (s *Store) TallyCheckpoints(ctx context.Context, pk, sk string, shards ...string) (map[string][]byte, error) {
	var item map[string]any
	if err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Consistent(true).One(ctx, &item); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, sh := range shards {
		if b, ok := item[tallyCheckpoint(sh)].([]byte); ok {
			out[sh] = b
		}
	}
	return out, nil
}

// HoldSubmissions runs before just before each submission's transaction
// is sent and after just after each commits (nil: nothing), as a slow
// network or a busy container would hold them. The Store must not be in
// use by other goroutines while it is called.
func (s *Store) HoldSubmissions(before, after func()) {
	s.beforeSubmitTx, s.afterSubmitTx = before, after
}

// OwnerRetryFor is how long an owner's write, and a submission's race,
// tries without a deadline.
const OwnerRetryFor = ownerRetryFor

// OnReplayWait runs f when a replay of a key waits for its response's
// fence.
func (s *Store) OnReplayWait(f func()) { s.replayWaits = f }

// KeepSeenIDsBy makes the counts of limits' bases keep n ids an item.
func (s *Store) KeepSeenIDsBy(n int) { s.seenChunk = n }

// SeenByBase reports whether the count of the base of survey sid's limit
// gen kept response id's.
func (s *Store) SeenByBase(ctx context.Context, sid, gen, id int64) (bool, error) {
	b, found, err := s.readLimitBase(ctx, sid, gen)
	if err != nil || !found {
		return false, err
	}
	return s.limitSeen(ctx, sid, gen, b, id)
}

// CapRoom is the room the allowances' own shares of a cap's counter attr
// leave (each share less its count, summed), and whether every allowance
// has one (a cap given shares: rebase.go).
func (s *Store) CapRoom(ctx context.Context, sid int64, attr string) (room int64, shared bool, err error) {
	used, err := s.allowances(ctx, sid)
	if err != nil {
		return 0, false, err
	}
	shared = true
	for k := range CapAllowances {
		n, ok := used[k][shareAttr(attr)]
		if !ok {
			shared = false
			continue
		}
		room += n - used[k][attr]
	}
	return room, shared, nil
}

// OnCapPlan runs f when a change of a cap has written the shares of a
// closed plan, before it checks them again.
func (s *Store) OnCapPlan(f func()) { s.afterCapPlan = f }

// HoldWithdrawals runs f just before each withdrawal's transaction is
// sent, with the withdrawal's context (nil: nothing). The Store must not
// be in use by other goroutines while it is called.
func (s *Store) HoldWithdrawals(f func(context.Context)) { s.beforeWithdrawTx = f }

// AddView is the views item's own count of a view (countViewDirect) with
// the token and Unix minute given: a retry is the same token again.
func (s *Store) AddView(ctx context.Context, sid int64, token string, minute int64) (bool, error) {
	return s.addView(ctx, sid, token, minute)
}

// HoldCapsLease takes survey sid's caps' lease as a change would, until
// release is called.
func (s *Store) HoldCapsLease(ctx context.Context, sid int64) (release func(), err error) {
	l, err := s.capLease(ctx, sid, "ltestholder", 0, -1)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// CapLeasesTaken is how many leases were taken to plan a cap of survey
// sid (its pseq on the rebase item).
func (s *Store) CapLeasesTaken(ctx context.Context, sid int64, attr string) (int64, error) {
	held, _, err := s.capsRebase(ctx, sid)
	return held[planSeqAttr(attr)], err
}

// BeforeReopenLease runs f when a deletion's reopen has read the rebase
// item and is about to take the caps' lease (nil: nothing).
func (s *Store) BeforeReopenLease(f func()) { s.beforeReopenLease = f }

// BeforePartialState runs f when a partial's save has put its entry,
// before its header or delta.
func (s *Store) BeforePartialState(f func()) { s.beforePartialState = f }
