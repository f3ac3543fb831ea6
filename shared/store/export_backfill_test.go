package store

import "context"

// StaleCodeWrite writes (add) or deletes codes as a writer that read the
// survey before its code index existed would (no index: depth 0): the
// race a backfill must survive, made certain.
func (s *Store) StaleCodeWrite(ctx context.Context, sid int64, codes []string, add bool) error {
	return s.writeCodes(ctx, codeOp{list: codeList, sid: sid, add: add, check: add}, sliceChunks(codes, 0))
}
