package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/big"
	"sort"
	"strconv"
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

// PartialCountSK is the survey's partial count: the base item,
// SURVEY#<sid> / PCOUNT, and one item a stream shard, PCOUNT#<checkpoint
// name>, each AttrPartialCount. The tally ADDs a shard's partial records
// to the shard's item, beside that item's one checkpoint (so no item
// carries more, however many partitions the table has); an item whose
// checkpoint is past its age is folded into the base (partialCountAbsent).
// None has GSI keys (the owner's lists do not show the count), so a
// partial's record writes its shard's item alone, not the survey item and
// its GSI1 copy. The survey's partial_responses_count is the survey item's
// AttrPartialCount (what the tally added there before these items, kept)
// and these items' together: decodeCollection reads them all in the
// collection's Query.
const PartialCountSK = "PCOUNT"

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
	// replaces it or the TTL removes it (the survey's partial count
	// item, PartialCountSK).
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

// tallyConflictFor bounds how long a counter item's write keeps trying
// while concurrent transactions hold the item (an owner's change of the
// survey item, each of its tries a hold of its own): within the tally
// function's 60 s, and far beyond a hold on DynamoDB (milliseconds). A
// batch that fails goes back to the stream whole.
const tallyConflictFor = 10 * time.Second

// ApplyTally applies the records of one stream shard to one survey's counts
// (responses, partials, report aggregates, views), exactly once, and answers how many
// records it applied (0 when all were applied before). recs are in the
// shard's order.
//
// Each counter item the records change (the survey item, the partial
// count item, an aggregate shard, the views item) is written by one conditional UpdateItem that
// carries its own checkpoint of this stream shard (tallyCheckpoint), not
// by a transaction with a checkpoint item: a pass at one response a minute
// writes its items once each (1 unit a KB) instead of twice and a
// checkpoint besides. A record's parts (tallyParts) are applied to each
// item in order; a part an item's checkpoint has passed is passed over, so
// a batch retried whole, halved or from any record adds nothing twice to
// any item. The variables' has_response set is an ADD of ids, the same
// however often it runs, and needs no checkpoint.
//
// A partial's records (its +1 and -1) are added to the stream shard's
// partial count item (PartialCountSK), not to the survey item, whose
// AttrPartialCount holds what was added there before; what stands for
// that item's checkpoint before it has one (the survey item's, for a
// batch the survey item took before a deployment and given again after
// it): partialCountAbsent.
//
// Checkpoints the earlier transactions wrote (TALLY#<sid> / <shard>) are
// still read: what they passed was applied, so a batch applied before a
// deployment and retried after it adds nothing either. Nothing writes them
// now (so they are read eventually consistent), and their TTL removes
// them within 48 hours.
//
// Why the counts are applied from the stream and how a checkpoint makes
// that exactly once:
// docs/data-model.md#the-tally-counts-applied-from-the-stream.
func (s *Store) ApplyTally(ctx context.Context, sid int64, streamShard string, recs []TallyRecord) (int, error) {
	var parts []tallyPart
	for _, r := range recs {
		parts = append(parts, tallyParts(r)...)
	}
	if len(parts) == 0 {
		return 0, nil
	}
	var cp struct {
		Seq string `dynamo:"seq"`
	}
	// Eventually consistent: nothing writes these checkpoints any more,
	// so every copy of one says the same (half a read unit a pass).
	err := s.table.Get(AttrPK, TallyPK(sid)).Range(AttrSK, dynamo.Equal, streamShard).One(ctx, &cp)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, s.fail(fmt.Sprintf("read the tally checkpoint of survey %d", sid), err)
	}
	done := checkpointKey(cp.Seq)
	surveyItem := &tallyItem{pk: SurveyPK(sid), sk: SurveySK}
	partialItem := &tallyItem{pk: SurveyPK(sid), sk: partialShardSK(streamShard), absent: func(ctx context.Context, name string) ([]byte, error) {
		return s.partialCountAbsent(ctx, sid, streamShard, name)
	}}
	viewsItem := &tallyItem{pk: SurveyPK(sid), sk: viewsSK}
	shards := make([]tallyItem, AggShards)
	vars := map[int64]bool{}
	for _, p := range parts {
		if p.key <= done {
			continue
		}
		if p.responses != 0 || p.spam != 0 || p.respondent {
			surveyItem.parts = append(surveyItem.parts, tallyPart{key: p.key, responses: p.responses, spam: p.spam, respondent: p.respondent})
		}
		if p.partials != 0 {
			partialItem.parts = append(partialItem.parts, tallyPart{key: p.key, partials: p.partials})
		}
		if p.views != 0 {
			viewsItem.parts = append(viewsItem.parts, tallyPart{key: p.key, views: p.views, viewAID: p.viewAID, viewFID: p.viewFID})
		}
		var split map[int]map[string]int64
		for a, n := range p.attrs {
			if n == 0 {
				continue
			}
			if split == nil {
				split = map[int]map[string]int64{}
			}
			sh := attrShard(a)
			if split[sh] == nil {
				split[sh] = map[string]int64{}
			}
			split[sh][a] = n
		}
		for sh, attrs := range split {
			shards[sh].parts = append(shards[sh].parts, tallyPart{key: p.key, attrs: attrs})
		}
		for _, v := range p.vars {
			vars[v] = true
		}
	}
	applied := map[string]bool{}
	apply := func(it *tallyItem, build func(*dynamo.Update, []tallyPart), chunk func([]tallyPart) int) error {
		if len(it.parts) == 0 {
			return nil
		}
		keys, err := s.tallyItem(ctx, streamShard, it, build, chunk)
		for _, k := range keys {
			applied[k[:40]] = true
		}
		if err != nil {
			return s.fail(fmt.Sprintf("tally %d records of survey %d", len(recs), sid), err)
		}
		return nil
	}
	whole := func(p []tallyPart) int { return len(p) }
	// The partial count before the survey item: until the shard's partial
	// count item has a checkpoint, the survey item's may say which partial
	// records the survey item took before (partialCountAbsent), and a
	// batch that moves the survey item's checkpoint has moved this one's
	// first.
	if err := apply(partialItem, func(up *dynamo.Update, ps []tallyPart) {
		var n int64
		for _, p := range ps {
			n += p.partials
		}
		up.Add(AttrPartialCount, n)
	}, whole); err != nil {
		return 0, err
	}
	if err := apply(surveyItem, tallySurveyUpdate, whole); err != nil {
		return 0, err
	}
	for sh := range shards {
		shards[sh].pk, shards[sh].sk = AggPK(sid), AggSK(sh)
		if err := apply(&shards[sh], tallyShardUpdate, tallyChunk); err != nil {
			return 0, err
		}
	}
	if err := apply(viewsItem, func(up *dynamo.Update, ps []tallyPart) {
		var n int64
		for _, p := range ps {
			n += p.views
		}
		s.viewsUpdate(up, ps[0].viewAID, ps[0].viewFID, sid, n)
	}, whole); err != nil {
		return 0, err
	}
	if len(vars) > 0 {
		ids := make([]int64, 0, len(vars))
		for v := range vars {
			ids = append(ids, v)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		if err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, variablesSK).Add("responded", ids).Run(ctx); err != nil {
			return 0, s.fail(fmt.Sprintf("mark the variables of survey %d", sid), err)
		}
	}
	return len(applied), nil
}

// tallyItem is one counter item's share of a pass: its key and the parts
// that change it, in the stream shard's order, each holding only this
// item's changes.
type tallyItem struct {
	pk, sk string
	parts  []tallyPart
	// absent, when set, is called when the item has no checkpoint of the
	// shard (named name): it answers what stands for it (nil: nothing
	// applied yet). The item's first write is then conditional on a
	// checkpoint, so absent is called once, before the item is created:
	// partialCountAbsent.
	absent func(ctx context.Context, name string) ([]byte, error)
}

// tallySurveyUpdate adds the parts' counts to the survey item.
func tallySurveyUpdate(up *dynamo.Update, ps []tallyPart) {
	var responses, spam int64
	respondents := false
	for _, p := range ps {
		responses, spam = responses+p.responses, spam+p.spam
		respondents = respondents || p.respondent
	}
	if respondents {
		up.Set(AttrRespondents, true)
	}
	if responses != 0 {
		up.Add("submitted_responses", responses)
	}
	if spam != 0 {
		up.Add(AttrSpamResponses, spam)
	}
}

// tallyShardUpdate adds the parts' attributes to an aggregate shard.
func tallyShardUpdate(up *dynamo.Update, ps []tallyPart) {
	attrs := map[string]int64{}
	for _, p := range ps {
		for a, n := range p.attrs {
			attrs[a] += n
		}
	}
	names := make([]string, 0, len(attrs))
	for a, n := range attrs {
		if n != 0 {
			names = append(names, a)
		}
	}
	sort.Strings(names)
	for _, a := range names {
		up.Add(a, attrs[a])
	}
}

// tallyItem applies it.parts to the item, each once: a run of parts (as
// many as chunk takes) is one UpdateItem that moves the item's checkpoint
// of streamShard from below the run's first part to its last, conditional
// on that. When the condition fails (a run applied before, or part of
// it), the checkpoint is read and the parts it passed are dropped; the
// write is then conditional on the checkpoint as read. It answers the keys
// of the parts it wrote.
//
// The checkpoint written is the last part's value stamped with the hour
// it is written (tallyStamp); conditions compare the parts' values
// unstamped, which order before any stamped value of the same part and
// after every value of an earlier one, so a checkpoint of either form
// passes over what it names and nothing after it.
func (s *Store) tallyItem(ctx context.Context, streamShard string, it *tallyItem, build func(*dynamo.Update, []tallyPart), chunk func([]tallyPart) int) ([]string, error) {
	name := tallyCheckpoint(streamShard)
	now := s.Now()
	todo := it.parts
	var keys []string
	var prev []byte // the checkpoint as read or written
	known := false  // prev is what the item holds (nil: none)
	began := time.Now()
	for attempt := 1; len(todo) > 0; {
		n := max(1, chunk(todo))
		up := s.table.Update(AttrPK, it.pk).Range(AttrSK, it.sk)
		build(up, todo[:n])
		last := tallyStamp(todo[n-1].key, now)
		up.Set(name, last)
		first := tallyCheckpointValue(todo[0].key)
		switch {
		case !known && it.absent != nil:
			up.If("$ < ?", name, first)
		case !known:
			up.If("attribute_not_exists($) OR $ < ?", name, name, first)
		case prev == nil:
			up.If("attribute_not_exists($)", name)
		default:
			up.If("$ = ?", name, prev)
		}
		var after map[string]any
		err := up.Value(ctx, &after)
		switch {
		case err == nil:
			for _, p := range todo[:n] {
				keys = append(keys, p.key)
			}
			prev, known, todo = last, true, todo[n:]
			if err := s.pruneTallyCheckpoints(ctx, it, after); err != nil {
				return keys, err
			}
			continue
		case conflicted(err) && time.Since(began) < tallyConflictFor:
			// An owner's transaction held the item (DynamoDB cancels a
			// write that meets one, it does not queue it; an owner's
			// write may try several times): wait it out, rather than fail
			// the whole batch back to the stream. Not an attempt:
			// attempts bound the checkpoint's re-reads.
			if err := backoff(ctx, 8); err != nil {
				return keys, err
			}
			continue
		case attempt == tallyAttempts:
			return keys, err
		case dynamo.IsCondCheckFailed(err):
			var have map[string]any
			err := s.table.Get(AttrPK, it.pk).Range(AttrSK, dynamo.Equal, it.sk).Project(name).Consistent(true).One(ctx, &have)
			if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
				return keys, err
			}
			prev, known = nil, true
			passed := []byte(nil) // what the item's checkpoint, or its seed, has passed
			if b, ok := have[name].([]byte); ok {
				prev, passed = b, b
			} else if it.absent != nil {
				if passed, err = it.absent(ctx, name); err != nil {
					return keys, err
				}
			}
			var rest []tallyPart
			for _, p := range todo {
				if passed == nil || bytes.Compare(tallyCheckpointValue(p.key), passed) > 0 {
					rest = append(rest, p)
				}
			}
			todo = rest
		default:
			return keys, err
		}
		attempt++
	}
	return keys, nil
}

// tallyCheckpointOf reads an item's checkpoint named name, strongly
// consistent: nil when it has none.
func (s *Store) tallyCheckpointOf(ctx context.Context, pk, sk, name string) ([]byte, error) {
	var have map[string]any
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Project(name).Consistent(true).One(ctx, &have)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, err
	}
	b, _ := have[name].([]byte)
	return b, nil
}

// tallyCheckpointPrefix starts the name of an item's checkpoint of a
// stream shard: "ck", the hour the shard was created (6 hex digits, from
// its id; 000000 when the id does not say) and a hash of the id (8).
const tallyCheckpointPrefix = "ck"

// tallyCheckpoint is the attribute that holds an item's checkpoint of a
// stream shard.
func tallyCheckpoint(streamShard string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(streamShard))
	return fmt.Sprintf("%s%06x%08x", tallyCheckpointPrefix, tallyShardHour(streamShard), h.Sum32())
}

// tallyShardHour is the hour (since the epoch) a DynamoDB stream shard was
// created, from its id ("shardId-<milliseconds, 20 digits>-<hex>"); 0 when
// the id is not of that form.
func tallyShardHour(id string) int64 {
	f := strings.Split(id, "-")
	if len(f) != 3 || f[0] != "shardId" || len(f[1]) != 20 {
		return 0
	}
	ms, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ms <= 0 {
		return 0
	}
	return ms / int64(time.Hour/time.Millisecond)
}

// tallyCheckpointValue is a part key as a checkpoint's value: the
// sequence number (40 decimal digits) in 17 bytes and the part in 2, so
// that the bytes compare as the key does, in 19 bytes instead of 45.
func tallyCheckpointValue(key string) []byte {
	seq, part, _ := strings.Cut(key, "/")
	n, ok := new(big.Int).SetString(seq, 10)
	if !ok {
		n = new(big.Int)
	}
	out := make([]byte, 19)
	n.FillBytes(out[:17])
	p, _ := strconv.Atoi(part)
	binary.BigEndian.PutUint16(out[17:], uint16(p))
	return out
}

// TallyMaxRecordAge is the tally's MaximumRecordAgeInSeconds in
// template.yaml (and make run's): Lambda never hands the function a record
// older than this, however long the stream keeps it past its 24 hours
// (records older than that are "subject to removal", not removed at once).
const TallyMaxRecordAge = 24 * time.Hour

// tallyCheckpointAge is how long an item keeps a checkpoint after it was
// last written: a record it passes is older than the write, so once the
// write is TallyMaxRecordAge ago no such record can be handed over again
// (and a later record of the shard is past it anyway: without the
// checkpoint it is applied, as it should be). An hour's margin covers the
// clocks and the hour's rounding of the stamp. Pruning by the shard's
// creation instead, as before, needed a bound on how long a shard takes
// records (about four hours, not documented) and kept checkpoints 48 hours.
const tallyCheckpointAge = TallyMaxRecordAge + time.Hour

// tallyLegacyCheckpointAge prunes checkpoints written before they were
// stamped (19 bytes), by the hour their shard was created.
const tallyLegacyCheckpointAge = 48 * time.Hour

// tallyStampLen is a stamped checkpoint's length: the part's value and the
// hour it was written, 3 bytes.
const tallyStampLen = 22

// tallyStamp is the checkpoint of the part key written at now.
func tallyStamp(key string, now time.Time) []byte {
	h := uint32(now.Unix() / 3600)
	return append(tallyCheckpointValue(key), byte(h>>16), byte(h>>8), byte(h))
}

// attrTallySince is the hour the partial count's base item was first
// written (partialCountAbsent).
const attrTallySince = "since"

// partialShardSK is the partial count item of a stream shard:
// PCOUNT#<its checkpoint's name>.
func partialShardSK(streamShard string) string {
	return PartialCountSK + "#" + tallyCheckpoint(streamShard)
}

// partialCountAbsent is called when the partial count item of streamShard
// has no checkpoint: before its first write, and after a fold removed it.
// In one Query of the survey's count items (strongly consistent) it
//
//   - folds into the base item (PartialCountSK) each shard's item whose
//     checkpoint was written more than tallyCheckpointAge ago: one
//     transaction deletes it, conditional on its checkpoint as read, and
//     adds its count to the base. No record that checkpoint passed can be
//     handed over again (TallyMaxRecordAge), and a later record of that
//     shard is past it anyway: it starts the shard's item again. So the
//     items are the shards that wrote the count within a day or so, each
//     with one checkpoint, however many partitions the table has;
//   - writes the base item's since (the hour it is first written) if it
//     has none;
//   - answers what stands for the shard's checkpoint: nothing when the
//     shard was created more than an hour after since (no tally before
//     the partial count items read it), else the survey item's checkpoint
//     of the shard: the tally added partial records to the survey item
//     before 29 November 2026, and a batch it took may be given again.
//     The partial count is written before the survey item in each pass,
//     so that checkpoint has passed no partial record the partial count
//     has not taken.
func (s *Store) partialCountAbsent(ctx context.Context, sid int64, streamShard, name string) ([]byte, error) {
	var items []map[string]any
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.BeginsWith, PartialCountSK).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	since := int64(-1)
	for _, it := range items {
		sk, _ := it[AttrSK].(string)
		if sk == PartialCountSK {
			if v, ok := it[attrTallySince]; ok {
				since = toInt(v)
			}
			continue
		}
		for a, v := range it {
			b, ok := v.([]byte)
			if !ok || len(b) != tallyStampLen || !strings.HasPrefix(a, tallyCheckpointPrefix) || !tallyStale(b, now) {
				continue
			}
			err := s.db.WriteTx().
				Delete(s.table.Delete(AttrPK, SurveyPK(sid)).Range(AttrSK, sk).If("$ = ?", a, b)).
				Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, PartialCountSK).Add(AttrPartialCount, toInt(it[AttrPartialCount]))).
				Run(ctx)
			if err != nil && txReasons(err) == nil {
				return nil, err
			}
			// Cancelled: written or folded meanwhile; a later call folds it.
		}
	}
	if since < 0 {
		var base map[string]any
		err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, PartialCountSK).SetIfNotExists(attrTallySince, now.Unix()/3600).Value(ctx, &base)
		if err != nil {
			return nil, err
		}
		since = toInt(base[attrTallySince])
	}
	if since < tallyShardHour(streamShard)-1 {
		return nil, nil
	}
	return s.tallyCheckpointOf(ctx, SurveyPK(sid), SurveySK, name)
}

// tallyStale reports whether a stamped checkpoint was written more than
// tallyCheckpointAge before now.
func tallyStale(b []byte, now time.Time) bool {
	written := int64(b[19])<<16 | int64(b[20])<<8 | int64(b[21])
	return (written+1)*3600+int64(tallyCheckpointAge/time.Second) <= now.Unix()
}

// pruneTallyCheckpoints removes from an item (as written, after) the
// checkpoints written more than tallyCheckpointAge ago (and those of the
// old form, unstamped, of stream shards created more than
// tallyLegacyCheckpointAge ago), so that an item carries the checkpoints
// of the shards that wrote it within a day, not one for every shard it
// ever met. It writes only when there is one to remove.
func (s *Store) pruneTallyCheckpoints(ctx context.Context, it *tallyItem, after map[string]any) error {
	now := s.Now()
	oldest := now.Add(-tallyLegacyCheckpointAge).Unix() / 3600
	var stale []string
	for a, v := range after {
		if len(a) != len(tallyCheckpointPrefix)+14 || !strings.HasPrefix(a, tallyCheckpointPrefix) {
			continue
		}
		if b, ok := v.([]byte); ok && len(b) == tallyStampLen {
			if tallyStale(b, now) {
				stale = append(stale, a)
			}
			continue
		}
		hour, err := strconv.ParseInt(a[len(tallyCheckpointPrefix):len(tallyCheckpointPrefix)+6], 16, 64)
		if err == nil && hour > 0 && hour < oldest {
			stale = append(stale, a)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	sort.Strings(stale)
	up := s.table.Update(AttrPK, it.pk).Range(AttrSK, it.sk)
	for _, a := range stale {
		// Only as read: a checkpoint another shard's pass wrote meanwhile
		// is kept (pruned on a later write).
		up.Remove(a).If("$ = ?", a, after[a])
	}
	if err := up.Run(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
		return err
	}
	return nil
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
