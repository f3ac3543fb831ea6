package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
//	                        taken back), written once; and, when it was
//	                        written instead of the header, the partial's
//	                        state after it (the header's times, page and
//	                        range)
//
// The owner's list is a base-table item of each partial's own, its entry
// (PIDX#<sid>#<shard> / <updated_at>#<id>, PartialShards shards by the
// session's hash): a copy of the partial's state at its last save, under
// 1 KB. A save writes three items, whatever the page count
// (docs/scale.md): its new entry, then either the header (the answers
// changed since the last delta, while they stay under
// partialPendingBytes) or a delta of them (the header left as it was),
// then the delete of its entry before. The partial's state is the newest
// (by updated_at) of the header and the deltas that carry a state. An
// entry lists only while it is its partial's state (partialCurrent): a
// save cut short leaves an entry no state names, which the TTL removes.
// A read is one strongly consistent Query of the session's items. The
// submission's Put of the claim replaces the header in the submission's
// transaction; the stream's tally then deletes the entry its state named
// (ForgetPartialEntry), and a delta's turn that finds the claim after its
// writes deletes its own. The deltas are read by nothing once their
// header is gone, and the TTL removes them.
//
// Partials saved before the entries were indexed by their header in GSI1
// (GSI1PK PARTIALS#<sid>[#<shard>], GSI1SK <updated_at>#<id>): they are
// listed beside the entries, and move to an entry at their next save,
// until the TTL has removed them all.

// PartialTTL is how long a partial is kept after its last change.
const PartialTTL = 30 * 24 * time.Hour

// PartialNotifyEvery is how often at most a session's partial is sent to
// the response.partial webhooks.
const PartialNotifyEvery = time.Minute

// PartialShards is how many partitions a survey's partials' entries
// spread over: each save puts its entry and deletes the one before (two
// writes), so 1,000 responses a second of 12 page turns each ask some
// 24,000 units a second of the entries, 375 a shard. At 32 shards (750
// on average) the busiest, once the sessions' own partitions no longer
// were, was asked 850-980 of its 1,000 in the model (docs/scale.md).
const PartialShards = 64

// partialHeadSlack is how long after the header's last write a delta may
// still be written instead of it: the header's TTL is that much past the
// partial's, so that it outlives every state a delta carries for it; a
// delta's turn later than that writes the header too (and leaves its
// entry before to the TTL, so the save still writes three items).
const partialHeadSlack = 24 * time.Hour

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

// PartialEntryPK is the partition of a survey's partials' entries of one
// shard.
func PartialEntryPK(sid int64, shard int) string {
	return fmt.Sprintf("PIDX#%s#%02d", pad(sid), shard)
}

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

// PartialsSK is the sort key of a partial's entry (and GSI1SK of one
// indexed by its header): its last change and its id.
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

// partialItem is the session's item holding a partial (its header), a
// partial's state, or its entry (PartialEntryPK).
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
	// Notify marks the header written by the save that is the session's
	// first in PartialNotifyEvery: the stream's response.partial
	// (functions/dispatch). Only the header's write, conditional, says
	// the save won; an entry, put before, carries no mark.
	Notify bool `dynamo:"notify,omitempty"`
	// SessionPK and Session are an entry's session: its items' partition
	// and hash.
	SessionPK string `dynamo:"session_pk,omitempty"`
	Session   string `dynamo:"session,omitempty"`
}

// hash is the session's hash of a header or an entry.
func (it partialItem) hash() string {
	if it.Session != "" {
		return it.Session
	}
	return strings.TrimPrefix(it.SK, SessionSK(""))
}

// sessionKey is the partition of the session's items.
func (it partialItem) sessionKey() string {
	if it.SessionPK != "" {
		return it.SessionPK
	}
	return it.PK
}

// entryKey is the key of the entry of a partial's state.
func (it partialItem) entryKey() dynamo.Keys {
	updated, _ := time.Parse(survey.TimestampLayout, it.Updated)
	return dynamo.Keys{PartialEntryPK(it.SurveyID, PartialShard(it.hash())), PartialsSK(updated, it.ID)}
}

// entry is the entry of a partial's state: a copy of what the list and
// response.partial read of it, keyed to list (under 1 KB as the header
// is: the header's keys, notified_at and compacted_at give way to the
// session's).
func (it partialItem) entry() partialItem {
	e := it
	k := it.entryKey()
	e.PK, e.SK, e.GSI1PK, e.GSI1SK = k[0].(string), k[1].(string), "", ""
	e.Notified, e.Compacted, e.Notify = "", "", false
	e.SessionPK, e.Session = it.PK, it.hash()
	if updated, err := time.Parse(survey.TimestampLayout, it.Updated); err == nil {
		e.ExpiresAt = updated.Add(PartialTTL).Unix()
	}
	return e
}

// deltaItem is one delta of a partial: answers changed, null for taken
// back; and, when it was written instead of the header, the partial's
// state after it (Updated not "").
type deltaItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Answers   string `dynamo:"answers"`
	ExpiresAt int64  `dynamo:"expires_at"`
	Updated   string `dynamo:"updated_at,omitempty"`
	LastPage  int    `dynamo:"last_page,omitempty"`
	Notified  string `dynamo:"notified_at,omitempty"`
	Base      int    `dynamo:"delta_base,omitempty"`
	Deltas    int    `dynamo:"deltas,omitempty"`
	Compacted string `dynamo:"compacted_at,omitempty"`
	// Notify marks a delta written instead of the header by the save that
	// is the session's first in PartialNotifyEvery (partialItem.Notify).
	Notify bool `dynamo:"notify,omitempty"`
}

// state is the partial's state a header and its deltas say: the header's,
// or that of the newest delta written since that carries one. A delta
// written by a save that lost to a newer one is passed over (it is older
// than the header), and rewritten by the next save to need its number.
func state(head partialItem, deltas map[string]deltaItem) (st partialItem, fromDelta bool) {
	st = head
	if head.ID == 0 {
		return st, false
	}
	for _, d := range deltas {
		if d.Updated == "" || d.Updated <= st.Updated || d.Deltas <= head.Deltas {
			continue
		}
		st, fromDelta = st.after(d), true
	}
	if fromDelta {
		if t, err := time.Parse(survey.TimestampLayout, st.Updated); err == nil {
			st.ExpiresAt = t.Add(PartialTTL).Unix()
		}
	}
	return st, fromDelta
}

// after is the partial's state as a delta written instead of the header
// carries it: the header's id, times and variables, the delta's page and
// range, no answers pending.
func (it partialItem) after(d deltaItem) partialItem {
	it.Updated, it.LastPage, it.Notified, it.Base, it.Deltas, it.Compacted, it.Answers = d.Updated, d.LastPage, d.Notified, d.Base, d.Deltas, d.Compacted, "{}"
	return it
}

// deltaAnswers are the deltas' answers by key.
func deltaAnswers(deltas map[string]deltaItem) map[string]string {
	out := make(map[string]string, len(deltas))
	for k, d := range deltas {
		out[k] = d.Answers
	}
	return out
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
	if p.Answers, err = partialAnswers(it.ID, it.hash(), it.Base, it.Deltas, it.Answers, deltas); err != nil {
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
func (s *Store) sessionItems(ctx context.Context, sid int64, session string, legacy bool) (it partialItem, deltas map[string]deltaItem, found bool, err error) {
	return s.sessionItemsAt(ctx, sessionPK(sid, session, legacy), session)
}

// sessionItemsAt is sessionItems of the session's partition pk.
func (s *Store) sessionItemsAt(ctx context.Context, pk, session string) (it partialItem, deltas map[string]deltaItem, found bool, err error) {
	var items []map[string]any
	err = s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.BeginsWith, SessionSK(session)).Consistent(true).All(ctx, &items)
	if err != nil {
		return partialItem{}, nil, false, s.fail("read a partial's session", err)
	}
	deltas = map[string]deltaItem{}
	for _, m := range items {
		sk, _ := m[AttrSK].(string)
		av, err := dynamo.MarshalItem(m)
		if sk == SessionSK(session) {
			if err == nil {
				err = dynamo.UnmarshalItem(av, &it)
			}
			if err != nil {
				return partialItem{}, nil, false, fmt.Errorf("store: a partial's session: %w", err)
			}
			found = true
			continue
		}
		var d deltaItem
		if err == nil {
			err = dynamo.UnmarshalItem(av, &d)
		}
		if err != nil {
			return partialItem{}, nil, false, fmt.Errorf("store: a partial's session: %w", err)
		}
		deltas[sk] = d
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
// strongly consistent Query of the session's items, then three writes
// whatever the page count: the partial's new entry, then either its
// header (conditional: the item is the session's own, so only the
// session's own requests race on it) or, when the answers changed since
// the last delta pass partialPendingBytes (or the oldest delta in use is
// partialCompactEvery old: then the whole partial, as the new base), a
// delta of them that carries the partial's state (conditional on its
// number being free), and last the delete of the entry before. The entry
// is written first so that a save cut short leaves the partial listed as
// it was. notify reports whether this write is the session's first in
// PartialNotifyEvery, which the response.partial webhooks are sent for
// (the header or the delta that carries its state has the mark): the
// gate is the state's notified_at, so it needs no item shared with other
// sessions. A session whose response
// is recorded answers survey.ErrSessionResponded (409): a save that wrote
// a delta reads the claim after it, and takes its entry back when the
// submission came first.
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
	op := fmt.Sprintf("save a partial of survey %d", sid)
	started := time.Now()
	for attempt := 1; ; attempt++ {
		head, deltas, found, err := s.sessionItems(ctx, sid, w.Session, w.LegacySession)
		if err != nil {
			return Partial{}, false, err
		}
		if head.ResponseID != 0 {
			return Partial{}, false, survey.ErrSessionResponded
		}
		old, _ := state(head, deltas)
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
			ID: id, SurveyID: sid, Variables: string(variables), LastPage: w.Page,
			Started: w.StartedAt.UTC().Format(survey.TimestampLayout), Updated: now.Format(survey.TimestampLayout),
			Notified: notified, ExpiresAt: now.Add(PartialTTL + partialHeadSlack).Unix(),
			Base: old.Base, Deltas: old.Deltas, Compacted: old.Compacted,
		}
		fresh := it.ID != old.ID || old.ID == 0 // a session's first partial (or one from before deltas)
		if fresh {
			it.Base, it.Deltas, it.Compacted = 0, 0, ""
		}
		answersOf := deltaAnswers(deltas)
		pending, delta, err := s.partialPending(old, answersOf, found, w.Answers, &it, now)
		if err != nil {
			return Partial{}, false, err
		}
		it.Answers = pending
		// The header is written unless a delta carries the state instead:
		// always for a session's first partial, for a header indexed in GSI1
		// (its entry moves to the table), and for one whose TTL the state
		// would outlive. The entry before is deleted unless the save has
		// written three items without it (then the TTL removes it). A save
		// that notifies marks the item that carries its state, the header
		// or the delta, whose write is conditional (on the header read, on
		// the delta's number): of the session's saves at once (two tabs, or
		// a PUT racing the submission) one that loses marks nothing; its
		// entry, put first, never carries the mark.
		headAt, herr := time.Parse(survey.TimestampLayout, head.Updated)
		writeHead := delta == nil || !found || fresh || head.GSI1PK != "" || herr != nil || now.Sub(headAt) > partialHeadSlack
		it.Notify = notify && writeHead
		if delta != nil {
			delta.Notify = notify && !writeHead
		}
		var before *dynamo.Keys
		if found && !fresh && head.GSI1PK == "" && old.Updated != "" && !(delta != nil && writeHead) {
			k := old.entryKey()
			before = &k
		}
		entry := it.entry()
		if delta != nil {
			delta.Updated, delta.LastPage, delta.Notified = it.Updated, it.LastPage, it.Notified
			delta.Base, delta.Deltas, delta.Compacted = it.Base, it.Deltas, it.Compacted
			answersOf[delta.SK] = delta.Answers
		}
		if err := s.table.Put(entry).Run(ctx); err != nil {
			return Partial{}, false, s.fail(op, err)
		}
		if s.beforePartialState != nil {
			s.beforePartialState()
		}
		retry, err := s.savePartialItems(ctx, it, delta, deltas, writeHead, found, head.Updated)
		wrote := err == nil && !retry
		if wrote {
			// The state is written. The entry before goes (a delete that
			// fails leaves an entry no state names, which the list passes
			// over and the TTL removes: the save stands); a delta could not
			// be conditional on the claim, so the claim is read after it
			// (both at once).
			var g errgroup.Group
			if before != nil && (*before)[1] != entry.SK {
				g.Go(func() error {
					if err := s.table.Delete(AttrPK, (*before)[0]).Range(AttrSK, (*before)[1]).Run(ctx); err != nil {
						slog.WarnContext(ctx, "store: a partial's entry before left to its TTL", "survey_id", sid, "error", err.Error())
					}
					return nil
				})
			}
			if delta != nil && !writeHead {
				g.Go(func() error {
					c, err := s.readClaim(ctx, sid, it.PK, it.SK)
					if err == nil && c.ResponseID != 0 {
						err = survey.ErrSessionResponded
					}
					return err
				})
			}
			err = g.Wait()
		}
		responded := errors.Is(err, survey.ErrSessionResponded)
		if !wrote || responded {
			// Its state not written, or refused: its entry names nothing.
			// (A claim that could not be read keeps it: the save may stand.)
			if derr := s.table.Delete(AttrPK, entry.PK).Range(AttrSK, entry.SK).Run(ctx); derr != nil {
				return Partial{}, false, s.fail(op, derr)
			}
		}
		if wrote && responded {
			// Its delta, written after the claim, is taken back too: it may
			// carry the mark, and response.partial sends a marked delta only
			// while it is there (PartialAtDelta).
			if derr := s.table.Delete(AttrPK, delta.PK).Range(AttrSK, delta.SK).If("updated_at = ?", delta.Updated).Run(ctx); derr != nil &&
				!dynamo.IsCondCheckFailed(derr) {
				return Partial{}, false, s.fail(op, derr)
			}
		}
		if err != nil {
			return Partial{}, false, err
		}
		if !retry {
			p, err := it.partial(answersOf)
			return p, notify, err
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
			return Partial{}, false, &wrapped{op: op, err: errors.New("a session's partial: the session's own requests kept winning"), public: errBusy}
		}
	}
}

// savePartialItems writes a save's delta (conditional on its number being
// free, or held by a delta that lost, as read) and its header
// (conditional on the header read, and on no response): retry when a
// condition failed or the session's submission holds the header.
func (s *Store) savePartialItems(ctx context.Context, it partialItem, delta *deltaItem, read map[string]deltaItem,
	writeHead, found bool, headUpdated string) (retry bool, err error) {
	op := fmt.Sprintf("save a partial of survey %d", it.SurveyID)
	again := func(err error) (bool, error) {
		var tce *types.TransactionConflictException
		if dynamo.IsCondCheckFailed(err) || txConflict(err) || errors.As(err, &tce) {
			return true, nil
		}
		return false, s.fail(op, err)
	}
	if delta != nil {
		put := s.table.Put(delta)
		switch lost, ok := read[delta.SK]; {
		case !ok:
			put.If("attribute_not_exists(PK)")
		case lost.Updated == "":
			put.If("attribute_not_exists(updated_at)")
		default:
			put.If("updated_at = ?", lost.Updated)
		}
		if err := put.Run(ctx); err != nil {
			return again(err)
		}
	}
	if !writeHead {
		return false, nil
	}
	put := s.table.Put(it)
	if found {
		put.If("attribute_not_exists(response_id) AND updated_at = ?", headUpdated)
	} else {
		put.If("attribute_not_exists(PK)")
	}
	if err := put.Run(ctx); err != nil {
		return again(err)
	}
	return false, nil
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
	head, deltas, found, err := s.sessionItems(ctx, sid, session, legacy)
	switch {
	case err != nil:
		return Partial{}, false, err
	case head.ResponseID != 0:
		return Partial{}, false, survey.ErrSessionResponded
	case !found || head.ID == 0:
		return Partial{}, false, nil
	}
	st, _ := state(head, deltas)
	if updated, err := time.Parse(survey.TimestampLayout, st.Updated); err != nil || !updated.Add(PartialTTL).After(s.Now()) {
		return Partial{}, false, nil // past its 30 days: hidden at once
	}
	p, err = st.partial(deltaAnswers(deltas))
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

// PartialGone is a partial's header as its session's claim replaced it
// (the stream's old image): its session, its state then and whether GSI1
// indexed it (a header saved before the entries).
type PartialGone struct {
	PartitionKey, Session, Updated string
	ID, SurveyID                   int64
	Deltas                         int
	Indexed                        bool
}

// ForgetPartialEntry deletes the entry of a partial whose session has
// responded (the tally, from the claim's stream record): the entry of its
// state, the header's as replaced or that of a delta written after it
// (one Query of the deltas past the header's range, strongly consistent:
// a save racing the submission wrote its delta before the claim, or reads
// the claim after it and takes its own entry back). Deleting an entry
// already gone changes nothing, so a retried batch may repeat it.
func (s *Store) ForgetPartialEntry(ctx context.Context, g PartialGone) error {
	head := partialItem{PK: g.PartitionKey, SK: SessionSK(g.Session), ID: g.ID, SurveyID: g.SurveyID, Updated: g.Updated, Deltas: g.Deltas}
	var later []deltaItem
	err := s.table.Get(AttrPK, g.PartitionKey).Range(AttrSK, dynamo.Between, PartialDeltaSK(g.Session, g.Deltas), PartialDeltaSK(g.Session, 99999)).
		Consistent(true).All(ctx, &later)
	if err != nil {
		return s.fail(fmt.Sprintf("read a partial of survey %d", g.SurveyID), err)
	}
	deltas := map[string]deltaItem{}
	for _, d := range later {
		deltas[d.SK] = d
	}
	st, fromDelta := state(head, deltas)
	if g.Indexed && !fromDelta {
		return nil // its index entry went with the header
	}
	k := st.entryKey()
	if err := s.table.Delete(AttrPK, k[0]).Range(AttrSK, k[1]).Run(ctx); err != nil {
		return s.fail(fmt.Sprintf("forget a partial of survey %d", g.SurveyID), err)
	}
	return nil
}

// PartialAtDelta is the partial as the delta n of a session's items
// (pk, hash) carries it, written instead of the header by a save marked
// for response.partial: the header's id, times and variables, the
// delta's page and range, its answers those of the deltas it names. One
// strongly consistent Query of the session's items. found false when the
// delta is not there with that state (updated: a save that found the
// session responded took it back) or names no partial of the header's.
func (s *Store) PartialAtDelta(ctx context.Context, pk, hash string, n int, updated string) (p Partial, found bool, err error) {
	head, deltas, _, err := s.sessionItemsAt(ctx, pk, hash)
	if err != nil {
		return Partial{}, false, err
	}
	d, ok := deltas[PartialDeltaSK(hash, n)]
	if !ok || d.Updated != updated || head.ID == 0 || d.Deltas != n+1 {
		return Partial{}, false, nil
	}
	p, err = head.after(d).partial(deltaAnswers(deltas))
	return p, err == nil, err
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

// partialShardRead is one shard's part of a page: its entries (or, in
// GSI1, headers) so far, newest first, and where its Query stopped (nil:
// at the end).
type partialShardRead struct {
	key   string
	index bool // GSI1: partials indexed by their header, saved before the entries
	items []partialItem
	next  dynamo.PagingKey
}

// listKey is where a partial lists: its entry's key, or a header's GSI1SK.
func (it partialItem) listKey() string {
	if it.GSI1SK != "" {
		return it.GSI1SK
	}
	return it.SK
}

// PartialsPage reads a page of a survey's partials, newest first, partials
// past their 30 days filtered out at once (the TTL deletes them later):
// one Query for each of the PartialShards shards of entries (and, until
// the TTL has removed them, of GSI1's shards and partition of partials
// indexed by their header), all at once, each for a share of the page (a
// shard whose share runs out before the page is full is read on), merged
// newest first; then with BatchGetItem (100 keys a call) each listed
// entry's header and the delta after its range, which tell whether it is
// still its partial's state (a save cut short, or a response recorded,
// leaves one that is not: passed over), and the deltas its answers need
// (a partial's changes since its last delta are on its entry, so most
// need none).
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
		var qr *dynamo.Query
		if r.index {
			qr = s.table.Get(AttrGSI1PK, r.key).Index(IndexGSI1).Range(AttrGSI1SK, dynamo.Between, low, high)
		} else {
			qr = s.table.Get(AttrPK, r.key).Range(AttrSK, dynamo.Between, low, high)
		}
		qr = qr.Order(dynamo.Descending).Filter("expires_at > ?", now).SearchLimit(share)
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
	shards := make([]*partialShardRead, 0, 2*PartialShards+1)
	for i := range PartialShards {
		shards = append(shards, &partialShardRead{key: PartialEntryPK(sid, i)}, &partialShardRead{key: PartialsKey(sid, i), index: true})
	}
	shards = append(shards, &partialShardRead{key: partialsLegacyKey(sid), index: true})
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
	next := func() (partialItem, bool, error) {
		for {
			var best *partialShardRead
			for _, r := range shards {
				for len(r.items) == 0 && r.next != nil {
					if err := read(ctx, r, false); err != nil {
						return partialItem{}, false, err
					}
				}
				if len(r.items) > 0 && (best == nil || r.items[0].listKey() > best.items[0].listKey()) {
					best = r
				}
			}
			if best == nil {
				return partialItem{}, false, nil
			}
			it := best.items[0]
			best.items = best.items[1:]
			if it.listKey() != high { // Between is inclusive: the cursor's own partial
				return it, true, nil
			}
		}
	}
	var items []partialItem
	answers := map[string]string{}
	for more := true; more && len(items) < limit+1; {
		var batch []partialItem
		for len(batch) < limit+1-len(items) {
			it, ok, err := next()
			if err != nil {
				return PartialPage{}, err
			}
			if !ok {
				more = false
				break
			}
			batch = append(batch, it)
		}
		listed, err := s.partialsListed(ctx, sid, batch, answers)
		if err != nil {
			return PartialPage{}, err
		}
		items = append(items, listed...)
	}
	var page PartialPage
	if len(items) > limit {
		items, page.Next = items[:limit], items[limit-1].listKey()
	}
	for _, it := range items {
		p, err := it.partial(answers)
		if err != nil {
			return PartialPage{}, err
		}
		page.Partials = append(page.Partials, p)
	}
	return page, nil
}

// partialsListed reads, for a batch of listed entries and headers, the
// deltas their answers need (into answers, by key) and, for an entry,
// its header and the delta after its range: the entries that are still
// their partial's state, and the headers, in order. BatchGetItem, 100
// keys a call, strongly consistent: a delta is written just before the
// entry's state is, and a header may be a moment newer than its entry.
func (s *Store) partialsListed(ctx context.Context, sid int64, batch []partialItem, answers map[string]string) ([]partialItem, error) {
	var keys []dynamo.Keyed
	seen := map[[2]string]bool{}
	add := func(pk, sk string) {
		if k := [2]string{pk, sk}; !seen[k] {
			seen[k] = true
			keys = append(keys, dynamo.Keys{pk, sk})
		}
	}
	for _, it := range batch {
		pk, hash := it.sessionKey(), it.hash()
		for n := it.Base; n < it.Deltas; n++ {
			add(pk, PartialDeltaSK(hash, n))
		}
		if it.Session != "" {
			add(pk, SessionSK(hash))
			add(pk, PartialDeltaSK(hash, it.Deltas))
		}
	}
	if len(keys) == 0 {
		return batch, nil
	}
	var got []map[string]any
	// None found is an answer: entries of first saves cut short (or not
	// yet past their entry), whose sessions have nothing written.
	if err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &got); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, s.fail(fmt.Sprintf("read partials of survey %d", sid), err)
	}
	heads := map[[2]string]partialItem{}
	deltas := map[[2]string]deltaItem{}
	for _, m := range got {
		pk, _ := m[AttrPK].(string)
		sk, _ := m[AttrSK].(string)
		av, err := dynamo.MarshalItem(m)
		if err != nil {
			return nil, fmt.Errorf("store: partials of survey %d: %w", sid, err)
		}
		if strings.Contains(strings.TrimPrefix(sk, SessionSK("")), "#") {
			var d deltaItem
			if err := dynamo.UnmarshalItem(av, &d); err != nil {
				return nil, fmt.Errorf("store: partials of survey %d: %w", sid, err)
			}
			deltas[[2]string{pk, sk}] = d
			answers[sk] = d.Answers
			continue
		}
		var h partialItem
		if err := dynamo.UnmarshalItem(av, &h); err != nil {
			return nil, fmt.Errorf("store: partials of survey %d: %w", sid, err)
		}
		heads[[2]string{pk, sk}] = h
	}
	listed := batch[:0:0]
	for _, it := range batch {
		if it.Session == "" {
			listed = append(listed, it) // a header indexed in GSI1: its own state
			continue
		}
		pk, hash := it.sessionKey(), it.hash()
		head, ok := heads[[2]string{pk, SessionSK(hash)}]
		if !ok || head.ResponseID != 0 || head.ID != it.ID {
			continue // responded, gone, or another partial's
		}
		// Every delta read of the session, not only the entry's own and
		// the next: two tabs' saves at once can rewrite a delta below the
		// entry's (one that had lost to the header) with a newer state.
		own := map[string]deltaItem{}
		for n := min(it.Base, it.Deltas-1); n <= it.Deltas; n++ {
			if d, ok := deltas[[2]string{pk, PartialDeltaSK(hash, n)}]; ok {
				own[PartialDeltaSK(hash, n)] = d
			}
		}
		if st, _ := state(head, own); st.Updated == it.Updated {
			listed = append(listed, it)
		}
	}
	return listed, nil
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
