package store

import (
	"context"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/survey"
)

// SeedResponses writes response items exactly as the submission writes
// them, without the rest of its transaction (the survey's count, the
// Idempotency-Key): for tests and measurements of what consumes responses
// (the webhooks' dispatch). BatchWriteItem, 25 items a call.
func (s *Store) SeedResponses(ctx context.Context, rs []survey.Response) error {
	items := make([]any, len(rs))
	for i, r := range rs {
		it, err := newResponseItem(r)
		if err != nil {
			return err
		}
		items[i] = it
	}
	for start := 0; start < len(items); start += 25 {
		if _, err := s.table.Batch().Write().Put(items[start:min(start+25, len(items))]...).Run(ctx); err != nil {
			return s.fail("seed responses", err)
		}
	}
	return nil
}

// ResponseRef is what the dispatch of a response's events needs of it.
type ResponseRef struct {
	SurveyID, ResponseID int64
	SubmittedAt          time.Time
}

// ParseResponseRef reads a response item's keys and submission time (from
// a stream record's image); ok is false for an item that is not a response
// or is malformed.
func ParseResponseRef(pk, sk, submitted string) (ResponseRef, bool) {
	sid, ok1 := paddedID(strings.TrimPrefix(pk, "RESPONSES#"), strings.HasPrefix(pk, "RESPONSES#"))
	rid, ok2 := paddedID(strings.TrimPrefix(sk, responseSKPrefix), strings.HasPrefix(sk, responseSKPrefix))
	at, err := time.Parse(survey.TimestampLayout, submitted)
	if !ok1 || !ok2 || err != nil || len(submitted) != len(survey.TimestampLayout) {
		return ResponseRef{}, false
	}
	return ResponseRef{SurveyID: sid, ResponseID: rid, SubmittedAt: at.UTC()}, true
}

func paddedID(s string, prefixed bool) (int64, bool) {
	if !prefixed || len(s) != 20 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil || n == 0 {
		return 0, false
	}
	return int64(n), true
}

// SeedAggregate adds counts to one of a survey's report shards (reports.go)
// as submissions would, for tests and measurements that seed responses
// with SeedResponses: one UpdateItem.
func (s *Store) SeedAggregate(ctx context.Context, sid int64, shard int, counts map[string]int64) error {
	u := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(shard))
	for k, n := range counts {
		u.Add(k, n)
	}
	if err := u.Run(ctx); err != nil {
		return s.fail("seed report counts", err)
	}
	return nil
}
