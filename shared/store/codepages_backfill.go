package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"
)

// codeWriterLifetime bounds how long after the marks meta is created a
// writer that read "no index" before it can still commit an unmarked code:
// uploads and deletions run in the settings function, whose timeout is
// 29 s (template.yaml), and nothing else writes codes. A backfill whose
// counts agree before that has passed waits it out and makes one more
// pass, so that it reports whole only when no such writer is left.
const codeWriterLifetime = 35 * time.Second

// codeBackfillSettle waits d, until the writers that began before a
// survey's marks meta have ended (or, in tests, what codeSettleFor holds
// for the survey: func(context.Context) error).
func codeBackfillSettle(ctx context.Context, sid int64, d time.Duration) error {
	if f, ok := codeSettleFor.Load(sid); ok {
		return f.(func(context.Context) error)(ctx)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var codeSettleFor sync.Map

const (
	codeMarkAttr       = "i"
	codeBackfillPasses = 4
	codeBackfillLeaf   = 32
)

// CodePagesBackfill is what a backfill of one survey's code index did.
type CodePagesBackfill struct {
	Marked   int   `json:"marked"`   // codes counted into the index by this run
	Passes   int   `json:"passes"`   // Queries of the survey's codes
	Codes    int64 `json:"codes"`    // the survey's code count at the end
	Indexed  int64 `json:"indexed"`  // codes the index counts at the end
	Complete bool  `json:"complete"` // the index counts every code: pages start from it
	// Unrepairable: indexed since its first code but out of step with the
	// count (codes written around the store); left as it is.
	Unrepairable bool `json:"unrepairable,omitempty"`
}

// BackfillCodePages builds the code page index of a survey whose codes
// predate it. A survey without codes and without an index is
// left alone: its first upload creates the index.
//
// A code carries a mark saying whether the index counts it, so the backfill
// is exact while the owner uploads and deletes codes:
// docs/data-model.md#backfilling-the-codes-page-index.
func (s *Store) BackfillCodePages(ctx context.Context, sid int64) (CodePagesBackfill, error) {
	var out CodePagesBackfill
	_, count, ix, err := s.codeCount(ctx, sid)
	if err != nil {
		return out, err
	}
	indexed, err := s.codeRootCount(ctx, sid)
	if err != nil {
		return out, err
	}
	out.Codes, out.Indexed = count, indexed
	switch {
	case ix.depth > 0 && indexed == count:
		out.Complete = true
		return out, nil
	case ix.depth > 0 && !ix.marks:
		out.Unrepairable = true
		return out, nil
	case ix.depth < 0 && count == 0:
		return out, nil
	}
	var since time.Time
	if ix.depth <= 0 || !ix.marks {
		if ix, since, err = s.startCodeBackfill(ctx, sid); err != nil {
			return out, err
		}
		if !ix.marks { // an upload created an ordinary index first
			out.Complete = ix.depth > 0
			return out, nil
		}
	} else if since, err = s.codeBackfillSince(ctx, sid); err != nil {
		return out, err
	}
	shard := int(sid % CodeCountShards)
	settled := false
	for out.Passes < codeBackfillPasses+1 {
		out.Passes++
		n, err := s.codeBackfillPass(ctx, sid, ix.depth, &shard)
		if err != nil {
			return out, err
		}
		out.Marked += n
		if _, out.Codes, _, err = s.codeCount(ctx, sid); err != nil {
			return out, err
		}
		if out.Indexed, err = s.codeRootCount(ctx, sid); err != nil {
			return out, err
		}
		if out.Indexed != out.Codes {
			if out.Passes >= codeBackfillPasses {
				break
			}
			continue
		}
		// Whole now; whole for good once no writer that read "no index"
		// is left: wait that out (at once if long past) and look again.
		left := since.Add(codeWriterLifetime).Sub(s.Now())
		_, hooked := codeSettleFor.Load(sid) // a test's writers outlive no function's timeout: wait for them
		if settled || since.IsZero() || left <= 0 && !hooked {
			out.Complete = true
			break
		}
		if err := codeBackfillSettle(ctx, sid, left); err != nil {
			return out, err
		}
		settled = true
	}
	return out, nil
}

// codeBackfillSince reads when the survey's marks meta was created (zero
// for a meta written before that was recorded).
func (s *Store) codeBackfillSince(ctx context.Context, sid int64) (time.Time, error) {
	var m codePageMeta
	err := s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.Equal, codePagesSK).Consistent(true).One(ctx, &m)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return time.Time{}, s.fail(fmt.Sprintf("read the code index of survey %d", sid), err)
	}
	at, _ := time.Parse(time.RFC3339Nano, m.Since)
	return at, nil
}

// startCodeBackfill creates the marks meta of a survey with codes and no
// index. Its depth is chosen from the codes there (one Query, keys only):
// deep enough that a leaf holds at most about codeBackfillLeaf codes (one
// more than the longest prefix shared by two codes codeBackfillLeaf apart
// in byte order), and no shallower than an upload's rule (codePageDepth),
// at most codePageMaxDepth. Of a backfill and an upload at once one
// creates the meta, the other reads it.
func (s *Store) startCodeBackfill(ctx context.Context, sid int64) (codeIndex, time.Time, error) {
	iter := s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.BeginsWith, codePrefix).
		Project(AttrSK).Consistent(true).Iter()
	var window []string // the last codeBackfillLeaf codes
	var firstCode, lastCode string
	deepest, n := 0, 0
	var it codeItem
	for iter.Next(ctx, &it) {
		c := strings.TrimPrefix(it.SK, codePrefix)
		if n == 0 {
			firstCode = c
		}
		if len(window) == codeBackfillLeaf {
			deepest = max(deepest, commonPrefix(window[0], c)+1)
			window = window[1:]
		}
		window = append(window, c)
		lastCode = c
		n++
	}
	if err := iter.Err(); err != nil {
		return codeIndex{}, time.Time{}, s.fail(fmt.Sprintf("read codes of survey %d", sid), err)
	}
	if n == 0 {
		return codeIndex{}, time.Time{}, nil
	}
	depth := min(max(deepest, codePageDepth([]string{firstCode, lastCode})), codePageMaxDepth)
	m := codePageMeta{PK: CodesPK(sid), SK: codePagesSK, Depth: depth, Marks: true, Since: s.Now().UTC().Format(time.RFC3339Nano)}
	err := s.table.Put(m).If("attribute_not_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		err = s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.Equal, codePagesSK).Consistent(true).One(ctx, &m)
	}
	if err != nil {
		return codeIndex{}, time.Time{}, s.fail(fmt.Sprintf("start the code index of survey %d", sid), err)
	}
	at, _ := time.Parse(time.RFC3339Nano, m.Since)
	return codeIndex{depth: m.Depth, marks: m.Marks}, at, nil
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// codeRootCount is how many codes the index counts: the sum of the
// root's attributes over the count shards (one consistent BatchGetItem).
func (s *Store) codeRootCount(ctx context.Context, sid int64) (int64, error) {
	keys := make([]dynamo.Keyed, 0, CodeCountShards)
	for i := range CodeCountShards {
		keys = append(keys, dynamo.Keys{CodesPK(sid), CodeCountSK(i)})
	}
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, s.fail(fmt.Sprintf("read the code index of survey %d", sid), err)
	}
	counts := map[string]int64{}
	codeNodeCounts(items, counts)
	var n int64
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// codeBackfillPass Queries the survey's codes (keys and marks) and counts
// the unmarked ones, a transaction per chunk (packCodes), the count shards
// taken in turn from *shard. It answers how many it marked.
func (s *Store) codeBackfillPass(ctx context.Context, sid int64, depth int, shard *int) (int, error) {
	iter := s.table.Get(AttrPK, CodesPK(sid)).Range(AttrSK, dynamo.BeginsWith, codePrefix).
		Project(AttrSK, codeMarkAttr).Consistent(true).Iter()
	marked := 0
	chunk := make([]string, 0, codeTxCodes)
	flush := func(all bool) error {
		for len(chunk) > 0 && (all || len(chunk) == codeTxCodes) {
			n := packCodes(chunk, depth)
			done, err := s.codeMarkTx(ctx, sid, depth, *shard, chunk[:n:n])
			if err != nil {
				return err
			}
			marked += done
			*shard = (*shard + 1) % CodeCountShards
			chunk = append(make([]string, 0, codeTxCodes), chunk[n:]...)
		}
		return nil
	}
	var it codeItem
	for iter.Next(ctx, &it) {
		if it.Mark {
			continue
		}
		chunk = append(chunk, strings.TrimPrefix(it.SK, codePrefix))
		if err := flush(false); err != nil {
			return marked, err
		}
	}
	if err := iter.Err(); err != nil {
		return marked, s.fail(fmt.Sprintf("list codes of survey %d", sid), err)
	}
	return marked, flush(true)
}

// codeMarkTx marks and counts codes (in byte order, that fit with their
// nodes) in count shard shard, until each is counted or found deleted or
// marked by another; it answers how many it counted.
func (s *Store) codeMarkTx(ctx context.Context, sid int64, depth, shard int, codes []string) (int, error) {
	pending := codes
	what := fmt.Sprintf("backfill the code index of survey %d", sid)
	for tries := 1; len(pending) > 0; {
		tx := s.db.WriteTx().Idempotent(true)
		for _, c := range pending {
			tx.Update(s.table.Update(AttrPK, CodesPK(sid)).Range(AttrSK, CodeSK(c)).Set(codeMarkAttr, true).
				If("attribute_exists(PK) AND attribute_not_exists($)", codeMarkAttr))
		}
		root := s.table.Update(AttrPK, CodesPK(sid)).Range(AttrSK, CodeCountSK(shard))
		s.indexCodes(tx, root, codeShard{list: codeList, sid: sid, shard: shard, depth: depth}, pending, true)
		tx.Update(root)
		err := tx.Run(ctx)
		if err == nil {
			return len(pending), nil
		}
		reasons := txReasons(err)
		if reasons == nil && serverError(err) && tries < codeTxAttempts {
			if err := codeBackoff(ctx, tries); err != nil {
				return 0, s.fail(what, err)
			}
			tries++
			continue
		}
		if reasons == nil {
			return 0, s.fail(what, err)
		}
		rest := pending[:0:0]
		for i, c := range pending {
			if i >= len(reasons) || reasons[i] != "ConditionalCheckFailed" {
				rest = append(rest, c)
			}
		}
		dropped := len(rest) < len(pending)
		pending = rest
		switch {
		case !txRetryable(err) && dropped:
			continue
		case !txRetryable(err), tries == codeTxAttempts:
			return 0, s.fail(what, err)
		}
		if err := codeBackoff(ctx, tries); err != nil {
			return 0, s.fail(what, err)
		}
		tries++
	}
	return 0, nil
}

// existingMarks reads which of the codes (at most 100) the survey holds,
// and which of those carry the index's mark: one consistent BatchGetItem.
func (s *Store) existingMarks(ctx context.Context, l itemList, sid int64, codes []string) (have, marked map[string]bool, err error) {
	keys := make([]dynamo.Keyed, len(codes))
	for i, c := range codes {
		keys[i] = dynamo.Keys{l.pk(sid), l.sk(c)}
	}
	var found []codeItem
	err = s.table.Batch(AttrPK, AttrSK).Get(keys...).Project(AttrSK, codeMarkAttr).Consistent(true).All(ctx, &found)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil, s.fail(fmt.Sprintf("check %s of survey %d", l.name, sid), err)
	}
	have, marked = make(map[string]bool, len(found)), make(map[string]bool, len(found))
	for _, it := range found {
		c := strings.TrimPrefix(it.SK, l.prefix)
		have[c], marked[c] = true, it.Mark
	}
	return have, marked, nil
}

// codeDeleteTx deletes a chunk of codes of a survey not indexed since its
// first code (op.depth 0: none read; or a backfilled index), keeping the
// invariant above: marked codes come off the index, unmarked ones do not.
// With a marks index it reads the marks first; without, it deletes on the
// absence of the mark. A condition that fails (a code deleted, or marked
// by a backfill, since) sends the chunk's rest round again, its marks and
// the survey's index read afresh; never dropped unread.
func (s *Store) codeDeleteTx(ctx context.Context, op codeOp, shard int, codes []string) error {
	pending := codes
	check := op.marks
	var marked map[string]bool
	started := time.Now()
	for tries, rounds := 1, 0; len(pending) > 0; {
		if check {
			have, m, err := s.existingMarks(ctx, op.list, op.sid, pending)
			if err != nil {
				return err
			}
			rest := pending[:0:0]
			for _, c := range pending {
				if have[c] {
					rest = append(rest, c)
				}
			}
			pending, marked = rest, m
			if len(pending) == 0 {
				return nil
			}
			// A chunk packed for no index may not fit with its nodes.
			if n := packCodes(pending, op.depth); n < len(pending) {
				if err := s.codeDeleteTx(ctx, op, shard, pending[:n:n]); err != nil {
					return err
				}
				return s.codeDeleteTx(ctx, op, shard, pending[n:])
			}
		}
		err := s.codeTxOnce(ctx, op, shard, pending, marked)
		if err == nil {
			return nil
		}
		reasons := txReasons(err)
		if again, err := s.codeTxAgain(ctx, op, err, reasons, &tries); again {
			continue
		} else if err != nil {
			return err
		}
		condFailed := false
		for i := range min(len(reasons), len(pending)) {
			condFailed = condFailed || reasons[i] == "ConditionalCheckFailed"
		}
		switch {
		case !txRetryable(err) && condFailed && rounds < codeTxAttempts:
			rounds++
			if !op.marks {
				_, _, ix, err := s.listCount(ctx, op.list, op.sid)
				if err != nil {
					return err
				}
				if ix.marks {
					op.depth, op.marks = ix.depth, true
				}
			}
			check = true
			continue
		case !txRetryable(err), !codeTxMore(ctx, err, tries, started):
			return s.fail(op.String(), err)
		}
		if err := codeBackoff(ctx, min(tries, codeTxAttempts)); err != nil {
			return s.fail(op.String(), err)
		}
		tries++
	}
	return nil
}
