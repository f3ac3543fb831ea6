package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"
)

// A submission writes only items of its own responder (its response, its
// Idempotency-Key, its code, its link: submit.go); the counts every
// response adds to, the survey's submitted_responses, the public report's
// aggregates and the variables' has_response flags, are applied from the
// table's stream by the tally function (functions/tally), a few writes a
// second per survey however many responses arrive.
//
// Exactly once: the stream gives each shard's records in order, each
// with a sequence number that grows within the shard. For each survey and
// stream shard, TALLY#<sid> / <shard id> holds the last sequence number
// applied, and the write that applies a batch's records of a survey is one
// transaction of the counts and that checkpoint, conditional on the
// checkpoint being what was read. Records at or below the checkpoint are
// passed over, so a batch retried whole, in halves, or from any record
// adds nothing twice; a checkpoint outlives the stream's 24 hours of
// records (TTL 48 hours), after which no record of its shard can return.

// TallyPK is the partition of a survey's stream checkpoints.
func TallyPK(sid int64) string { return "TALLY#" + pad(sid) }

// tallyTTL is how long a checkpoint is kept: past the stream's retention.
const tallyTTL = 48 * time.Hour

// TallyRecord is one response's addition to its survey's counts, as its
// stream record carries it.
type TallyRecord struct {
	// Seq is the record's sequence number in its stream shard (decimal).
	Seq string
	// ReportAttrs are the aggregate attributes the response adds one to.
	ReportAttrs []string
	// Variables are the ids of variables whose has_response it sets.
	Variables []int64
	// Spam marks a response of a repeated responder (tag_spam, contract
	// section 16): it adds one to the survey's spam_responses too.
	Spam bool
	// View marks a view record instead of a response: it adds one view
	// (to the views item of the survey in folder FolderID of AccountID).
	View                bool
	AccountID, FolderID int64
}

// seqKey makes sequence numbers (decimal, up to 40 digits) compare as
// strings.
func seqKey(seq string) string {
	if len(seq) >= 40 {
		return seq
	}
	return strings.Repeat("0", 40-len(seq)) + seq
}

// tallyAggShard is the report shard a stream shard's tallies add to.
func tallyAggShard(streamShard string) int {
	h := fnv.New32a()
	h.Write([]byte(streamShard))
	return int(h.Sum32() % AggShards)
}

// tallyAttempts bounds the tries of a tally lost to a concurrent write of
// the survey item (an owner's edit); then the batch fails and the stream
// retries it, which the checkpoint makes harmless.
const tallyAttempts = 8

// ApplyTally adds the records of one stream shard to one survey's counts
// (responses and views), exactly once (see above), and answers how many it
// added (0 when all were applied before). recs are in the shard's order.
func (s *Store) ApplyTally(ctx context.Context, sid int64, streamShard string, recs []TallyRecord) (int, error) {
	for attempt := 1; ; attempt++ {
		var cp struct {
			Seq string `dynamo:"seq"`
		}
		err := s.table.Get(AttrPK, TallyPK(sid)).Range(AttrSK, dynamo.Equal, streamShard).Consistent(true).One(ctx, &cp)
		if err != nil && err != dynamo.ErrNotFound {
			return 0, s.fail(fmt.Sprintf("read the tally checkpoint of survey %d", sid), err)
		}
		var (
			n, views, spam int64
			viewed         TallyRecord
			attrs          = map[string]int64{}
			vars           = map[int64]bool{}
			last           string
		)
		for _, r := range recs {
			k := seqKey(r.Seq)
			if k <= cp.Seq {
				continue
			}
			last = max(last, k)
			if r.View {
				views, viewed = views+1, r
				continue
			}
			n++
			if r.Spam {
				spam++
			}
			for _, a := range r.ReportAttrs {
				attrs[a]++
			}
			for _, v := range r.Variables {
				vars[v] = true
			}
		}
		if last == "" {
			return 0, nil
		}
		tx := s.db.WriteTx()
		if n > 0 {
			count := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add("submitted_responses", n)
			if spam > 0 {
				count.Add(AttrSpamResponses, spam)
			}
			tx.Update(count)
			agg := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(tallyAggShard(streamShard))).Add("n", n)
			for a, c := range attrs {
				agg.Add(a, c)
			}
			tx.Update(agg)
		}
		if views > 0 {
			tx.Update(s.addViews(viewed.AccountID, viewed.FolderID, sid, views))
		}
		if len(vars) > 0 {
			ids := make([]int64, 0, len(vars))
			for v := range vars {
				ids = append(ids, v)
			}
			tx.Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, variablesSK).Add("responded", ids))
		}
		put := s.table.Put(map[string]any{
			AttrPK: TallyPK(sid), AttrSK: streamShard, "seq": last, AttrTTL: s.Now().Add(tallyTTL).Unix(),
		})
		if cp.Seq == "" {
			put.If("attribute_not_exists(PK)")
		} else {
			put.If("$ = ?", "seq", cp.Seq)
		}
		tx.Put(put)
		err = tx.Run(ctx)
		switch {
		case err == nil:
			return int(n + views), nil
		case attempt == tallyAttempts:
			return 0, s.fail(fmt.Sprintf("tally %d responses of survey %d", n, sid), err)
		case dynamo.IsCondCheckFailed(err), txConflict(err):
			// Another run moved the checkpoint (read it again), or an
			// owner's write held the survey item a moment.
			if err := backoff(ctx, attempt); err != nil {
				return 0, err
			}
		default:
			return 0, s.fail(fmt.Sprintf("tally %d responses of survey %d", n, sid), err)
		}
	}
}
