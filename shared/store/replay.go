package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"
)

// HookedShards is the partitions of the hooked-surveys index.
const HookedShards = 8

// HookedKey is GSI1PK of the webhooks item of a survey that has webhooks.
func HookedKey(sid int64) string { return fmt.Sprintf("HOOKED#%d", sid%HookedShards) }

// HookedSurveys reads the ids of the surveys of a shard that have
// webhooks: one Query a page of the index.
//
// The replay of webhook events (admin replay-webhooks): what the stream
// gave up is dispatched again from the responses themselves. A survey
// with webhooks carries GSI1 keys on its webhooks item, HOOKED#<shard> /
// <sid> (sparse: only surveys with at least one webhook; sharded by survey
// though it changes only when webhooks do), so the replay reads the
// surveys that have webhooks, then each one's responses of the window
// (GSI1 RTIME#<sid>), never the table.
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
// submitted in [from, to]: one Query of GSI1 RTIME#<sid>[#<shard>] per
// shard (responses.go) a page, projecting only what a delivery needs.
func (s *Store) ResponsesSubmitted(ctx context.Context, sid int64, from, to time.Time) ([]ResponseRef, error) {
	var out []ResponseRef
	for shard := range ResponseShards {
		var items []struct {
			PK          string `dynamo:"PK"`
			SK          string `dynamo:"SK"`
			SubmittedAt string `dynamo:"submitted_at"`
		}
		err := s.table.Get(AttrGSI1PK, ResponseTimeShardKey(sid, shard)).Index(IndexGSI1).
			Range(AttrGSI1SK, dynamo.Between, keyTime(from), keyTime(to)+"#~").
			Project(AttrPK, AttrSK, "submitted_at").All(ctx, &items)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
		}
		for _, it := range items {
			if ref, ok := ParseResponseRef(it.PK, it.SK, it.SubmittedAt); ok {
				out = append(out, ref)
			}
		}
	}
	return out, nil
}

// hookedMarkerPK, hookedMarkerSK are the marker of a complete backfill.
const (
	hookedMarkerPK = "MIGRATION#hooked-index"
	hookedMarkerSK = "DONE"
)

// HookedBackfill is what a backfill did.
type HookedBackfill struct {
	Scanned int64 `json:"scanned"` // items read by the Scan
	Found   int64 `json:"found"`   // webhooks items without the index's keys
	Indexed int64 `json:"indexed"` // given their keys now
	Skipped int64 `json:"skipped"` // changed meanwhile (their change wrote the keys) or without webhooks
}

// BackfillHooked puts in the hooked index every webhooks item that has
// webhooks and lacks its keys, with segments parallel Scan segments, then
// records that the index is complete.
//
// A one-off segmented Scan, since no index finds the items it must fix:
// docs/webhooks.md#backfilling-the-replays-index.
func (s *Store) BackfillHooked(ctx context.Context, segments int) (HookedBackfill, error) {
	var out HookedBackfill
	var sm dynamo.ScanMetrics
	it := s.table.Scan().
		Filter("'SK' = ? AND attribute_not_exists($)", webhooksSK, AttrGSI1PK).
		Project(AttrPK, AttrSK, "survey_id", "doc", "version").
		Consistent(true).ScanMetrics(&sm).
		IterParallel(ctx, max(segments, 1))
	var item webhooksItem
	for it.Next(ctx, &item) {
		out.Found++
		ok, err := s.indexHooked(ctx, item)
		if err != nil {
			return out, err
		}
		if ok {
			out.Indexed++
		} else {
			out.Skipped++
		}
		item = webhooksItem{}
	}
	out.Scanned = sm.Scanned
	if err := it.Err(); err != nil {
		return out, s.fail("scan for webhooks items", err)
	}
	err := s.table.Put(map[string]any{AttrPK: hookedMarkerPK, AttrSK: hookedMarkerSK, "at": s.timestamp(), "indexed": out.Indexed}).Run(ctx)
	if err != nil {
		return out, s.fail("mark the hooked index complete", err)
	}
	return out, nil
}

// indexHooked gives one webhooks item its hooked-index keys, conditional
// on the version read: a change since wrote them itself (or removed the
// last webhook). False when it did not (no webhooks, or changed).
func (s *Store) indexHooked(ctx context.Context, it webhooksItem) (bool, error) {
	var docs []webhookDoc
	if err := json.Unmarshal([]byte(it.Doc), &docs); err != nil || len(docs) == 0 || it.SurveyID == 0 {
		return false, nil
	}
	err := s.table.Update(AttrPK, it.PK).Range(AttrSK, webhooksSK).
		If("version = ? AND attribute_not_exists($)", it.Version, AttrGSI1PK).
		Set(AttrGSI1PK, HookedKey(it.SurveyID)).Set(AttrGSI1SK, pad(it.SurveyID)).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("index the webhooks of survey %d", it.SurveyID), err)
	}
	return true, nil
}

// HookedBackfillDone reports when the backfill last completed (ok false:
// never, and a replay may miss surveys whose webhooks predate the index).
func (s *Store) HookedBackfillDone(ctx context.Context) (at string, ok bool, err error) {
	var m struct {
		At string `dynamo:"at"`
	}
	err = s.table.Get(AttrPK, hookedMarkerPK).Range(AttrSK, dynamo.Equal, hookedMarkerSK).Consistent(true).One(ctx, &m)
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.fail("read the hooked index's marker", err)
	}
	return m.At, true, nil
}
