package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// The owner's reads of responses and their deletion (contract section 12).
// A page is one Query of GSI1 RTIME#<sid>: the filters and the cursor are
// key conditions on GSI1SK (<submitted_at>#<rid>), never filter
// expressions, so DynamoDB reads exactly the items it returns.

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

// responsesQuery is the one Query of GSI1 that reads q's responses, at
// most limit of them; ok is false when none can match (no call needed).
func (s *Store) responsesQuery(sid int64, q ResponseQuery, limit int) (*dynamo.Query, bool) {
	lo, hi, ok := responseKeyRange(q)
	if !ok || limit < 1 {
		return nil, false
	}
	query := s.table.Get(AttrGSI1PK, ResponseTimeKey(sid)).Index(IndexGSI1).SearchLimit(limit)
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

// ResponsesPage reads one page of a survey's responses in submission
// order: one Query of GSI1, reading at most q.Limit items (fewer when they
// pass 1 MB) and one more, which only tells whether another page follows:
// a full last page then says there is none, rather than sending the client
// to an empty page. It does not check the survey's owner: callers read the
// survey too (Survey, SurveyCollection) and answer ENOTFOUND for another
// account's. GSI1 is eventually consistent: a response submitted a moment
// ago may be missing from the page.
func (s *Store) ResponsesPage(ctx context.Context, sid int64, q ResponseQuery) (ResponsePage, error) {
	page := ResponsePage{Responses: []survey.Response{}}
	query, ok := s.responsesQuery(sid, q, q.Limit+1)
	if !ok {
		return page, nil
	}
	var sm dynamo.ScanMetrics
	var items []responseItem
	lek, err := query.ScanMetrics(&sm).AllWithLastEvaluatedKey(ctx, &items)
	if err != nil {
		return ResponsePage{}, s.fail(fmt.Sprintf("query responses of survey %d", sid), err)
	}
	more := len(items) > q.Limit || lek != nil && len(items) > 0
	if len(items) > q.Limit {
		items = items[:q.Limit]
	}
	page.Responses = make([]survey.Response, 0, len(items))
	for _, it := range items {
		r, err := it.response()
		if err != nil {
			return ResponsePage{}, err
		}
		page.Responses = append(page.Responses, r)
	}
	page.More, page.Scanned = more, int(sm.Scanned)
	return page, nil
}

// Response reads one response of a survey of the account: one strongly
// consistent BatchGetItem of the survey and the response. A missing
// response, or a missing or foreign survey, answers ENOTFOUND.
func (s *Store) Response(ctx context.Context, aid, sid, rid int64) (survey.Response, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{ResponsesPK(sid), ResponseSK(rid)}).
		Consistent(true).All(ctx, &items)
	if err != nil && err != dynamo.ErrNotFound {
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

// deleteAttempts bounds the retries of a response deletion that lost a
// transaction conflict (another write of the survey item at that moment).
const deleteAttempts = 5

// DeleteResponse deletes one response of a live survey of the account and
// lowers the survey's submitted_responses by one, in one transaction: the
// count drops exactly once however many deletions race (the losers find
// the response gone). A code or link the response spent stays spent. It
// answers ENOTFOUND (missing response, missing or foreign survey),
// survey.ErrSurveyDeleted (409) for a survey in the trash, or EUNAVAILABLE.
//
// The same transaction takes the response back from the public report's
// counts (reports.go): its aggregate shard and attributes are read first,
// from the response's own item (one consistent GetItem), and the Delete is
// conditional on the item being unchanged, so a count drops at most once.
func (s *Store) DeleteResponse(ctx context.Context, aid, sid, rid int64) error {
	var old struct {
		Shard       *int     `dynamo:"agg_shard"` // nil: not counted (imported)
		ReportAttrs []string `dynamo:"agg,set"`
	}
	err := s.table.Get(AttrPK, ResponsesPK(sid)).Range(AttrSK, dynamo.Equal, ResponseSK(rid)).
		Project("agg_shard", "agg").Consistent(true).One(ctx, &old)
	if err == dynamo.ErrNotFound {
		if err := s.checkWritable(ctx, aid, sid); err != nil {
			return err
		}
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail(fmt.Sprintf("read response %d", rid), err)
	}
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx().Idempotent(true).
			Delete(s.table.Delete(AttrPK, ResponsesPK(sid)).Range(AttrSK, ResponseSK(rid)).If("attribute_exists(PK)")).
			Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).
				Add("submitted_responses", -1).If(surveyWritable, aid, false))
		if old.Shard != nil {
			agg := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(*old.Shard)).Add("n", -1)
			for _, c := range old.ReportAttrs {
				agg.Add(c, -1)
			}
			tx.Update(agg)
		}
		err := tx.Run(ctx)
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 1):
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
		case txConflict(err) && attempt < deleteAttempts:
			if err := backoff(ctx, attempt); err != nil {
				return s.fail(fmt.Sprintf("delete response %d", rid), err)
			}
		default:
			return s.fail(fmt.Sprintf("delete response %d of survey %d", rid, sid), err)
		}
	}
}

// skipChunk is the most keys one Query of SkipResponses asks for; DynamoDB
// also stops at 1 MB of items read.
const skipChunk = 10000

// SkipResponses passes over the first n responses of q (q.Limit is
// ignored), reading their keys only, and answers the position of the n-th
// (nil when there are fewer) and the items read. It serves page numbers,
// which DynamoDB cannot jump to: page k of a query starts after the
// (k-1)*size-th response.
func (s *Store) SkipResponses(ctx context.Context, sid int64, q ResponseQuery, n int) (*ResponsePosition, int, error) {
	var last *ResponsePosition
	scanned := 0
	for n > 0 {
		query, ok := s.responsesQuery(sid, q, min(n, skipChunk))
		if !ok {
			return nil, scanned, nil
		}
		query.Project("id", "submitted_at")
		var keys []struct {
			ID        int64  `dynamo:"id"`
			Submitted string `dynamo:"submitted_at"`
		}
		var sm dynamo.ScanMetrics
		lek, err := query.ScanMetrics(&sm).AllWithLastEvaluatedKey(ctx, &keys)
		if err != nil {
			return nil, scanned, s.fail(fmt.Sprintf("skip responses of survey %d", sid), err)
		}
		scanned += int(sm.Scanned)
		if len(keys) == 0 {
			return nil, scanned, nil
		}
		k := keys[len(keys)-1]
		at, err := time.Parse(survey.TimestampLayout, k.Submitted)
		if err != nil {
			return nil, scanned, fmt.Errorf("store: response %d: submitted_at: %w", k.ID, err)
		}
		last = &ResponsePosition{SubmittedAt: at, ID: k.ID}
		n -= len(keys)
		if n > 0 && lek == nil {
			return nil, scanned, nil
		}
		q.From = last
	}
	return last, scanned, nil
}
