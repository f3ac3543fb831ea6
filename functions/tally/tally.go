// Package tally keeps the counts that submissions no longer write: it
// reads the table's stream (filtered to the insertion of submitted
// responses) and adds each survey's new responses to its
// submitted_responses, its public report's aggregates and its variables'
// has_response flags, exactly once (store.ApplyTally: a checkpoint per
// survey and stream shard, in the same transaction as the counts). Lambda
// runs it on the stream with a tumbling window, which is what gives the
// handler its shard's id (functions/tally/lambda); `make run` feeds it
// the same events from the emulator's stream. It is apart from dispatch
// (the webhooks' reader of the same stream) on purpose: a failing webhook
// never holds counts back, and the other way round. A stream shard has at
// most two readers: these two.
package tally

import (
	"context"
	"log/slog"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
)

// FilterPattern is the stream event source's filter (template.yaml's
// FilterCriteria, which a test holds equal to it): only insertions of
// submitted responses and of view records reach the function. Handle
// checks the same again.
const FilterPattern = `{"eventName": ["INSERT"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}, {"prefix": "VIEW#"}]}}, "NewImage": {"tally": {"BOOL": [true]}}}}`

// Store is what the tally writes; *store.Store implements it.
type Store interface {
	ApplyTally(ctx context.Context, sid int64, streamShard string, recs []store.TallyRecord) (int, error)
	// ApplyResponsePages counts the same responses in the survey's page
	// index (store/responsepages.go), with a checkpoint of its own.
	ApplyResponsePages(ctx context.Context, sid int64, streamShard string, recs []store.ResponsePageRecord) (int, error)
}

var _ Store = (*store.Store)(nil)

// Tally handles batches of stream records.
type Tally struct {
	Store Store
	// Now is the clock the lag is measured with.
	Now func() time.Time
}

// Matches reports whether a stream record is one Handle counts: the
// insertion of a submitted response or of a view record (the event source
// filter, in Go).
func Matches(rec events.DynamoDBEventRecord) bool {
	if rec.EventName != "INSERT" {
		return false
	}
	sk, ok := rec.Change.Keys["SK"]
	if !ok || sk.DataType() != events.DataTypeString || !(hasPrefix(sk.String(), "RESPONSE#") || hasPrefix(sk.String(), "VIEW#")) {
		return false
	}
	t, ok := rec.Change.NewImage["tally"]
	return ok && t.DataType() == events.DataTypeBoolean && t.Boolean()
}

func hasPrefix(s, p string) bool { return len(s) > len(p) && s[:len(p)] == p }

// record reads what the tally needs of a record's new image.
func record(rec events.DynamoDBEventRecord) (sid int64, r store.TallyRecord, ok bool) {
	img := rec.Change.NewImage
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	num := func(name string) int64 {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeNumber {
			n, err := strconv.ParseInt(v.Number(), 10, 64)
			if err == nil {
				return n
			}
		}
		return 0
	}
	if rec.Change.SequenceNumber == "" {
		return 0, store.TallyRecord{}, false
	}
	r.Seq = rec.Change.SequenceNumber
	if hasPrefix(str("SK"), "VIEW#") {
		r.View, r.AccountID, r.FolderID = true, num("account_id"), num("folder_id")
		sid = num("survey_id")
		return sid, r, sid > 0 && r.AccountID > 0 && r.FolderID > 0
	}
	ref, ok := store.ParseResponseRef(str("PK"), str("SK"), str("submitted_at"))
	if !ok {
		return 0, store.TallyRecord{}, false
	}
	if v, ok := img["agg"]; ok && v.DataType() == events.DataTypeStringSet {
		r.ReportAttrs = v.StringSet()
	}
	if v, ok := img["spam"]; ok && v.DataType() == events.DataTypeBoolean {
		r.Spam = v.Boolean()
	}
	if v, ok := img["vars_new"]; ok && v.DataType() == events.DataTypeNumberSet {
		for _, n := range v.NumberSet() {
			id, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return 0, store.TallyRecord{}, false
			}
			r.Variables = append(r.Variables, id)
		}
	}
	return ref.SurveyID, r, true
}

// pageRecord is a response record as the page index takes it.
func pageRecord(rec events.DynamoDBEventRecord) (store.ResponsePageRecord, bool) {
	img := rec.Change.NewImage
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	ref, ok := store.ParseResponseRef(str("PK"), str("SK"), str("submitted_at"))
	if !ok {
		return store.ResponsePageRecord{}, false
	}
	return store.ResponsePageRecord{Seq: rec.Change.SequenceNumber, Shard: store.ResponseShard(ref.ResponseID),
		Key: store.ResponseTimeSK(ref.SubmittedAt, ref.ResponseID)}, true
}

// Handle adds a batch's responses to their surveys' counts, and to their
// surveys' responses page index (after the counts: each has its own
// checkpoint, so a retried batch adds to neither twice). Records it
// cannot read are logged and passed over (no retry would mend them). An
// error fails the batch: the stream gives it again, and the checkpoints
// pass over what was applied. The window's state is not used: each batch
// is applied as it comes, so counts lag the submissions by the batching
// window and a write.
func (t *Tally) Handle(ctx context.Context, ev events.DynamoDBTimeWindowEvent) (events.DynamoDBTimeWindowEventResponse, error) {
	bySurvey := map[int64][]store.TallyRecord{}
	pages := map[int64][]store.ResponsePageRecord{}
	var oldest time.Time
	for _, rec := range ev.Records {
		if !Matches(rec) {
			continue
		}
		sid, r, ok := record(rec)
		if !ok {
			slog.ErrorContext(ctx, "tally: unreadable record", "event", rec.EventID)
			continue
		}
		bySurvey[sid] = append(bySurvey[sid], r)
		if p, ok := pageRecord(rec); ok && !r.View {
			pages[sid] = append(pages[sid], p)
		}
		if at := rec.Change.ApproximateCreationDateTime.Time; !at.IsZero() && (oldest.IsZero() || at.Before(oldest)) {
			oldest = at
		}
	}
	sids := make([]int64, 0, len(bySurvey))
	for sid := range bySurvey {
		sids = append(sids, sid)
	}
	sort.Slice(sids, func(i, j int) bool { return sids[i] < sids[j] })
	added := 0
	for _, sid := range sids {
		n, err := t.Store.ApplyTally(ctx, sid, ev.ShardID, bySurvey[sid])
		if err != nil {
			return events.DynamoDBTimeWindowEventResponse{}, err
		}
		added += n
		if len(pages[sid]) > 0 {
			if _, err := t.Store.ApplyResponsePages(ctx, sid, ev.ShardID, pages[sid]); err != nil {
				return events.DynamoDBTimeWindowEventResponse{}, err
			}
		}
	}
	if added > 0 {
		lag := time.Duration(0)
		if !oldest.IsZero() && t.Now != nil {
			lag = t.Now().Sub(oldest)
		}
		slog.InfoContext(ctx, "tally", "shard", ev.ShardID, "surveys", len(sids), "responses", added, "lag_ms", lag.Milliseconds())
	}
	return events.DynamoDBTimeWindowEventResponse{}, nil
}
