package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"
)

// The replay of webhook events (admin replay-webhooks): what the stream
// gave up is dispatched again from the responses themselves. A survey
// with webhooks carries GSI1 keys on its webhooks item, HOOKED#<shard> /
// <sid> (sparse: only surveys with at least one webhook; sharded by survey
// though it changes only when webhooks do), so the replay reads the
// surveys that have webhooks, then each one's responses of the window
// (GSI1 RTIME#<sid>), never the table.

// HookedShards is the partitions of the hooked-surveys index.
const HookedShards = 8

// HookedKey is GSI1PK of the webhooks item of a survey that has webhooks.
func HookedKey(sid int64) string { return fmt.Sprintf("HOOKED#%d", sid%HookedShards) }

// HookedSurveys reads the ids of the surveys of a shard that have
// webhooks: one Query a page of the index.
func (s *Store) HookedSurveys(ctx context.Context, shard int) ([]int64, error) {
	var items []struct {
		SurveyID int64 `dynamo:"survey_id"`
	}
	err := s.table.Get(AttrGSI1PK, fmt.Sprintf("HOOKED#%d", shard)).Index(IndexGSI1).Project("survey_id").All(ctx, &items)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("query hooked surveys of shard %d", shard), err)
	}
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.SurveyID
	}
	return out, nil
}

// ResponsesSubmitted reads the references of a survey's responses
// submitted in [from, to]: one Query of GSI1 RTIME#<sid> a page,
// projecting only what a delivery needs.
func (s *Store) ResponsesSubmitted(ctx context.Context, sid int64, from, to time.Time) ([]ResponseRef, error) {
	var items []struct {
		PK          string `dynamo:"PK"`
		SK          string `dynamo:"SK"`
		SubmittedAt string `dynamo:"submitted_at"`
	}
	err := s.table.Get(AttrGSI1PK, ResponseTimeKey(sid)).Index(IndexGSI1).
		Range(AttrGSI1SK, dynamo.Between, keyTime(from), keyTime(to)+"#~").
		Project(AttrPK, AttrSK, "submitted_at").All(ctx, &items)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
	}
	out := make([]ResponseRef, 0, len(items))
	for _, it := range items {
		if ref, ok := ParseResponseRef(it.PK, it.SK, it.SubmittedAt); ok {
			out = append(out, ref)
		}
	}
	return out, nil
}
