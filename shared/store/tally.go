package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
)

// AttrRespondents is the survey item's mark that some response recorded
// who signed in (contract section 18), set by the tally from the stream
// (so no submission writes the survey's item) and by imports.
const AttrRespondents = "respondents"

// TallyPK is the partition of a survey's stream checkpoints.
func TallyPK(sid int64) string { return "TALLY#" + pad(sid) }

// tallyTTL is how long a checkpoint is kept: past the stream's retention.
const tallyTTL = 48 * time.Hour

// TallyChange is what a stream record of a response does to the counts.
type TallyChange int

const (
	// TallyInsert is a new response: one more, and its attributes added.
	TallyInsert TallyChange = iota
	// TallyModify is an edit: its attributes moved from OldReportAttrs to
	// ReportAttrs (the record's old and new images), the count unchanged.
	TallyModify
	// TallyRemove is a deleted (or withdrawn) response: one fewer, and
	// its attributes (ReportAttrs, from the old image) taken back.
	TallyRemove
)

// TallyRecord is one stream record's change to its survey's counts.
type TallyRecord struct {
	// Seq is the record's sequence number in its stream shard (decimal).
	Seq string
	// Change is an insertion (the zero value), an edit or a removal.
	Change TallyChange
	// ReportAttrs are the response's report attributes (ReportAttr): of
	// its new image for an insertion or an edit, of its old one for a
	// removal. OldReportAttrs are an edit's attributes before it.
	ReportAttrs, OldReportAttrs []string
	// Variables are the ids of variables whose has_response it sets.
	Variables []int64
	// Spam marks a response of a repeated responder (tag_spam, contract
	// section 16): it counts in the survey's spam_responses too. OldSpam
	// is an edit's mark before it.
	Spam, OldSpam bool
	// Respondent marks an inserted response that records who signed in
	// (contract section 18): the survey's AttrRespondents is set.
	Respondent bool
	// View marks a view record instead of a response: it adds one view
	// (to the views item of the survey in folder FolderID of AccountID).
	View                bool
	AccountID, FolderID int64
	// Partial is a partial response's record (contract section 20): +1
	// when a session's item gains its partial, -1 when its response
	// replaces it or the TTL removes it (the survey's
	// partial_responses_count).
	Partial int64
}

// seqKey makes sequence numbers (decimal, up to 40 digits) compare as
// strings.
func seqKey(seq string) string {
	if len(seq) >= 40 {
		return seq
	}
	return strings.Repeat("0", 40-len(seq)) + seq
}

// A checkpoint names a part of a record: "<seqKey>/<part>", 4 digits. A
// record's attributes are applied in parts that one update can carry, so
// that no write exceeds DynamoDB's limits however many a response names;
// checkpoints written before parts existed name a whole record (no "/")
// and are read as its last part.
func partKey(seq string, part int) string { return fmt.Sprintf("%s/%04d", seqKey(seq), part) }

func checkpointKey(stored string) string {
	if stored == "" || strings.Contains(stored, "/") {
		return stored
	}
	return stored + "/~"
}

// tallyUpdateBytes bounds what a record's part, and one aggregate shard's
// update of a transaction, ADDs: an update expression is at most 4 KB,
// and each attribute takes its name and a value placeholder there
// (attrCost; names need no placeholder of their own).
const tallyUpdateBytes = 3500

// attrCost is an attribute's share of an update expression: "name :vN, ".
func attrCost(name string) int { return len(name) + len(" :v0000, ") }

// tallyPart is one part of a record, as it changes the counts.
type tallyPart struct {
	key              string
	responses, spam  int64
	views            int64
	viewAID, viewFID int64
	partials         int64
	attrs            map[string]int64
	vars             []int64
	respondent       bool
}

// tallyParts is the changes of r, in order: none when it changes nothing
// (an edit that moved no count).
func tallyParts(r TallyRecord) []tallyPart {
	if r.View {
		return []tallyPart{{key: partKey(r.Seq, 0), views: 1, viewAID: r.AccountID, viewFID: r.FolderID}}
	}
	if r.Partial != 0 {
		return []tallyPart{{key: partKey(r.Seq, 0), partials: r.Partial}}
	}
	attrs := map[string]int64{}
	add := func(as []string, sign int64) {
		for _, a := range as {
			if name, w, ok := ReportAttr(a); ok {
				attrs[name] += sign * w
			}
		}
	}
	first := tallyPart{vars: r.Variables}
	spam := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	switch r.Change {
	case TallyInsert:
		first.responses, first.spam, first.respondent = 1, spam(r.Spam), r.Respondent
		add(r.ReportAttrs, 1)
		attrs["n"]++
	case TallyRemove:
		first.responses, first.spam = -1, -spam(r.Spam)
		add(r.ReportAttrs, -1)
		attrs["n"]--
	case TallyModify:
		first.spam = spam(r.Spam) - spam(r.OldSpam)
		add(r.ReportAttrs, 1)
		add(r.OldReportAttrs, -1)
	}
	names := make([]string, 0, len(attrs))
	for a, n := range attrs {
		if n != 0 {
			names = append(names, a)
		}
	}
	sort.Strings(names)
	var parts []tallyPart
	for len(names) > 0 || len(parts) == 0 {
		p := tallyPart{attrs: map[string]int64{}}
		if len(parts) == 0 {
			p = first
			p.attrs = map[string]int64{}
		}
		for used := 0; len(names) > 0 && used+attrCost(names[0]) <= tallyUpdateBytes; names = names[1:] {
			p.attrs[names[0]] = attrs[names[0]]
			used += attrCost(names[0])
		}
		p.key = partKey(r.Seq, len(parts))
		parts = append(parts, p)
	}
	if len(parts) == 1 && parts[0].responses == 0 && parts[0].spam == 0 && len(parts[0].attrs) == 0 && len(parts[0].vars) == 0 {
		return nil
	}
	return parts
}

// tallyAttempts bounds the tries of a tally lost to a concurrent write of
// the survey item (an owner's edit); then the batch fails and the stream
// retries it, which the checkpoint makes harmless.
const tallyAttempts = 8

// ApplyTally applies the records of one stream shard to one survey's counts
// (responses, report aggregates, views), exactly once, and answers how many
// records it applied (0 when all were applied before). recs are in the
// shard's order. Most batches are one transaction; one whose attributes would
// not fit one is applied in several, in order, each moving the checkpoint to
// its last part.
//
// Why the counts are applied from the stream and how a checkpoint makes
// that exactly once:
// docs/data-model.md#the-tally-counts-applied-from-the-stream.
func (s *Store) ApplyTally(ctx context.Context, sid int64, streamShard string, recs []TallyRecord) (int, error) {
	var parts []tallyPart
	for _, r := range recs {
		parts = append(parts, tallyParts(r)...)
	}
	applied := map[string]bool{}
	for attempt := 1; ; attempt++ {
		var cp struct {
			Seq string `dynamo:"seq"`
		}
		err := s.table.Get(AttrPK, TallyPK(sid)).Range(AttrSK, dynamo.Equal, streamShard).Consistent(true).One(ctx, &cp)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return 0, s.fail(fmt.Sprintf("read the tally checkpoint of survey %d", sid), err)
		}
		done := checkpointKey(cp.Seq)
		var todo []tallyPart
		for _, p := range parts {
			if p.key > done {
				todo = append(todo, p)
			}
		}
		stored := cp.Seq
		for len(todo) > 0 {
			n := tallyChunk(todo)
			err = s.tallyTx(ctx, sid, streamShard, stored, todo[:n])
			if err != nil {
				break
			}
			for _, p := range todo[:n] {
				applied[p.key[:40]] = true
			}
			stored, todo = todo[n-1].key, todo[n:]
		}
		switch {
		case err == nil:
			return len(applied), nil
		case attempt == tallyAttempts:
			return 0, s.fail(fmt.Sprintf("tally %d records of survey %d", len(recs), sid), err)
		case dynamo.IsCondCheckFailed(err), txConflict(err):
			// Another run moved the checkpoint (read it again), or an
			// owner's write held the survey item a moment.
			if err := backoff(ctx, attempt); err != nil {
				return 0, err
			}
		default:
			return 0, s.fail(fmt.Sprintf("tally %d records of survey %d", len(recs), sid), err)
		}
	}
}

// tallyChunk is how many of parts (at least one) one transaction applies:
// as many as keep each aggregate shard's update within tallyUpdateBytes.
func tallyChunk(parts []tallyPart) int {
	seen := map[string]bool{}
	used := make([]int, AggShards)
	for i, p := range parts {
		grown := make([]int, AggShards)
		for a := range p.attrs {
			if !seen[a] {
				grown[attrShard(a)] += attrCost(a)
			}
		}
		for sh, g := range grown {
			if used[sh]+g > tallyUpdateBytes && i > 0 {
				return i
			}
		}
		for a := range p.attrs {
			if !seen[a] {
				seen[a] = true
				used[attrShard(a)] += attrCost(a)
			}
		}
	}
	return len(parts)
}

// tallyTx applies parts in one transaction, with the checkpoint moved from
// prev (as stored; "" for none) to the last part's key.
func (s *Store) tallyTx(ctx context.Context, sid int64, streamShard, prev string, parts []tallyPart) error {
	var responses, spam, views, viewAID, viewFID, partials int64
	attrs := map[string]int64{}
	vars := map[int64]bool{}
	respondents := false
	for _, p := range parts {
		responses, spam, views, partials = responses+p.responses, spam+p.spam, views+p.views, partials+p.partials
		respondents = respondents || p.respondent
		if p.views > 0 {
			viewAID, viewFID = p.viewAID, p.viewFID
		}
		for a, n := range p.attrs {
			attrs[a] += n
		}
		for _, v := range p.vars {
			vars[v] = true
		}
	}
	tx := s.db.WriteTx()
	if responses != 0 || spam != 0 || partials != 0 || respondents {
		count := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK)
		if partials != 0 {
			count.Add(AttrPartialCount, partials)
		}
		if respondents {
			count.Set(AttrRespondents, true)
		}
		if responses != 0 {
			count.Add("submitted_responses", responses)
		}
		if spam != 0 {
			count.Add(AttrSpamResponses, spam)
		}
		tx.Update(count)
	}
	shards := map[int]*dynamo.Update{}
	for a, n := range attrs {
		if n == 0 {
			continue
		}
		sh := attrShard(a)
		if shards[sh] == nil {
			shards[sh] = s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(sh))
		}
		shards[sh].Add(a, n)
	}
	for sh := range AggShards {
		if u := shards[sh]; u != nil {
			tx.Update(u)
		}
	}
	if views > 0 {
		tx.Update(s.addViews(viewAID, viewFID, sid, views))
	}
	if len(vars) > 0 {
		ids := make([]int64, 0, len(vars))
		for v := range vars {
			ids = append(ids, v)
		}
		tx.Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, variablesSK).Add("responded", ids))
	}
	put := s.table.Put(map[string]any{
		AttrPK: TallyPK(sid), AttrSK: streamShard, "seq": parts[len(parts)-1].key, AttrTTL: s.Now().Add(tallyTTL).Unix(),
	})
	if prev == "" {
		put.If("attribute_not_exists(PK)")
	} else {
		put.If("$ = ?", "seq", prev)
	}
	tx.Put(put)
	return tx.Run(ctx)
}
