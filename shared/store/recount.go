package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// recountAttempts bounds the passes taken again because the counts moved.
const recountAttempts = 3

// ErrRecountBusy refuses a recount of a survey the tally may still be
// applying records of.
var ErrRecountBusy = errors.New("survey busy")

// SurveyCounts is what the tally keeps for a survey: its item's
// submitted_responses and spam_responses, and its report's aggregate
// attributes (reports.go) by name, zero ones left out.
type SurveyCounts struct {
	Responses int64            `json:"submitted_responses"`
	Spam      int64            `json:"spam_responses"`
	Report    map[string]int64 `json:"report"`
}

// CountChange is one count's value before and after a recount.
type CountChange struct {
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// SurveyRecount is what RecountSurvey found: how many responses it read
// and each count that differs
// (by its attribute name; report counts under their aggregate name).
type SurveyRecount struct {
	Responses int                    `json:"responses"`
	Changes   map[string]CountChange `json:"changes"`
}

// recountHook, when set (tests only), runs at each stage of a recount:
// "pass" after the responses are read, "write" before the corrections.
var recountHook func(stage string)

// RecountSurvey recounts survey sid: it refuses with
// ErrRecountBusy when a response was submitted or edited within quiet of
// now, or the counts kept moving; with survey.ErrNotFound when there is
// no such survey. With dryRun it writes nothing and answers the
// differences it would correct, whenever the last response came: a look
// is always safe (a difference the tally has not applied yet shows
// as one).
//
// Why the result is exact while the tally keeps running, and the one case
// it leaves to a second run: docs/data-model.md#recounting-a-survey.
func (s *Store) RecountSurvey(ctx context.Context, sid int64, quiet time.Duration, dryRun bool) (SurveyRecount, error) {
	for attempt := 1; ; attempt++ {
		before, err := s.SurveyCounts(ctx, sid)
		if err != nil {
			return SurveyRecount{}, err
		}
		truth, n, last, err := s.countResponses(ctx, sid)
		if err != nil {
			return SurveyRecount{}, err
		}
		if !dryRun && !last.IsZero() && s.Now().Sub(last) < quiet {
			return SurveyRecount{}, fmt.Errorf("%w: survey %d has a response submitted or edited at %s, within the last %s; recount it once it has been quiet that long",
				ErrRecountBusy, sid, last.UTC().Format(time.RFC3339), quiet)
		}
		if recountHook != nil {
			recountHook("pass")
		}
		after, err := s.SurveyCounts(ctx, sid)
		if err != nil {
			return SurveyRecount{}, err
		}
		if !sameCounts(before, after) {
			if attempt == recountAttempts {
				return SurveyRecount{}, fmt.Errorf("%w: survey %d's counts moved during each of %d passes; recount it when it is quiet", ErrRecountBusy, sid, attempt)
			}
			continue
		}
		out := SurveyRecount{Responses: n, Changes: diffCounts(after, truth)}
		if dryRun || len(out.Changes) == 0 {
			return out, nil
		}
		if recountHook != nil {
			recountHook("write")
		}
		return out, s.correctCounts(ctx, sid, after, truth)
	}
}

// SurveyCounts reads a survey's counts, strongly consistent: one GetItem
// of the survey and one BatchGetItem of its aggregate shards.
func (s *Store) SurveyCounts(ctx context.Context, sid int64) (SurveyCounts, error) {
	var sv struct {
		Responses int64 `dynamo:"submitted_responses"`
		Spam      int64 `dynamo:"spam_responses"`
	}
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).
		Project("submitted_responses", AttrSpamResponses).Consistent(true).One(ctx, &sv)
	if errors.Is(err, dynamo.ErrNotFound) {
		return SurveyCounts{}, survey.ErrNotFound
	}
	if err != nil {
		return SurveyCounts{}, s.fail(fmt.Sprintf("read survey %d's counts", sid), err)
	}
	keys := make([]dynamo.Keyed, AggShards)
	for i := range keys {
		keys[i] = dynamo.Keys{AggPK(sid), AggSK(i)}
	}
	var items []map[string]any
	err = s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return SurveyCounts{}, s.fail(fmt.Sprintf("read survey %d aggregates", sid), err)
	}
	c := SurveyCounts{Responses: sv.Responses, Spam: sv.Spam, Report: map[string]int64{}}
	for _, it := range items {
		for k, v := range it {
			if name, _, ok := ReportAttr(k); ok && name == k {
				c.Report[k] += toInt(v)
			}
		}
	}
	maps.DeleteFunc(c.Report, func(_ string, n int64) bool { return n == 0 })
	return c, nil
}

// countResponses counts a survey's responses as the tally would have
// counted their insertions (tallyParts): one Query of each of its 16
// response partitions (strongly consistent, the projection only), never a
// Scan. It answers the counts, how many responses, and the latest time one
// was submitted or edited.
func (s *Store) countResponses(ctx context.Context, sid int64) (SurveyCounts, int, time.Time, error) {
	c := SurveyCounts{Report: map[string]int64{}}
	var n int
	var last time.Time
	for shard := range ResponseShards {
		var items []struct {
			Agg       []string `dynamo:"agg,set"`
			Spam      bool     `dynamo:"spam"`
			Submitted string   `dynamo:"submitted_at"`
			Edited    string   `dynamo:"edited_at"`
		}
		err := s.table.Get(AttrPK, ResponsesShardPK(sid, shard)).Range(AttrSK, dynamo.BeginsWith, responseSKPrefix).
			Project("agg", "spam", "submitted_at", "edited_at").Consistent(true).All(ctx, &items)
		if err != nil {
			return SurveyCounts{}, 0, time.Time{}, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
		}
		for _, it := range items {
			n++
			c.Responses++
			if it.Spam {
				c.Spam++
			}
			c.Report["n"]++
			for _, a := range it.Agg {
				if name, w, ok := ReportAttr(a); ok {
					c.Report[name] += w
				}
			}
			for _, ts := range []string{it.Submitted, it.Edited} {
				if t, err := time.Parse(survey.TimestampLayout, ts); err == nil && t.After(last) {
					last = t
				}
			}
		}
	}
	maps.DeleteFunc(c.Report, func(_ string, n int64) bool { return n == 0 })
	return c, n, last, nil
}

func sameCounts(a, b SurveyCounts) bool {
	return a.Responses == b.Responses && a.Spam == b.Spam && maps.Equal(a.Report, b.Report)
}

// diffCounts names each count that differs between have and want.
func diffCounts(have, want SurveyCounts) map[string]CountChange {
	out := map[string]CountChange{}
	if have.Responses != want.Responses {
		out["submitted_responses"] = CountChange{have.Responses, want.Responses}
	}
	if have.Spam != want.Spam {
		out[AttrSpamResponses] = CountChange{have.Spam, want.Spam}
	}
	for _, m := range []map[string]int64{have.Report, want.Report} {
		for k := range m {
			if have.Report[k] != want.Report[k] {
				out["report."+k] = CountChange{have.Report[k], want.Report[k]}
			}
		}
	}
	return out
}

// correctCounts ADDs want - have: one UpdateItem of the survey item (if
// its counts differ) and of each aggregate shard whose counts differ, an
// update carrying at most tallyUpdateBytes of attributes (more updates for
// a shard with more). ADDs commute with the tally's, and a correction cut
// short leaves counts that a recount run again completes.
func (s *Store) correctCounts(ctx context.Context, sid int64, have, want SurveyCounts) error {
	if d, sp := want.Responses-have.Responses, want.Spam-have.Spam; d != 0 || sp != 0 {
		u := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If("attribute_exists(PK)")
		if d != 0 {
			u.Add("submitted_responses", d)
		}
		if sp != 0 {
			u.Add(AttrSpamResponses, sp)
		}
		if err := u.Run(ctx); err != nil {
			return s.fail(fmt.Sprintf("correct survey %d's counts", sid), err)
		}
	}
	byShard := make([][]string, AggShards)
	for _, k := range slices.Sorted(maps.Keys(want.Report)) {
		if want.Report[k] != have.Report[k] {
			byShard[attrShard(k)] = append(byShard[attrShard(k)], k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(have.Report)) {
		if _, ok := want.Report[k]; !ok {
			byShard[attrShard(k)] = append(byShard[attrShard(k)], k)
		}
	}
	for sh, ks := range byShard {
		for len(ks) > 0 {
			u := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(sh))
			for used := 0; len(ks) > 0 && (used == 0 || used+attrCost(ks[0]) <= tallyUpdateBytes); ks = ks[1:] {
				u.Add(ks[0], want.Report[ks[0]]-have.Report[ks[0]])
				used += attrCost(ks[0])
			}
			if err := u.Run(ctx); err != nil {
				return s.fail(fmt.Sprintf("correct survey %d's report counts", sid), err)
			}
		}
	}
	return nil
}
