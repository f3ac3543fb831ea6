package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// Every write of codes is a transaction of up to 99 conditional writes of
// code items and one ADD to a shard of the count, so the count moves
// exactly when, and by exactly as much as, the codes do: no race between
// uploads, no retry and no crash between two calls can make it drift.
//
// A Put is conditional on the code being new (a Delete on it existing).
// When a transaction is cancelled because some of them are not, those
// codes are dropped (they are already as wanted) and the rest are tried
// again at once; a transaction lost to a concurrent one (TransactionConflict)
// or to throttling is tried again after a jittered backoff, a few times.
//
// Retries by the SDK (timeouts, 5xx) resend the same transaction with the
// same ClientRequestToken (Idempotent), so DynamoDB answers a resend of a
// committed transaction with its success instead of running it again. The
// conditions alone would keep the count right without the token: a resent
// committed transaction fails every condition, its codes are dropped and
// nothing is counted twice.
const (
	codeTxCodes      = 97 // code writes a transaction: DynamoDB's 100 actions, less the count's and the two runTx adds
	codeWorkers      = CodeCountShards
	codeTxAttempts   = 6 // tries of one transaction lost to conflicts or throttling
	codeBackoffFirst = 25 * time.Millisecond
	codeBackoffMax   = 400 * time.Millisecond
)

// codeOp is one kind of code write.
type codeOp struct {
	list itemList
	sid  int64
	add  bool // put new codes; else delete existing ones
	// check reads which codes exist before the first attempt, so that a
	// transaction is not sent (and cancelled) for codes already as wanted.
	check bool
	// depth is the survey's code page index depth (codepages.go); 0: not
	// indexed.
	depth int
	// marks: the index was backfilled, and counts exactly the codes that
	// carry the mark (codepages_backfill.go).
	marks bool
}

func (op codeOp) String() string {
	if op.add {
		return fmt.Sprintf("write %s of survey %d", op.list.name, op.sid)
	}
	return fmt.Sprintf("delete %s of survey %d", op.list.name, op.sid)
}

// AddCodes stores the codes (already de-duplicated) for a survey of the
// account, keeping the codes it holds: transactions of 99 codes, 8 in
// flight, each adding the codes it created to the count. When the survey
// already has codes, each chunk is first checked with one BatchGetItem (a
// re-upload of known codes then costs reads only); a survey without codes
// skips the check. ENOTFOUND, survey.ErrSurveyDeleted (409), or EUNAVAILABLE when
// the store stays busy; codes written before a failure stay written and
// counted, and a retry of the upload finishes it.
func (s *Store) AddCodes(ctx context.Context, aid, sid int64, codes []string) error {
	return s.addItems(ctx, codeList, aid, sid, codes)
}

// addItems stores items (already de-duplicated) in a survey's list l, as
// AddCodes describes.
func (s *Store) addItems(ctx context.Context, l itemList, aid, sid int64, codes []string) error {
	sv, count, ix, err := s.listCount(ctx, l, sid)
	switch {
	case err != nil:
		return err
	case sv.AccountID != aid:
		return survey.ErrNotFound
	case sv.Deleted:
		return survey.ErrSurveyDeleted
	}
	if ix.depth < 0 {
		if ix, err = s.newCodePageDepth(ctx, l, sid, count, codes); err != nil {
			return err
		}
	}
	return s.writeCodes(ctx, codeOp{list: l, sid: sid, add: true, check: count > 0, depth: ix.depth, marks: ix.marks}, sliceChunks(codes, ix.depth))
}

// DeleteCodes removes the given codes of a survey of the account (unknown
// ones are ignored) and lowers the count by exactly the codes it removed:
// transactions of 99 conditional deletes, as AddCodes writes.
func (s *Store) DeleteCodes(ctx context.Context, aid, sid int64, codes []string) error {
	return s.deleteItems(ctx, codeList, aid, sid, codes)
}

// deleteItems removes the given items of a survey's list l, as DeleteCodes
// describes.
func (s *Store) deleteItems(ctx context.Context, l itemList, aid, sid int64, codes []string) error {
	ix, err := s.writableCodes(ctx, l, aid, sid)
	if err != nil || ix.depth < 0 {
		return err
	}
	return s.writeCodes(ctx, codeOp{list: l, sid: sid, depth: ix.depth, marks: ix.marks}, sliceChunks(codes, ix.depth))
}

// DeleteAllCodes removes every code of a survey of the account: a Query of
// the code keys, page by page, each chunk of 99 deleted in a transaction
// that lowers the count by as many. The count ends at zero because every
// code deleted took one off it, not because it is reset; codes uploaded
// meanwhile stay, and stay counted.
func (s *Store) DeleteAllCodes(ctx context.Context, aid, sid int64) error {
	return s.deleteAllItems(ctx, codeList, aid, sid)
}

// deleteAllItems removes every item of a survey's list l, as DeleteAllCodes
// describes.
func (s *Store) deleteAllItems(ctx context.Context, l itemList, aid, sid int64) error {
	ix, err := s.writableCodes(ctx, l, aid, sid)
	if err != nil || ix.depth < 0 {
		return err
	}
	depth := ix.depth
	return s.writeCodes(ctx, codeOp{list: l, sid: sid, depth: depth, marks: ix.marks}, func(ctx context.Context, send func([]string) bool) error {
		iter := s.table.Get(AttrPK, l.pk(sid)).Range(AttrSK, dynamo.BeginsWith, l.prefix).
			Project(AttrSK).Consistent(true).Iter()
		chunk := make([]string, 0, codeTxCodes)
		var it codeItem
		for iter.Next(ctx, &it) {
			chunk = append(chunk, strings.TrimPrefix(it.SK, l.prefix))
			if len(chunk) == codeTxCodes {
				// In byte order already: as many as fit with their nodes.
				n := packCodes(chunk, depth)
				if !send(chunk[:n:n]) {
					return nil
				}
				chunk = append(make([]string, 0, codeTxCodes), chunk[n:]...)
			}
		}
		if err := iter.Err(); err != nil {
			return s.fail(fmt.Sprintf("list %s of survey %d", l.name, sid), err)
		}
		for len(chunk) > 0 {
			n := packCodes(chunk, depth)
			if !send(chunk[:n:n]) {
				return nil
			}
			chunk = chunk[n:]
		}
		return nil
	})
}

// writableCodes checks that the survey is the account's and not in the
// trash, and answers its list's page index (depth 0: none), in one read. A
// list without a meta item that never has a count before it (the phone
// list: its meta is written before its first item) answers depth -1: it is
// empty, and a deletion has nothing to do.
func (s *Store) writableCodes(ctx context.Context, l itemList, aid, sid int64) (codeIndex, error) {
	sv, _, ix, err := s.listCount(ctx, l, sid)
	switch {
	case err != nil:
		return codeIndex{}, err
	case sv.AccountID != aid:
		return codeIndex{}, survey.ErrNotFound
	case sv.Deleted:
		return codeIndex{}, survey.ErrSurveyDeleted
	}
	if l.legacyCount {
		ix.depth = max(ix.depth, 0)
	}
	return ix, nil
}

// chunkSource hands chunks of codes to send until it returns false (the
// write has failed and stopped).
type chunkSource func(ctx context.Context, send func([]string) bool) error

// sliceChunks sends codes in byte order (a copy: the caller's order is
// its own), each chunk as many as fit in a transaction with the page
// index's nodes of their prefixes (packCodes; 99 when not indexed).
func sliceChunks(codes []string, depth int) chunkSource {
	codes = append([]string(nil), codes...)
	sort.Strings(codes)
	return func(_ context.Context, send func([]string) bool) error {
		for len(codes) > 0 {
			n := min(len(codes), codeTxCodes, packCodes(codes[:min(len(codes), codeTxCodes)], depth))
			if !send(codes[:n]) {
				return nil
			}
			codes = codes[n:]
		}
		return nil
	}
}

// writeCodes runs op over every chunk of the source with codeWorkers
// workers, each with a count shard of its own (from a random offset, so
// concurrent uploads of one survey rarely share one). After the first
// error no new chunk starts, but those in flight finish: what they write
// stays written (and counted), less for the client's retry to do, and no
// transaction is cut off not knowing whether it committed.
func (s *Store) writeCodes(ctx context.Context, op codeOp, source chunkSource) error {
	var g errgroup.Group
	work := make(chan []string)
	failed := make(chan struct{})
	var once sync.Once
	offset := rand.IntN(CodeCountShards)
	for w := range codeWorkers {
		shard := (offset + w) % CodeCountShards
		g.Go(func() error {
			for chunk := range work {
				if err := s.codeTx(ctx, op, shard, chunk); err != nil {
					once.Do(func() { close(failed) })
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(work)
		return source(ctx, func(chunk []string) bool {
			select {
			case work <- chunk:
				return true
			case <-failed:
				return false
			case <-ctx.Done():
				return false
			}
		})
	})
	return g.Wait()
}

// codeTx writes one chunk (at most 99 codes) and its count change, until
// every code is as op wants it.
func (s *Store) codeTx(ctx context.Context, op codeOp, shard int, codes []string) error {
	if !op.add && (op.depth == 0 || op.marks) {
		return s.codeDeleteTx(ctx, op, shard, codes)
	}
	pending := codes
	if op.check {
		have, err := s.existing(ctx, op.list, op.sid, codes)
		if err != nil {
			return err
		}
		pending = make([]string, 0, len(codes))
		for _, c := range codes {
			if have[c] != op.add {
				pending = append(pending, c)
			}
		}
	}
	started := time.Now()
	for tries := 1; len(pending) > 0; {
		err := s.codeTxOnce(ctx, op, shard, pending, nil)
		if err == nil {
			return nil
		}
		reasons := txReasons(err)
		if again, err := s.codeTxAgain(ctx, op, err, reasons, &tries); again {
			continue
		} else if err != nil {
			return err
		}
		// Codes whose condition failed are already as wanted: drop them.
		// (DynamoDB and moto give a reason for every action, in order,
		// "None" for those that did not fail.)
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
			continue // only conditions failed: the rest goes at once
		case !txRetryable(err):
			return s.fail(op.String(), err) // cancelled for a reason that will not pass
		case !codeTxMore(ctx, err, tries, started):
			return s.fail(op.String(), err)
		}
		if err := codeBackoff(ctx, min(tries, codeTxAttempts)); err != nil {
			return s.fail(op.String(), err)
		}
		tries++
	}
	return nil
}

// codeTxOnce sends one transaction: a conditional Put (or Delete) of each
// code and the ADD of their number to the shard.
//
// A deletion in a survey not indexed since its first code (op.depth == 0,
// or op.marks) is told by marked which codes carry the index's mark: those
// are deleted on the mark and taken off the index, the others on its
// absence, the index untouched (codepages_backfill.go).
func (s *Store) codeTxOnce(ctx context.Context, op codeOp, shard int, codes []string, marked map[string]bool) error {
	tx := s.db.WriteTx().Idempotent(true)
	n := len(codes)
	indexed := codes
	markAware := !op.add && (op.depth == 0 || op.marks)
	if markAware {
		indexed = nil
	}
	for _, c := range codes {
		switch {
		case op.add:
			tx.Put(s.table.Put(codeItem{PK: op.list.pk(op.sid), SK: op.list.sk(c), Mark: op.marks && op.depth > 0}).If("attribute_not_exists(PK)"))
		case markAware && marked[c]:
			tx.Delete(s.table.Delete(AttrPK, op.list.pk(op.sid)).Range(AttrSK, op.list.sk(c)).If("attribute_exists($)", codeMarkAttr))
			indexed = append(indexed, c)
		case markAware:
			tx.Delete(s.table.Delete(AttrPK, op.list.pk(op.sid)).Range(AttrSK, op.list.sk(c)).If("attribute_exists(PK) AND attribute_not_exists($)", codeMarkAttr))
		default:
			tx.Delete(s.table.Delete(AttrPK, op.list.pk(op.sid)).Range(AttrSK, op.list.sk(c)).If("attribute_exists(PK)"))
		}
	}
	if !op.add {
		n = -n
	}
	count := s.table.Update(AttrPK, op.list.pk(op.sid)).Range(AttrSK, CodeCountSK(shard)).Add(AttrCodeCount, n)
	// After the codes (a cancellation's reasons are read by position).
	s.indexCodes(tx, count, codeShard{list: op.list, sid: op.sid, shard: shard, depth: op.depth}, indexed, op.add)
	tx.Update(count)
	return s.runTx(ctx, tx)
}

// codeTxAgain decides on a code transaction that failed with no
// cancellation reasons: a 500 that outlasted the SDK's retries (DynamoDB
// Local's lock timeouts under load) is sent again after a backoff (had it
// committed, its conditions fail and its codes drop), counting *tries;
// another error is returned as the op's failure. With reasons it does
// nothing: the caller reads them.
func (s *Store) codeTxAgain(ctx context.Context, op codeOp, err error, reasons []string, tries *int) (bool, error) {
	if reasons != nil {
		return false, nil
	}
	if serverError(err) && *tries < codeTxAttempts {
		if err := codeBackoff(ctx, *tries); err != nil {
			return false, s.fail(op.String(), err)
		}
		*tries++
		return true, nil
	}
	return false, s.fail(op.String(), err)
}

// codeTxMore reports whether a code transaction cancelled for a reason
// that passes (txRetryable) is tried again after tries: a throttled one
// codeTxAttempts times in all; one lost to concurrent transactions (other
// uploads of the survey share its count shards and index nodes) for as
// long as an owner's write keeps its turn (ownerRetryFor, and never
// within ownerReserve of the request's deadline), so that owners' scripts
// uploading codes at once all land (contract section 3, "Contention").
func codeTxMore(ctx context.Context, err error, tries int, started time.Time) bool {
	if tries < codeTxAttempts {
		return true
	}
	return txConflict(err) && ownerTimeLeft(ctx, started)
}

// codeBackoff waits before try n+1: full jitter under an exponential
// ceiling (25, 50, 100, 200, 400 ms), so that transactions that conflicted
// do not meet again; five waits average under 400 ms in all.
func codeBackoff(ctx context.Context, n int) error {
	ceiling := min(codeBackoffFirst<<(n-1), codeBackoffMax)
	t := time.NewTimer(rand.N(ceiling) + time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
