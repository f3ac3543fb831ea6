package store

import (
	"context"
	"fmt"
	"time"

	"surveyservice/shared/survey"
)

// ResponsePagesRollState is a page index's roll-up state: its roll-up
// point, the last whole hour below its marks' exact range (the point a
// roll-up would move it to), and its deletions not rolled up yet.
func (s *Store) ResponsePagesRollState(ctx context.Context, sid int64) (point, top string, pending map[string]int64, err error) {
	meta, roll, err := s.readResponsePagesState(ctx, sid)
	if err != nil {
		return "", "", nil, err
	}
	if _, to, ok := responsePageRange(textAttrs(meta)); ok {
		if t, err := time.Parse(survey.TimestampLayout, to[:len(survey.TimestampLayout)]); err == nil {
			top = keyTime(t.Truncate(time.Hour))
		}
	}
	return roll.point(), top, roll.x, nil
}

// RollUpStale rolls the page index up as a pass would that read its
// state before between ran.
func (s *Store) RollUpStale(ctx context.Context, sid int64, between func()) error {
	meta, roll, err := s.readResponsePagesState(ctx, sid)
	if err != nil {
		return err
	}
	between()
	return s.rollUpResponsePages(ctx, sid, textAttrs(meta), roll)
}

// DeleteResponseStale deletes response rid (GSI1SK key) and takes it off
// the page index in one transaction built before between ran, as a
// deletion that read the index's state before a roll-up committed; it
// answers whether the transaction failed because the roll-up point moved
// past the response (and so deleted nothing).
func (s *Store) DeleteResponseStale(ctx context.Context, sid, rid int64, key string, between func()) (bool, error) {
	tx := s.db.WriteTx().Delete(s.table.Delete(AttrPK, ResponsesShardPK(sid, ResponseShard(rid))).Range(AttrSK, ResponseSK(rid)).If("attribute_exists(PK)"))
	_, roll, err := s.readResponsePagesState(ctx, sid)
	if err != nil {
		return false, err
	}
	moved := s.takeBackResponsePage(tx, 1, sid, key, roll)
	between()
	err = tx.Run(ctx)
	if moved(err) {
		return true, nil
	}
	return false, err
}

// ResponsePagesExactTop is the top of the range a page read counts
// through the index (responsePageBounds: its keys below it are all
// applied), and the items it read to learn it.
func (s *Store) ResponsePagesExactTop(ctx context.Context, sid int64) (string, int, error) {
	_, to, _, _, read, err := s.responsePageBounds(ctx, sid)
	return to, read, err
}

// ResponsePageMarkTop is the exact range's top that marks at these keys
// (the highest applied key of each response shard) give.
func ResponsePageMarkTop(high map[int]string) string {
	meta := map[string]string{}
	for k, h := range high {
		meta[fmt.Sprintf("h%d", k)] = responsePageMark(h)
		meta[fmt.Sprintf("f%d", k)] = keyTime(minKeyTime)
	}
	_, to, _ := responsePageRange(meta)
	return to
}
