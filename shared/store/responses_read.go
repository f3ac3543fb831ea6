package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// ResponsePosition is a response's place in its survey's order by
// submission: where a page ends and the next begins.
type ResponsePosition struct {
	SubmittedAt time.Time
	ID          int64
}

// ResponseQuery selects a survey's responses by submission time.
type ResponseQuery struct {
	// After and Before bound the submission time, both excluded; a zero
	// time leaves its side open.
	After, Before time.Time
	// From continues after this response, in the query's order.
	From *ResponsePosition
	// Ascending reads the oldest first; otherwise the newest first.
	Ascending bool
	// Limit is the most responses one Query reads (DynamoDB also stops at
	// 1 MB of items).
	Limit int
	// Spam, when set, keeps only the responses whose spam mark is *Spam
	// (contract section 16's ?spam=). The query then reads on until Limit
	// responses pass (more than one call only where the others fill a
	// page).
	Spam *bool
	// keyLo and keyHi narrow the GSI1SK range further (inclusive; ""
	// open): the page index's regions (responsepages.go).
	keyLo, keyHi string
}

// ResponsePage is what one Query read.
type ResponsePage struct {
	Responses []survey.Response
	// More is true when responses may follow the last one: DynamoDB
	// stopped at the limit or at 1 MB, not at the end of the range.
	More bool
	// Scanned is the number of items DynamoDB read (its ScannedCount).
	Scanned int
}

// Last is the position of the page's last response (nil for none).
func (p ResponsePage) Last() *ResponsePosition {
	if len(p.Responses) == 0 {
		return nil
	}
	r := p.Responses[len(p.Responses)-1]
	return &ResponsePosition{SubmittedAt: r.SubmittedAt, ID: r.ID}
}

// The times a fixed-width timestamp can spell: a key outside them would
// not sort in time order.
var (
	minKeyTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxKeyTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
)

func keyTime(t time.Time) string {
	t = t.UTC()
	if t.Before(minKeyTime) {
		t = minKeyTime
	}
	if t.After(maxKeyTime) {
		t = maxKeyTime
	}
	return t.Format(survey.TimestampLayout)
}

// responseKeyRange turns q into inclusive bounds of GSI1SK ("" for an open
// side); ok is false when no key can be in range.
func responseKeyRange(q ResponseQuery) (lo, hi string, ok bool) {
	if !q.After.IsZero() {
		// Strictly after: from the next microsecond (keys have no finer
		// time), or nothing at all past the last one a key can hold.
		next := q.After.Truncate(time.Microsecond).Add(time.Microsecond)
		if next.After(maxKeyTime) {
			return "", "", false
		}
		lo = keyTime(next)
	}
	if !q.Before.IsZero() {
		b := q.Before.Truncate(time.Microsecond)
		switch {
		case b.Before(q.Before):
			// A sub-microsecond bound: that microsecond's keys are before it.
			hi = keyTime(b) + "#~"
		case !b.After(minKeyTime):
			return "", "", false
		default:
			// Every key of an earlier time sorts below this bare time; keys
			// of this time sort above it ("<time>#<id>").
			hi = keyTime(b)
		}
	}
	if f := q.From; f != nil {
		at := keyTime(f.SubmittedAt) + "#"
		if q.Ascending {
			if k := at + pad(f.ID+1); lo == "" || k > lo {
				lo = k
			}
		} else {
			if k := at + pad(max(f.ID-1, 0)); hi == "" || k < hi {
				hi = k
			}
		}
	}
	if lo != "" && hi != "" && lo > hi {
		return "", "", false
	}
	return lo, hi, true
}

// responsesQuery is the Query of one shard's GSI1 partition that reads
// q's responses, at most limit of them; ok is false when none can match
// (no call needed).
func (s *Store) responsesQuery(sid int64, shard int, q ResponseQuery, limit int) (*dynamo.Query, bool) {
	lo, hi, ok := responseKeyRange(q)
	if !ok || limit < 1 {
		return nil, false
	}
	if q.keyLo != "" && (lo == "" || q.keyLo > lo) {
		lo = q.keyLo
	}
	if q.keyHi != "" && (hi == "" || q.keyHi < hi) {
		hi = q.keyHi
	}
	if lo != "" && hi != "" && lo > hi {
		return nil, false
	}
	query := s.table.Get(AttrGSI1PK, ResponseTimeShardKey(sid, shard)).Index(IndexGSI1)
	switch {
	case q.Spam != nil && *q.Spam:
		query.Filter("spam = ?", true).Limit(limit)
	case q.Spam != nil:
		query.Filter("attribute_not_exists(spam) OR spam = ?", false).Limit(limit)
	default:
		query.SearchLimit(limit)
	}
	switch {
	case lo != "" && hi != "":
		query.Range(AttrGSI1SK, dynamo.Between, lo, hi)
	case lo != "":
		query.Range(AttrGSI1SK, dynamo.GreaterOrEqual, lo)
	case hi != "":
		query.Range(AttrGSI1SK, dynamo.LessOrEqual, hi)
	}
	if !q.Ascending {
		query.Order(dynamo.Descending)
	}
	return query, true
}

// mergedResponses reads q's first limit responses in order across the
// shards: a lazy k-way merge. Each shard is read a little at a time (all
// at once the first time, a few items each: about limit/ResponseShards
// and a couple more), its items kept in a buffer; the merge takes the
// first item of the buffers in q's order, and a shard whose buffer is
// used up while DynamoDB has more of it is read again (twice as much as
// last time, never more than what is still wanted) before the merge goes
// on, because its next item may come first. So a page reads about its own
// items plus a few a shard, not a page from each shard; more says whether
// any shard holds more. project, when given, names the attributes to
// read (GSI1SK is always read).
func (s *Store) mergedResponses(ctx context.Context, sid int64, q ResponseQuery, limit int, project ...string) (items []responseItem, more bool, scanned int, err error) {
	if limit < 1 {
		return nil, false, 0, nil
	}
	before := func(a, b string) bool { // a comes before b in q's order
		if q.Ascending {
			return a < b
		}
		return a > b
	}
	type cursor struct {
		shard   int
		buf     []responseItem
		start   dynamo.PagingKey
		done    bool // DynamoDB has no more of this shard
		size    int  // the Limit of the last read
		refills int
	}
	cursors := make([]*cursor, ResponseShards)
	for shard := range cursors {
		cursors[shard] = &cursor{shard: shard, size: (limit+ResponseShards-1)/ResponseShards + 1}
	}
	var mu sync.Mutex
	read := func(ctx context.Context, c *cursor, n int) error {
		query, ok := s.responsesQuery(sid, c.shard, q, n)
		if !ok {
			c.done = true
			return nil
		}
		if len(project) > 0 {
			query.Project(append(project, AttrGSI1SK)...)
		}
		if c.start != nil {
			query.StartFrom(c.start)
		}
		var sm dynamo.ScanMetrics
		var got []responseItem
		lek, err := query.ScanMetrics(&sm).AllWithLastEvaluatedKey(ctx, &got)
		if err != nil {
			return err
		}
		mu.Lock()
		scanned += int(sm.Scanned)
		mu.Unlock()
		c.buf, c.start, c.done, c.size = got, lek, lek == nil, n
		return nil
	}
	// refill reads, at once, every shard whose buffer is used up and
	// which has more.
	refill := func(first bool) error {
		g, gctx := errgroup.WithContext(ctx)
		for _, c := range cursors {
			if c.done || len(c.buf) > 0 {
				continue
			}
			// The first refill of a shard guesses its share of what is
			// still wanted; the next ones double (a range where one shard
			// holds most responses takes a few reads, not one per item).
			n, rest := c.size, limit-len(items)
			switch {
			case first:
			case c.refills == 0:
				n = (rest+ResponseShards-1)/ResponseShards + 1
			default:
				n = min(2*c.size, rest)
			}
			if !first {
				c.refills++
			}
			g.Go(func() error { return read(gctx, c, max(n, 1)) })
		}
		return g.Wait()
	}
	if err := refill(true); err != nil {
		return nil, false, scanned, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
	}
	for len(items) < limit {
		needs := false
		for _, c := range cursors {
			needs = needs || (len(c.buf) == 0 && !c.done)
		}
		if needs {
			if err := refill(false); err != nil {
				return nil, false, scanned, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
			}
			continue
		}
		var next *cursor
		for _, c := range cursors {
			if len(c.buf) > 0 && (next == nil || before(c.buf[0].GSI1SK, next.buf[0].GSI1SK)) {
				next = c
			}
		}
		if next == nil {
			break // every shard read to its end
		}
		items = append(items, next.buf[0])
		next.buf = next.buf[1:]
	}
	for _, c := range cursors {
		more = more || len(c.buf) > 0 || !c.done
	}
	return items, more, scanned, nil
}

// ResponsesPage reads one page of a survey's responses in submission
// order: one Query per shard, each reading at most q.Limit items (fewer
// when they pass 1 MB) and one more, which only tells whether another
// page follows: a full last page then says there is none, rather than
// sending the client to an empty page. It does not check the survey's
// owner: callers read the survey too (Survey, SurveyCollection) and answer
// ENOTFOUND for another account's. GSI1 is eventually consistent: a
// response submitted a moment ago may be missing from the page.
//
// The owner's reads of responses and their deletion (contract section 12).
// A page merges Queries of GSI1 RTIME#<sid>[#<shard>], each shard read a
// little at a time (mergedResponses, a lazy k-way merge): the filters and the cursor are key conditions on GSI1SK
// (<submitted_at>#<rid>, the same order in every shard), never filter
// expressions, so DynamoDB reads only items in range, and a cursor (a
// position in that order) continues every shard at once.
func (s *Store) ResponsesPage(ctx context.Context, sid int64, q ResponseQuery) (ResponsePage, error) {
	page := ResponsePage{Responses: []survey.Response{}}
	items, more, scanned, err := s.mergedResponses(ctx, sid, q, q.Limit+1)
	if err != nil {
		return ResponsePage{}, err
	}
	if len(items) > q.Limit {
		items, more = items[:q.Limit], true
	}
	page.Responses = make([]survey.Response, 0, len(items))
	for _, it := range items {
		r, err := it.response()
		if err != nil {
			return ResponsePage{}, err
		}
		page.Responses = append(page.Responses, r)
	}
	page.More, page.Scanned = more && len(items) > 0, scanned
	return page, nil
}

// responseKeys are where a response may be: its shard, and shard 0 (where
// responses written before the shards are).
func responseKeys(sid, rid int64) []dynamo.Keyed {
	keys := []dynamo.Keyed{dynamo.Keys{ResponsesShardPK(sid, ResponseShard(rid)), ResponseSK(rid)}}
	if ResponseShard(rid) != 0 {
		keys = append(keys, dynamo.Keys{ResponsesPK(sid), ResponseSK(rid)})
	}
	return keys
}

// Response reads one response of a survey of the account: one strongly
// consistent BatchGetItem of the survey and the response. A missing
// response, or a missing or foreign survey, answers ENOTFOUND.
func (s *Store) Response(ctx context.Context, aid, sid, rid int64) (survey.Response, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(append([]dynamo.Keyed{dynamo.Keys{SurveyPK(sid), SurveySK}}, responseKeys(sid, rid)...)...).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Response{}, s.fail(fmt.Sprintf("get response %d of survey %d", rid, sid), err)
	}
	var r survey.Response
	owned, found := false, false
	for _, item := range items {
		if skOf(item) == SurveySK {
			sv, err := decodeSurvey(item)
			if err != nil {
				return survey.Response{}, err
			}
			owned = sv.AccountID == aid
			continue
		}
		if r, err = decodeResponse(item); err != nil {
			return survey.Response{}, err
		}
		found = true
	}
	if !owned || !found {
		return survey.Response{}, survey.ErrNotFound
	}
	return r, nil
}

// deleteAttempts bounds the retries of a response deletion that the page
// index's roll-up moved past (a conflict is retried as an owner's write).
const deleteAttempts = 5

// DeleteResponse deletes one response of a live survey of the account. It
// answers ENOTFOUND (missing response, missing or foreign survey),
// survey.ErrSurveyDeleted (409) for a survey in the trash, or EUNAVAILABLE.
// A code or link the response spent stays spent.
//
// One strongly consistent BatchGetItem reads the survey (live, the
// account's?) and the response; then a submitted response (the tally's
// mark) is deleted by one transaction of a conditional Delete of that item
// and its page index's nodes (responsepages.go: -1 in each of 5 nodes,
// written otherwise only by the tally's index pass, so a conflict is rare
// and retried), and the tally
// takes it back from the survey's submitted_responses, spam_responses and
// report counts when the removal reaches it on the stream (exactly once:
// tally.go). However many deletions race, one removes the item (the
// losers find it gone), so the counts drop once. A response counted
// before the tally (no mark: an import, or one submitted before the tally
// existed) is deleted as it was: in one transaction with the survey's
// count (conditional on the survey being live) and its report shard.
func (s *Store) DeleteResponse(ctx context.Context, aid, sid, rid int64) error {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(append([]dynamo.Keyed{dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{SurveyPK(sid), settingsSK},
			dynamo.Keys{ResponsePagesPK(sid), rpagesMetaSK}, dynamo.Keys{ResponsePagesPK(sid), rpagesRollSK}}, responseKeys(sid, rid)...)...).
		Project(AttrPK, AttrSK, "account_id", "deleted", "agg_shard", "agg", "spam", "tally", AttrGSI1SK, "places", "response_limit", "response_limit_gen",
			"response_limit_pending", rpagesSwitch, rpagesRollAt).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return s.fail(fmt.Sprintf("read response %d", rid), err)
	}
	var (
		sv struct {
			AccountID int64 `dynamo:"account_id"`
			Deleted   bool  `dynamo:"deleted"`
		}
		old struct {
			PK          string         `dynamo:"PK"`
			Shard       *int           `dynamo:"agg_shard"` // nil: not counted
			ReportAttrs []string       `dynamo:"agg,set"`
			Spam        bool           `dynamo:"spam"`
			Tally       bool           `dynamo:"tally"`
			TimeKey     string         `dynamo:"GSI1SK"`
			Places      map[string]int `dynamo:"places"`
		}
		limit struct {
			Limit   *int64 `dynamo:"response_limit"`
			Gen     int64  `dynamo:"response_limit_gen"`
			Pending bool   `dynamo:"response_limit_pending"`
		}
	)
	foundSurvey, found := false, false
	var pages rpagesRoll // the page index's switch and roll-up points
	for _, item := range items {
		var derr error
		var points struct {
			Switch string `dynamo:"u0"`
			At     string `dynamo:"u"`
		}
		switch skOf(item) {
		case SurveySK:
			derr, foundSurvey = dynamo.UnmarshalItem(item, &sv), true
		case settingsSK:
			derr = dynamo.UnmarshalItem(item, &limit)
		case rpagesMetaSK:
			derr = dynamo.UnmarshalItem(item, &points)
			pages.switchAt = points.Switch
		case rpagesRollSK:
			derr = dynamo.UnmarshalItem(item, &points)
			pages.at = points.At
		default:
			derr, found = dynamo.UnmarshalItem(item, &old), true
		}
		if derr != nil {
			return fmt.Errorf("store: decode response %d: %w", rid, derr)
		}
	}
	switch {
	case !foundSurvey || sv.AccountID != aid:
		return survey.ErrNotFound
	case sv.Deleted:
		return survey.ErrSurveyDeleted
	case !found:
		return survey.ErrNotFound
	}
	if limit.Limit != nil && limit.Pending {
		// A response without a place of a limit whose base is being
		// counted frees one once it is counted in it (limitbase.go).
		if _, err := s.limitBaseOf(ctx, sid, limit.Gen); err != nil {
			return err
		}
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx().Idempotent(true).
			Delete(s.table.Delete(AttrPK, old.PK).Range(AttrSK, ResponseSK(rid)).If("attribute_exists(PK)"))
		if !old.Tally {
			// Counted before the tally: its counts come back here.
			count := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add("submitted_responses", -1)
			if old.Spam {
				count.Add(AttrSpamResponses, -1)
			}
			tx.Update(count.If(surveyWritable, aid, false))
			if old.Shard != nil {
				agg := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(*old.Shard))
				n := map[string]int64{"n": -1}
				for _, c := range old.ReportAttrs {
					if name, w, ok := ReportAttr(c); ok {
						n[name] -= w
					}
				}
				for name, d := range n {
					agg.Add(name, d)
				}
				tx.Update(agg)
			}
		}
		at := 1 // the items tx holds so far
		if !old.Tally {
			at++
			if old.Shard != nil {
				at++
			}
		}
		if attempt > 1 {
			if _, pages, err = s.readResponsePagesState(ctx, sid); err != nil {
				return err
			}
		}
		moved := s.takeBackResponsePage(tx, at, sid, old.TimeKey, pages)
		freed := freedPlaces(old.Places, limit.Limit != nil, limit.Gen)
		s.givePlacesBack(tx, sid, freed)
		err = s.runTx(ctx, tx)
		switch {
		case err == nil:
			s.caps.forget(sid)
			if len(freed) > 0 {
				s.reopenAfter(ctx, sid, freed)
			}
			return nil
		case !old.Tally && txFailedAt(err, 1):
			if err := s.checkWritable(ctx, aid, sid); err != nil {
				return err
			}
			// Live after all (restored a moment ago): the response decides.
			if txFailedAt(err, 0) {
				return survey.ErrNotFound
			}
			return errBusy
		case txFailedAt(err, 0):
			return survey.ErrNotFound
		case moved(err) && attempt < deleteAttempts:
			// The page index rolled up past the response: again, below it.
		case retryOwnerConflict(ctx, err, attempt, started):
			// Another deletion of the survey holds its page index's nodes
			// (or the tally does): deletions that can all succeed all do
			// (contract section 3, "Contention"), as an owner's write.
		default:
			return s.fail(fmt.Sprintf("delete response %d of survey %d", rid, sid), err)
		}
	}
}

// CountResponses is the exact number of recorded responses of q's time
// bounds (q.Spam nil; q's order, position and limit are ignored): through
// the responses' page index where it counts them (a few of its items, and
// the keys of the responses newer than its marks, about a minute's), else
// by reading every key in the bounds. Its reads of the responses are
// GSI1's, which show a response within a moment of its commit. It serves
// the base of a response limit set where there was none (contract section
// 25): the responses recorded before it, which the tally's count may not
// show yet.
func (s *Store) CountResponses(ctx context.Context, sid int64, q ResponseQuery) (int64, error) {
	const all = math.MaxInt32
	q.From, q.Ascending, q.Limit, q.Spam = nil, true, 0, nil
	pos, _, ok, passed, err := s.skipIndexedCounting(ctx, sid, q, all)
	switch {
	case err != nil:
		return 0, err
	case ok && pos == nil:
		return int64(passed), nil
	case ok:
		return all, nil
	}
	var n int64
	err = s.eachResponseKey(ctx, sid, q, func(keys []responseItem) { n += int64(len(keys)) })
	return n, err
}

// eachResponseKey hands the keys (id, submitted_at) of the responses of
// q's time bounds (from q.From on, in q's order) to each, up to
// skipChunk of every shard at a time, reading GSI1.
func (s *Store) eachResponseKey(ctx context.Context, sid int64, q ResponseQuery, each func([]responseItem)) error {
	for {
		keys, more, _, err := s.mergedResponses(ctx, sid, q, skipChunk, "id", "submitted_at")
		if err != nil {
			return err
		}
		each(keys)
		if len(keys) == 0 || !more {
			return nil
		}
		k := keys[len(keys)-1]
		at, err := time.Parse(survey.TimestampLayout, k.Submitted)
		if err != nil {
			return fmt.Errorf("store: response %d: submitted_at: %w", k.ID, err)
		}
		q.From = &ResponsePosition{SubmittedAt: at, ID: k.ID}
	}
}

// skipChunk is the most keys one Query of SkipResponses asks for; DynamoDB
// also stops at 1 MB of items read.
const skipChunk = 10000

// SkipResponses passes over the first n responses of q (q.Limit is
// ignored), reading their keys only, and answers the position of the n-th
// (nil when there are fewer) and the items read. It serves page numbers,
// which DynamoDB cannot jump to: page k of a query starts after the
// (k-1)*size-th response. Each round reads up to skipChunk keys of every
// shard and passes over the ones certain to come first.
func (s *Store) SkipResponses(ctx context.Context, sid int64, q ResponseQuery, n int) (*ResponsePosition, int, error) {
	if n < 1 {
		return nil, 0, nil
	}
	if pos, read, ok, err := s.skipIndexed(ctx, sid, q, n); ok || err != nil {
		return pos, read, err
	}
	var last *ResponsePosition
	scanned := 0
	for n > 0 {
		keys, more, read, err := s.mergedResponses(ctx, sid, q, min(n, skipChunk), "id", "submitted_at")
		scanned += read
		if err != nil {
			return nil, scanned, err
		}
		if len(keys) == 0 {
			return nil, scanned, nil
		}
		k := keys[min(n, len(keys))-1]
		at, err := time.Parse(survey.TimestampLayout, k.Submitted)
		if err != nil {
			return nil, scanned, fmt.Errorf("store: response %d: submitted_at: %w", k.ID, err)
		}
		last = &ResponsePosition{SubmittedAt: at, ID: k.ID}
		n -= min(n, len(keys))
		if n > 0 && !more {
			return nil, scanned, nil
		}
		q.From = last
	}
	return last, scanned, nil
}
