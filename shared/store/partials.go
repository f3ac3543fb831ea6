package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// A partial response (contract section 20) is kept on its session's own
// items, on the session's own partition key, where its response later
// claims it (SESSION#<sid>#<hash>, claims.go; RESPONSES#<sid>[#k] for a
// session sealed before, SessionLegacyPK), so no responder's partial
// shares an item, nor a partition, with another's:
//
//	SESSION#<hash>          the header: id, page, times, variables, the
//	                        answers changed since the last delta
//	                        ("pending", JSON, null for one taken back), the
//	                        deltas' range [delta_base, deltas)
//	SESSION#<hash>#D#<n>    delta n: answers changed (JSON, null for one
//	                        taken back), written once, never changed
//
// A page turn writes only what changed: the header (under 1 KB), and a
// delta only when the header's pending answers pass partialPendingBytes,
// so a save costs the same whatever the page count (docs/scale.md). A
// read is one strongly consistent Query of the session's items, the
// deltas in order and then the pending answers. The submission's Put of
// the claim replaces the header in the submission's transaction; the
// deltas it leaves behind are read by nothing (a header's range names
// the deltas it uses) and the TTL removes them.
//
// The header carries GSI1PK PARTIALS#<sid>#<shard> (PartialShards of
// them, by the session's hash) and GSI1SK <updated_at>#<id>, so that no
// index partition is one every save of a survey writes: the owner's list
// reads each shard with one Query (all at once), merges them newest
// first, and reads the listed partials' deltas with BatchGetItem (100
// keys a call).

// PartialTTL is how long a partial is kept after its last change.
const PartialTTL = 30 * 24 * time.Hour

// PartialNotifyEvery is how often at most a session's partial is sent to
// the response.partial webhooks.
const PartialNotifyEvery = time.Minute

// PartialShards is how many GSI1 partitions a survey's partials spread
// over: each save moves its header in the index (two index writes), so
// 1,000 responses a second of 12 page turns each ask some 24,000 index
// units a second, 375 a shard. At 32 shards (750 on average) the
// busiest, once the sessions' own partitions no longer were, was asked
// 850-980 of its 1,000 in the model (docs/scale.md). A header saved
// under 32 shards stays listed (shards 0-31 are read still) and moves to
// its shard of 64 at its next save.
const PartialShards = 64

// partialPendingBytes bounds the header's pending answers: past it they
// move to a delta of their own, so the header (and its index copy) stays
// under 1 KB.
const partialPendingBytes = 300

// partialCompactEvery bounds how old a partial's oldest delta in use may
// be: a save past it writes the whole partial as one delta (the base), so
// that no delta in use outlives its TTL (partialDeltaTTL) while the
// header, moved 30 days on by each save, still names it.
const partialCompactEvery = 15 * 24 * time.Hour

// partialDeltaTTL is a delta's lifetime: the header's, plus how long the
// oldest delta in use may be older than the header's last change.
const partialDeltaTTL = PartialTTL + partialCompactEvery + 24*time.Hour

// AttrPartialID is the attribute that marks a session's item as holding a
// partial: the partial's id (of the responses' id space).
const AttrPartialID = "partial_id"

// AttrPartialCount is the count of partials the tally adds from the stream
// (tally.go): on the partial count item (PartialCountSK) and, as added
// before that item, on the survey item; the two make the detail's
// partial_responses_count.
const AttrPartialCount = "partial_responses_count"

// PartialsKey is GSI1PK of a survey's partials of one shard.
func PartialsKey(sid int64, shard int) string {
	return fmt.Sprintf("PARTIALS#%s#%02d", pad(sid), shard)
}

// partialsLegacyKey is GSI1PK of the partials saved before they were
// sharded: listed beside the shards until the TTL removes them.
func partialsLegacyKey(sid int64) string { return "PARTIALS#" + pad(sid) }

// PartialShard is the index shard of a session's partial (hash: the hex
// SHA-256 of its token; its second byte, as the first picks its
// responses partition).
func PartialShard(hash string) int {
	if len(hash) < 4 {
		return 0
	}
	b, err := strconv.ParseUint(hash[2:4], 16, 8)
	if err != nil {
		return 0
	}
	return int(b % PartialShards)
}

// PartialDeltaSK is delta n of a session's partial.
func PartialDeltaSK(hash string, n int) string { return fmt.Sprintf("%s#D#%05d", SessionSK(hash), n) }

// PartialsSK is GSI1SK of a partial: its last change and its id.
func PartialsSK(updated time.Time, id int64) string {
	return updated.UTC().Format(survey.TimestampLayout) + "#" + pad(id)
}

// Partial is a session's unfinished response as the owner sees it.
type Partial struct {
	ID        int64
	SurveyID  int64
	Answers   map[int64]json.RawMessage
	Variables map[string]any
	LastPage  int
	StartedAt time.Time
	UpdatedAt time.Time
	// Notified is when the partial was last sent to webhooks.
	Notified time.Time
}

// PartialWrite is one PUT of a partial: the session's hash (as a
// Submission's Session) and what it saves.
type PartialWrite struct {
	SurveyID  int64
	Session   string
	Answers   map[int64]json.RawMessage
	Variables map[string]any
	Page      int
	StartedAt time.Time
	// LegacySession: a session sealed before sessions had partitions of
	// their own (Submission.LegacySession).
	LegacySession bool
}

// partialItem is the session's item holding a partial (its header).
type partialItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	GSI1PK     string `dynamo:"GSI1PK,omitempty"`
	GSI1SK     string `dynamo:"GSI1SK,omitempty"`
	ID         int64  `dynamo:"partial_id"`
	SurveyID   int64  `dynamo:"survey_id"`
	Answers    string `dynamo:"answers"` // pending: changed since the last delta
	Variables  string `dynamo:"variables"`
	LastPage   int    `dynamo:"last_page"`
	Started    string `dynamo:"started_at"`
	Updated    string `dynamo:"updated_at"`
	Notified   string `dynamo:"notified_at"`
	ExpiresAt  int64  `dynamo:"expires_at"`
	ResponseID int64  `dynamo:"response_id,omitempty"`
	// Base and Deltas are the deltas in use: [Base, Deltas). Compacted is
	// when delta Base was written.
	Base      int    `dynamo:"delta_base,omitempty"`
	Deltas    int    `dynamo:"deltas,omitempty"`
	Compacted string `dynamo:"compacted_at,omitempty"`
	// Notify marks the write that is the session's first in
	// PartialNotifyEvery: the stream's response.partial (functions/dispatch).
	Notify bool `dynamo:"notify,omitempty"`
}

// deltaItem is one delta of a partial: answers changed, null for taken
// back.
type deltaItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Answers   string `dynamo:"answers"`
	ExpiresAt int64  `dynamo:"expires_at"`
}

// applyAnswers applies a delta's (or the pending) answers, as JSON, to
// answers: a null takes one back.
func applyAnswers(answers map[int64]json.RawMessage, delta string) error {
	if delta == "" {
		return nil
	}
	var d map[int64]json.RawMessage
	if err := json.Unmarshal([]byte(delta), &d); err != nil {
		return err
	}
	for q, a := range d {
		if string(a) == "null" {
			delete(answers, q)
		} else {
			answers[q] = a
		}
	}
	return nil
}

// partial is the owner's partial of the header and its deltas in use
// (by SK; others ignored).
func (it partialItem) partial(deltas map[string]string) (Partial, error) {
	p := Partial{ID: it.ID, SurveyID: it.SurveyID, LastPage: it.LastPage, Answers: map[int64]json.RawMessage{}}
	var err error
	if p.StartedAt, err = time.Parse(survey.TimestampLayout, it.Started); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: started_at: %w", it.ID, err)
	}
	if p.UpdatedAt, err = time.Parse(survey.TimestampLayout, it.Updated); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: updated_at: %w", it.ID, err)
	}
	if it.Notified != "" {
		if p.Notified, err = time.Parse(survey.TimestampLayout, it.Notified); err != nil {
			return Partial{}, fmt.Errorf("store: partial %d: notified_at: %w", it.ID, err)
		}
	}
	if p.Answers, err = partialAnswers(it.ID, strings.TrimPrefix(it.SK, SessionSK("")), it.Base, it.Deltas, it.Answers, deltas); err != nil {
		return Partial{}, err
	}
	if err := json.Unmarshal([]byte(it.Variables), &p.Variables); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: variables: %w", it.ID, err)
	}
	return p, nil
}

// partialAnswers are a partial's answers: its deltas [base, n) in order
// (by SK in deltas), then its pending answers.
func partialAnswers(id int64, hash string, base, n int, pending string, deltas map[string]string) (map[int64]json.RawMessage, error) {
	answers := map[int64]json.RawMessage{}
	for i := base; i < n; i++ {
		d, ok := deltas[PartialDeltaSK(hash, i)]
		if !ok {
			return nil, fmt.Errorf("store: partial %d: delta %d missing", id, i)
		}
		if err := applyAnswers(answers, d); err != nil {
			return nil, fmt.Errorf("store: partial %d: delta %d: %w", id, i, err)
		}
	}
	if err := applyAnswers(answers, pending); err != nil {
		return nil, fmt.Errorf("store: partial %d: answers: %w", id, err)
	}
	return answers, nil
}

// sessionItems reads a session's item and its partial's deltas, strongly
// consistent, in one Query: found false when the session has neither a
// partial nor a response.
func (s *Store) sessionItems(ctx context.Context, sid int64, session string, legacy bool) (it partialItem, deltas map[string]string, found bool, err error) {
	var items []map[string]any
	err = s.table.Get(AttrPK, sessionPK(sid, session, legacy)).Range(AttrSK, dynamo.BeginsWith, SessionSK(session)).Consistent(true).All(ctx, &items)
	if err != nil {
		return partialItem{}, nil, false, s.fail(fmt.Sprintf("read a session of survey %d", sid), err)
	}
	deltas = map[string]string{}
	for _, m := range items {
		sk, _ := m[AttrSK].(string)
		if sk == SessionSK(session) {
			av, err := dynamo.MarshalItem(m)
			if err == nil {
				err = dynamo.UnmarshalItem(av, &it)
			}
			if err != nil {
				return partialItem{}, nil, false, fmt.Errorf("store: a session of survey %d: %w", sid, err)
			}
			found = true
			continue
		}
		a, _ := m["answers"].(string)
		deltas[sk] = a
	}
	return it, deltas, found, nil
}

// partialChanges are the answers of next that differ from cur, and a
// null for each of cur that next lacks.
func partialChanges(cur, next map[int64]json.RawMessage) map[int64]json.RawMessage {
	out := map[int64]json.RawMessage{}
	for q, a := range next {
		if old, ok := cur[q]; !ok || string(old) != string(a) {
			out[q] = a
		}
	}
	for q := range cur {
		if _, ok := next[q]; !ok {
			out[q] = json.RawMessage("null")
		}
	}
	return out
}

// SavePartial writes a session's partial, replacing the one before: one
// strongly consistent Query of the session's items, then only what
// changed: a delta when the answers changed since the last delta pass
// partialPendingBytes (or the oldest delta in use is partialCompactEvery
// old: then the whole partial, as the new base), and a conditional
// PutItem of the header (the item is the session's own, so only the
// session's own requests race on it; a delta is written before the header
// that names it, so a header never names one missing). notify reports
// whether this write is the session's first in PartialNotifyEvery, which
// the response.partial webhooks are sent for: the gate is the header's
// notified_at, so it needs no item shared with other sessions. A session
// whose response is recorded answers survey.ErrSessionResponded (409) and
// writes nothing.
func (s *Store) SavePartial(ctx context.Context, w PartialWrite) (p Partial, notify bool, err error) {
	answers, err := json.Marshal(w.Answers)
	if err != nil {
		return Partial{}, false, fmt.Errorf("store: encode a partial's answers: %w", err)
	}
	vars := w.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	variables, err := json.Marshal(vars)
	if err != nil {
		return Partial{}, false, fmt.Errorf("store: encode a partial's variables: %w", err)
	}
	if len(answers)+len(variables) > survey.MaxResponseBytes {
		return Partial{}, false, survey.ErrResponseTooLarge
	}
	sid := w.SurveyID
	started := time.Now()
	for attempt := 1; ; attempt++ {
		old, deltas, found, err := s.sessionItems(ctx, sid, w.Session, w.LegacySession)
		if err != nil {
			return Partial{}, false, err
		}
		if old.ResponseID != 0 {
			return Partial{}, false, survey.ErrSessionResponded
		}
		now := s.Now().UTC().Truncate(time.Microsecond)
		id := old.ID
		if id == 0 {
			if id, err = s.NewID(ctx, KindResponse); err != nil {
				return Partial{}, false, err
			}
		}
		notified := old.Notified
		notify = true
		if t, err := time.Parse(survey.TimestampLayout, old.Notified); err == nil && now.Sub(t) < PartialNotifyEvery {
			notify = false
		}
		if notify {
			notified = now.Format(survey.TimestampLayout)
		}
		it := partialItem{
			PK: sessionPK(sid, w.Session, w.LegacySession), SK: SessionSK(w.Session),
			GSI1PK: PartialsKey(sid, PartialShard(w.Session)), GSI1SK: PartialsSK(now, id),
			ID: id, SurveyID: sid, Variables: string(variables), LastPage: w.Page,
			Started: w.StartedAt.UTC().Format(survey.TimestampLayout), Updated: now.Format(survey.TimestampLayout),
			Notified: notified, ExpiresAt: now.Add(PartialTTL).Unix(), Notify: notify,
			Base: old.Base, Deltas: old.Deltas, Compacted: old.Compacted,
		}
		if it.ID != old.ID || old.ID == 0 {
			it.Base, it.Deltas, it.Compacted = 0, 0, "" // a session's first partial (or one from before deltas)
		}
		pending, delta, err := s.partialPending(old, deltas, found, w.Answers, &it, now)
		if err != nil {
			return Partial{}, false, err
		}
		it.Answers = pending
		if delta != nil {
			if err := s.table.Put(delta).Run(ctx); err != nil {
				return Partial{}, false, s.fail(fmt.Sprintf("save a partial of survey %d", sid), err)
			}
			deltas[delta.SK] = delta.Answers
		}
		put := s.table.Put(it)
		if found {
			put.If("attribute_not_exists(response_id) AND updated_at = ?", old.Updated)
		} else {
			put.If("attribute_not_exists(PK)")
		}
		err = put.Run(ctx)
		if err == nil {
			p, err := it.partial(deltas)
			return p, notify, err
		}
		var tce *types.TransactionConflictException
		held := errors.As(err, &tce) // the session's submission holds the item in its transaction
		if !dynamo.IsCondCheckFailed(err) && !txConflict(err) && !held {
			return Partial{}, false, s.fail(fmt.Sprintf("save a partial of survey %d", sid), err)
		}
		// The session's own concurrent request (a partial, or its
		// submission) wrote first, or holds the item while its transaction
		// commits: read what it wrote and decide again (a recorded response
		// answers 409, never 503: contract section 3, amended), until the
		// request's deadline. A fixed number of tries answered 500 to 6
		// partials of one session saved at once while it submitted
		// (TestPartialRacesItsSubmission): each may lose to its siblings
		// more often than that, and they can all succeed.
		if !ownerAgain(ctx, attempt, started) {
			return Partial{}, false, &wrapped{op: fmt.Sprintf("save a partial of survey %d", sid), err: err, public: errBusy}
		}
	}
}

// partialPending decides what a save writes of the answers next: the
// header's pending answers (JSON), and the delta to write first, if any
// (the header's range moved to name it).
func (s *Store) partialPending(old partialItem, deltas map[string]string, found bool, next map[int64]json.RawMessage, it *partialItem, now time.Time) (string, *deltaItem, error) {
	cur := map[int64]json.RawMessage{}
	pending := map[int64]json.RawMessage{}
	if found && old.ID == it.ID {
		p, err := old.partial(deltas)
		if err != nil {
			return "", nil, err
		}
		cur = p.Answers
		if err := applyAnswers(pending, old.Answers); err != nil {
			return "", nil, fmt.Errorf("store: partial %d: answers: %w", old.ID, err)
		}
		if it.Deltas == it.Base {
			// No delta yet: the pending answers are the whole partial,
			// so nothing need be said of an answer taken back.
			for q, a := range pending {
				if string(a) == "null" {
					delete(pending, q)
				}
			}
		}
	}
	for q, a := range partialChanges(cur, next) {
		pending[q] = a
	}
	if it.Deltas == it.Base {
		for q, a := range pending {
			if string(a) == "null" {
				delete(pending, q)
			}
		}
	}
	enc, err := json.Marshal(pending)
	if err != nil {
		return "", nil, fmt.Errorf("store: encode a partial's answers: %w", err)
	}
	compacted, cerr := time.Parse(survey.TimestampLayout, it.Compacted)
	stale := it.Deltas > it.Base && (cerr != nil || now.Sub(compacted) > partialCompactEvery)
	if len(enc) <= partialPendingBytes && !stale {
		return string(enc), nil, nil
	}
	hash := strings.TrimPrefix(it.SK, SessionSK(""))
	d := &deltaItem{PK: it.PK, SK: PartialDeltaSK(hash, it.Deltas), Answers: string(enc), ExpiresAt: now.Add(partialDeltaTTL).Unix()}
	if stale || it.Deltas == it.Base {
		// The whole partial as the new base: what next is.
		all, err := json.Marshal(next)
		if err != nil {
			return "", nil, fmt.Errorf("store: encode a partial's answers: %w", err)
		}
		d.Answers, it.Base, it.Compacted = string(all), it.Deltas, now.Format(survey.TimestampLayout)
	}
	it.Deltas++
	return "{}", d, nil
}

// SessionPartial reads a session's partial: found false when it has none
// (or it expired, which reads hide at once), survey.ErrSessionResponded
// when the session's response is recorded. One strongly consistent Query
// of the session's items (legacy: a session sealed before sessions had
// partitions of their own, Submission.LegacySession).
func (s *Store) SessionPartial(ctx context.Context, sid int64, session string, legacy bool) (p Partial, found bool, err error) {
	it, deltas, found, err := s.sessionItems(ctx, sid, session, legacy)
	switch {
	case err != nil:
		return Partial{}, false, err
	case it.ResponseID != 0:
		return Partial{}, false, survey.ErrSessionResponded
	case !found || it.ID == 0 || it.ExpiresAt <= s.Now().Unix():
		return Partial{}, false, nil
	}
	p, err = it.partial(deltas)
	return p, err == nil, err
}

// PartialHead is what a stream image of a partial's header says of its
// answers: the session (its hash), the deltas in use and the pending
// answers (JSON).
type PartialHead struct {
	Session      string
	Base, Deltas int
	Pending      string
	ID           int64
	SurveyID     int64
	PartitionKey string
}

// PartialAnswers are the answers a header named (a stream image's, as
// dispatch sends response.partial): the pending answers alone when it
// names no delta, else one Query of its deltas (written once, so they are
// what they were when the header was).
func (s *Store) PartialAnswers(ctx context.Context, h PartialHead) (map[int64]json.RawMessage, error) {
	deltas := map[string]string{}
	if h.Deltas > h.Base {
		var items []deltaItem
		err := s.table.Get(AttrPK, h.PartitionKey).Range(AttrSK, dynamo.Between, PartialDeltaSK(h.Session, h.Base), PartialDeltaSK(h.Session, h.Deltas-1)).
			Consistent(true).All(ctx, &items)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("read a partial of survey %d", h.SurveyID), err)
		}
		for _, d := range items {
			deltas[d.SK] = d.Answers
		}
	}
	return partialAnswers(h.ID, h.Session, h.Base, h.Deltas, h.Pending, deltas)
}

// PartialQuery is a page of a survey's partials: newest change first,
// changed after After and before Before (zero: unbounded), after the
// partial named by Cursor (its GSI1SK; "" for the first page).
type PartialQuery struct {
	After, Before time.Time
	Cursor        string
	Limit         int
}

// PartialPage is a page of partials and the cursor of the next ("" at the
// end).
type PartialPage struct {
	Partials []Partial
	Next     string
}

// partialShardRead is one shard's part of a page: its headers so far,
// newest first, and where its Query stopped (nil: at the end).
type partialShardRead struct {
	key   string
	items []partialItem
	next  dynamo.PagingKey
}

// PartialsPage reads a page of a survey's partials, newest first, partials
// past their 30 days filtered out at once (the TTL deletes them later):
// one Query of GSI1 for each of the PartialShards shards (and the
// partitions of partials saved before the shards), all at once, each for
// a share of the page (a shard whose share runs out before the page is
// full is read on), merged newest first; then the listed partials' deltas
// with BatchGetItem (100 keys a call; a partial's changes since its last
// delta are on its header, so most need none).
func (s *Store) PartialsPage(ctx context.Context, sid int64, q PartialQuery) (PartialPage, error) {
	low, high := "0", "\xff" // timestamps start with a digit
	if !q.After.IsZero() {
		low = q.After.UTC().Format(survey.TimestampLayout) + "#\xff"
	}
	if !q.Before.IsZero() {
		high = q.Before.UTC().Format(survey.TimestampLayout) + "#"
	}
	if q.Cursor != "" && q.Cursor < high {
		high = q.Cursor
	}
	if low >= high {
		return PartialPage{}, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	share := min(limit+2, (limit+2)/PartialShards+2)
	now := s.Now().Unix()
	read := func(ctx context.Context, r *partialShardRead, first bool) error {
		qr := s.table.Get(AttrGSI1PK, r.key).Index(IndexGSI1).Order(dynamo.Descending).
			Filter("expires_at > ?", now).Range(AttrGSI1SK, dynamo.Between, low, high).SearchLimit(share)
		if !first {
			qr = qr.StartFrom(r.next)
		}
		var items []partialItem
		next, err := qr.AllWithLastEvaluatedKey(ctx, &items)
		if err != nil {
			return s.fail(fmt.Sprintf("query partials of survey %d", sid), err)
		}
		r.items, r.next = append(r.items, items...), next
		return nil
	}
	shards := make([]*partialShardRead, 0, PartialShards+1)
	for i := range PartialShards {
		shards = append(shards, &partialShardRead{key: PartialsKey(sid, i)})
	}
	shards = append(shards, &partialShardRead{key: partialsLegacyKey(sid)})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for _, r := range shards {
		g.Go(func() error { return read(gctx, r, true) })
	}
	if err := g.Wait(); err != nil {
		return PartialPage{}, err
	}
	// Merge: take the newest head until the page and one more are out; a
	// shard whose share is used up while it has more is read on first.
	var items []partialItem
	for len(items) < limit+1 {
		var best *partialShardRead
		for _, r := range shards {
			for len(r.items) == 0 && r.next != nil {
				if err := read(ctx, r, false); err != nil {
					return PartialPage{}, err
				}
			}
			if len(r.items) > 0 && (best == nil || r.items[0].GSI1SK > best.items[0].GSI1SK) {
				best = r
			}
		}
		if best == nil {
			break
		}
		it := best.items[0]
		best.items = best.items[1:]
		if it.GSI1SK == high {
			continue // Between is inclusive: the cursor's own partial
		}
		items = append(items, it)
	}
	var page PartialPage
	if len(items) > limit {
		items, page.Next = items[:limit], items[limit-1].GSI1SK
	}
	deltas, err := s.partialDeltas(ctx, sid, items)
	if err != nil {
		return PartialPage{}, err
	}
	for _, it := range items {
		p, err := it.partial(deltas)
		if err != nil {
			return PartialPage{}, err
		}
		page.Partials = append(page.Partials, p)
	}
	return page, nil
}

// partialDeltas reads the deltas the headers name: BatchGetItem, 100 keys
// a call, strongly consistent.
func (s *Store) partialDeltas(ctx context.Context, sid int64, heads []partialItem) (map[string]string, error) {
	var keys []dynamo.Keyed
	for _, it := range heads {
		hash := strings.TrimPrefix(it.SK, SessionSK(""))
		for n := it.Base; n < it.Deltas; n++ {
			keys = append(keys, dynamo.Keys{it.PK, PartialDeltaSK(hash, n)})
		}
	}
	out := map[string]string{}
	if len(keys) == 0 {
		return out, nil
	}
	// Strongly consistent: a delta is written just before the header that
	// names it, and the index may show that header before an eventually
	// consistent read shows the delta.
	var items []deltaItem
	if err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items); err != nil {
		return nil, s.fail(fmt.Sprintf("read partials of survey %d", sid), err)
	}
	for _, d := range items {
		out[d.SK] = d.Answers
	}
	return out, nil
}

// View is the partial as its owner sees it (contract section 20): the
// answers as a response's, no submitted_at, code, spam, responder or
// location; its duration runs to its last change.
func (p Partial) View() survey.PartialView {
	v := survey.Response{ID: p.ID, SurveyID: p.SurveyID, StartedAt: p.StartedAt, SubmittedAt: p.UpdatedAt, Answers: p.Answers, Variables: p.Variables}.View()
	return survey.PartialView{
		ID: p.ID, Answers: v.Answers, Variables: v.Variables, LastPage: p.LastPage,
		StartedAt: v.StartedAt, UpdatedAt: v.SubmittedAt, DurationSeconds: v.DurationSeconds,
	}
}
