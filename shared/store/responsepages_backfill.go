package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const (
	rpagesBound         = "b"
	rpagesBoundDone     = "bc"
	rpagesBorn          = "bn"
	rpagesBackfillRound = 4
)

// newResponsePagesMeta is the page index's marks item of a new survey:
// its backfill bound set and finished (b = bc), and bn, the same bound,
// saying that the index began with the survey. A survey created after the
// index has no response from before it to backfill, so its tally takes
// the cheap path from its first response (an UpdateItem a node, not a
// transaction: applyResponsePagesByItem), and the reader needs no first
// key of each shard (f<k>) to know where the counts begin
// (responsePageBounds). The bound is a margin before the creation, as a
// backfill's is before its start: a response's key is its submission's
// clock, another container's.
//
// Its switch point (u0, responsepages_rollup.go) is two hours after the
// hour of its creation, as a switched survey's is after its first pass
// (responsePagesSwitch): the tally writes every level below it, and
// only the minute leaves from it on (the roll-up the rest). So a survey
// created while a deployment goes on, whose first responses the earlier
// tally (which knows no switch point) writes to every level, counts them
// once: a key below u0 is on every level whoever wrote it.
func newResponsePagesMeta(sv survey.Survey) map[string]any {
	at := sv.Created.Add(-responsePagesMargin)
	b := keyTime(at.Truncate(time.Second))
	return map[string]any{AttrPK: ResponsePagesPK(sv.ID), AttrSK: rpagesMetaSK, rpagesBound: b, rpagesBoundDone: b, rpagesBorn: b,
		rpagesSwitch: keyTime(at.UTC().Truncate(time.Hour).Add(bornSwitchAfter))}
}

// bornSwitchAfter is how long after the hour of its creation a survey's
// page index switches to the minute leaves (newResponsePagesMeta): longer
// than a deployment.
const bornSwitchAfter = 2 * time.Hour

// createResponsePages adds to tx the Put of a new survey's page index
// marks (newResponsePagesMeta), after tx's items (their indices stay what
// they were).
func (s *Store) createResponsePages(tx *dynamo.WriteTx, sv survey.Survey) *dynamo.WriteTx {
	return tx.Put(s.table.Put(newResponsePagesMeta(sv)))
}

// ResponsePagesBackfill is what a backfill of one survey's response index
// did.
type ResponsePagesBackfill struct {
	Bound     string `json:"bound,omitempty"` // keys below it are counted exactly once Complete
	Responses int    `json:"responses"`       // responses below the bound
	Minutes   int    `json:"minutes"`         // minutes whose counts it changed
	Rounds    int    `json:"rounds"`
	Complete  bool   `json:"complete"`
}

// responsePagesBound reads a survey's backfill bound ("" none).
func (s *Store) responsePagesBound(ctx context.Context, sid int64) (string, error) {
	var meta map[string]string
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.Equal, rpagesMetaSK).
		Project(rpagesBound).Consistent(true).One(ctx, &meta)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return "", s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	return meta[rpagesBound], nil
}

// BackfillResponsePages makes the response page index count every
// response of the survey exactly. A survey already backfilled
// costs one read.
//
// The counts below a fixed bound are set, minute by minute, conditional on
// what was read: docs/data-model.md#backfilling-the-responses-page-index.
func (s *Store) BackfillResponsePages(ctx context.Context, sid int64) (ResponsePagesBackfill, error) {
	var out ResponsePagesBackfill
	var meta map[string]string
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.Equal, rpagesMetaSK).
		Project(rpagesBound, rpagesBoundDone).Consistent(true).One(ctx, &meta)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return out, s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	if b := meta[rpagesBound]; b != "" && meta[rpagesBoundDone] == b {
		return ResponsePagesBackfill{Bound: b, Complete: true}, nil
	}
	out.Bound = meta[rpagesBound]
	if out.Bound == "" {
		b := keyTime(s.Now().Add(-responsePagesMargin).Truncate(time.Second))
		up := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesMetaSK).
			SetExpr("$ = if_not_exists($, ?)", rpagesBound, rpagesBound, b)
		var after map[string]string // the bound alone: the item holds binary checkpoints too
		if err := up.OnlyUpdatedValue(ctx, &after); err != nil {
			return out, s.fail(fmt.Sprintf("start the page index backfill of survey %d", sid), err)
		}
		out.Bound = after[rpagesBound]
	}
	if len(out.Bound) < rpagesCuts[len(rpagesCuts)-1] {
		return out, fmt.Errorf("store: survey %d: page index bound %q is not a time", sid, out.Bound)
	}
	var pending map[string]bool // minutes left; nil: all
	for out.Rounds < rpagesBackfillRound {
		out.Rounds++
		left, n, changed, err := s.responseBackfillRound(ctx, sid, out.Bound, pending)
		if err != nil {
			return out, err
		}
		out.Responses, out.Minutes = n, out.Minutes+changed
		if len(left) == 0 {
			err := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesMetaSK).
				Set(rpagesBoundDone, out.Bound).If("$ = ?", rpagesBound, out.Bound).Run(ctx)
			if err != nil {
				return out, s.fail(fmt.Sprintf("finish the page index backfill of survey %d", sid), err)
			}
			out.Complete = true
			return out, nil
		}
		pending = left
	}
	return out, nil
}

// responseLeaves reads the minute leaves below bound: minute -> the
// attribute of each second -> its count.
func (s *Store) responseLeaves(ctx context.Context, sid int64, bound string) (map[string]map[string]int64, error) {
	var items []dynamo.Item
	err := s.table.Get(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, dynamo.BeginsWith, rpagesNodePrefix).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("read the page index of survey %d", sid), err)
	}
	leafLen := rpagesCuts[len(rpagesCuts)-2]
	out := map[string]map[string]int64{}
	for _, item := range items {
		node := strings.TrimPrefix(skOf(item), rpagesNodePrefix)
		if len(node) != leafLen || node >= bound {
			continue
		}
		secs := map[string]int64{}
		for name, v := range item {
			// Only the seconds below the bound: the minute that holds it
			// is the tally's from the bound on.
			if second, ok := rpagesChild(len(rpagesCuts)-2, node, name); !ok || second >= bound[:rpagesCuts[len(rpagesCuts)-1]] {
				continue
			}
			var n int64
			if err := dynamo.Unmarshal(v, &n); err == nil && n != 0 {
				secs[name] = n
			}
		}
		out[node] = secs
	}
	return out, nil
}

// responseCounts counts the survey's responses with keys below bound, by
// minute and second attribute: one consistent Query of each response
// partition of the base table, keys only.
func (s *Store) responseCounts(ctx context.Context, sid int64, bound string) (map[string]map[string]int64, int, error) {
	out := map[string]map[string]int64{}
	total := 0
	leafLen := rpagesCuts[len(rpagesCuts)-2]
	for shard := range ResponseShards {
		iter := s.table.Get(AttrPK, ResponsesShardPK(sid, shard)).Range(AttrSK, dynamo.BeginsWith, responseSKPrefix).
			Project(AttrGSI1PK, AttrGSI1SK).Consistent(true).Iter()
		var it struct {
			GSI1PK string `dynamo:"GSI1PK"`
			GSI1SK string `dynamo:"GSI1SK"`
		}
		for iter.Next(ctx, &it) {
			key := it.GSI1SK
			if it.GSI1PK == "" || len(key) < rpagesCuts[len(rpagesCuts)-1] || key >= bound {
				continue
			}
			minute := key[:leafLen]
			if out[minute] == nil {
				out[minute] = map[string]int64{}
			}
			out[minute][rpagesChildAttr(len(rpagesCuts)-2, key[:rpagesCuts[len(rpagesCuts)-1]])]++
			total++
			it.GSI1PK, it.GSI1SK = "", ""
		}
		if err := iter.Err(); err != nil {
			return nil, 0, s.fail(fmt.Sprintf("read responses of survey %d", sid), err)
		}
	}
	return out, total, nil
}

// responseBackfillRound sets the counts of the minutes in pending (nil:
// every minute below bound) to the responses'; it answers the minutes
// left for another round, the responses below bound, and the minutes it
// changed.
func (s *Store) responseBackfillRound(ctx context.Context, sid int64, bound string, pending map[string]bool) (map[string]bool, int, int, error) {
	before, err := s.responseLeaves(ctx, sid, bound)
	if err != nil {
		return nil, 0, 0, err
	}
	counts, total, err := s.responseCounts(ctx, sid, bound)
	if err != nil {
		return nil, 0, 0, err
	}
	after, err := s.responseLeaves(ctx, sid, bound)
	if err != nil {
		return nil, 0, 0, err
	}
	minutes := map[string]bool{}
	for m := range before {
		minutes[m] = true
	}
	for m := range after {
		minutes[m] = true
	}
	for m := range counts {
		minutes[m] = true
	}
	order := make([]string, 0, len(minutes))
	for m := range minutes {
		if pending == nil || pending[m] {
			order = append(order, m)
		}
	}
	sort.Strings(order)
	left := map[string]bool{}
	changed := 0
	for _, m := range order {
		if !sameSecondCounts(before[m], after[m]) {
			left[m] = true // a deletion while the responses were read
			continue
		}
		done, wrote, err := s.setMinuteCounts(ctx, sid, m, after[m], counts[m])
		if err != nil {
			return nil, 0, 0, err
		}
		if !done {
			left[m] = true
		}
		if wrote {
			changed++
		}
	}
	return left, total, changed, nil
}

func sameSecondCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// setMinuteCounts moves minute m's second counts from have to want in one
// transaction conditional on have, so that no change since the read is
// overwritten. done false: a condition
// failed (the minute changed since it was read).
func (s *Store) setMinuteCounts(ctx context.Context, sid int64, m string, have, want map[string]int64) (done, wrote bool, err error) {
	attrs := map[string]bool{}
	for a := range have {
		attrs[a] = true
	}
	for a := range want {
		attrs[a] = true
	}
	names := make([]string, 0, len(attrs))
	var sum int64
	for a := range attrs {
		names = append(names, a)
		sum += want[a] - have[a]
	}
	sort.Strings(names)
	changes := false
	for _, a := range names {
		changes = changes || want[a] != have[a]
	}
	if !changes {
		return true, false, nil
	}
	what := fmt.Sprintf("backfill the page index of survey %d", sid)
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx()
		leaf := s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesNodePrefix+m)
		for _, a := range names {
			if d := want[a] - have[a]; d != 0 {
				leaf.Add(a, d)
			}
			if have[a] == 0 {
				leaf.If("(attribute_not_exists($) OR $ = ?)", a, a, 0)
			} else {
				leaf.If("$ = ?", a, have[a])
			}
		}
		tx.Update(leaf)
		if sum != 0 {
			for level := 0; level+2 < len(rpagesCuts); level++ {
				node := m[:rpagesCuts[level]]
				tx.Update(s.table.Update(AttrPK, ResponsePagesPK(sid)).Range(AttrSK, rpagesNodePrefix+node).
					Add(rpagesChildAttr(level, m[:rpagesCuts[level+1]]), sum))
			}
		}
		err := tx.Run(ctx)
		switch {
		case err == nil:
			return true, true, nil
		case dynamo.IsCondCheckFailed(err):
			return false, false, nil
		case (txConflict(err) || serverError(err)) && attempt < tallyAttempts:
			if err := backoff(ctx, attempt); err != nil {
				return false, false, err
			}
		default:
			return false, false, s.fail(what, err)
		}
	}
}
