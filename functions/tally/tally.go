// Package tally keeps the counts that submissions, edits and deletes no
// longer write: it reads the table's stream (filtered to the insertion,
// edit and removal of submitted responses, and to view records) and
// applies each to its survey's submitted_responses, its partial count
// (partials' records: their own item, store.PartialCountSK), its public
// report's aggregates and its variables' has_response flags, exactly once
// (store.ApplyTally: each counter item carries its own checkpoint of the
// stream shard, moved by the same UpdateItem as its counts). Lambda
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
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/store"
)

// FilterPatterns are the stream event source's filters (template.yaml's
// FilterCriteria, which a test holds equal to them; a record passes when
// one matches): the insertion of a submitted response or of a view record,
// the modification of a submitted response (an edit: its old and new
// images), and the removal of one (a delete, a withdrawal). Handle checks
// the same again.
var FilterPatterns = []string{
	`{"eventName": ["INSERT"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}, {"prefix": "VIEW#"}]}}, "NewImage": {"tally": {"BOOL": [true]}}}}`,
	`{"eventName": ["MODIFY"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}]}}, "NewImage": {"tally": {"BOOL": [true]}}, "OldImage": {"tally": {"BOOL": [true]}}}}`,
	`{"eventName": ["REMOVE"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "RESPONSE#"}]}}, "OldImage": {"tally": {"BOOL": [true]}}}}`,
	// Partial responses (contract section 20): a session's item gaining
	// its partial, and losing it to its response or to the TTL. A PUT that
	// replaces a partial changes no count and is not sent.
	`{"eventName": ["INSERT"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "SESSION#"}]}}, "NewImage": {"partial_id": {"N": [{"exists": true}]}}}}`,
	`{"eventName": ["MODIFY"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "SESSION#"}]}}, ` +
		`"OldImage": {"partial_id": {"N": [{"exists": true}]}}, "NewImage": {"partial_id": {"N": [{"exists": false}]}}}}`,
	`{"eventName": ["REMOVE"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "SESSION#"}]}}, "OldImage": {"partial_id": {"N": [{"exists": true}]}}}}`,
}

// Store is what the tally writes; *store.Store implements it.
type Store interface {
	ApplyTally(ctx context.Context, sid int64, streamShard string, recs []store.TallyRecord) (int, error)
	// ApplyResponsePages counts the same responses in the survey's page
	// index (store/responsepages.go), with checkpoints of its own.
	ApplyResponsePages(ctx context.Context, sid int64, streamShard string, recs []store.ResponsePageRecord) (int, error)
	// ForgetPartialEntry deletes the list's entry of a partial its
	// session's response replaced (store/partials.go).
	ForgetPartialEntry(ctx context.Context, g store.PartialGone) error
}

var _ Store = (*store.Store)(nil)

// Deps are the function's dependencies.
type Deps struct {
	Store Store
	// Now is the clock the lag is measured with; nil: no lag is logged.
	Now func() time.Time
}

// Tally handles batches of stream records.
type Tally struct{ Deps }

// New returns the function's handler.
func New(d Deps) *Tally { return &Tally{Deps: d} }

// Matches reports whether a stream record is one Handle counts (the
// event source filters, in Go): the insertion of a submitted response or
// of a view record, or an edit or removal of a submitted response.
func Matches(rec events.DynamoDBEventRecord) bool {
	sk, ok := rec.Change.Keys["SK"]
	if !ok || sk.DataType() != events.DataTypeString {
		return false
	}
	response := hasPrefix(sk.String(), "RESPONSE#")
	if hasPrefix(sk.String(), "SESSION#") {
		return partialDelta(rec) != 0
	}
	switch rec.EventName {
	case "INSERT":
		return (response || hasPrefix(sk.String(), "VIEW#")) && tallied(rec.Change.NewImage)
	case "MODIFY":
		return response && tallied(rec.Change.NewImage) && tallied(rec.Change.OldImage)
	case "REMOVE":
		return response && tallied(rec.Change.OldImage)
	}
	return false
}

// partialDelta is what a record of a session's item does to its survey's
// partial count: +1 when the item gains a partial, -1 when it loses it.
func partialDelta(rec events.DynamoDBEventRecord) int64 {
	has := func(img map[string]events.DynamoDBAttributeValue) bool {
		v, ok := img[store.AttrPartialID]
		return ok && v.DataType() == events.DataTypeNumber
	}
	before, after := has(rec.Change.OldImage), has(rec.Change.NewImage)
	switch {
	case rec.EventName == "INSERT" && after, rec.EventName == "MODIFY" && after && !before:
		return 1
	case rec.EventName == "REMOVE" && before, rec.EventName == "MODIFY" && before && !after:
		return -1
	}
	return 0
}

// partialGone reads a record of a session's claim replacing its partial
// (a MODIFY that loses the partial): the header as it was, whose list
// entry the tally deletes.
func partialGone(rec events.DynamoDBEventRecord) (store.PartialGone, bool) {
	if rec.EventName != "MODIFY" || partialDelta(rec) >= 0 {
		return store.PartialGone{}, false
	}
	old := image(rec.Change.OldImage)
	hash, ok := strings.CutPrefix(old.str("SK"), store.SessionSK(""))
	g := store.PartialGone{PartitionKey: old.str("PK"), Session: hash, Updated: old.str("updated_at"), ID: old.num(store.AttrPartialID),
		SurveyID: old.num("survey_id"), Deltas: int(old.num("deltas")), Indexed: old.str("GSI1PK") != ""}
	return g, ok && g.PartitionKey != "" && g.Session != "" && !strings.Contains(hash, "#") && g.ID > 0 && g.SurveyID > 0 && g.Updated != ""
}

// tallied reports whether an image is of an item the tally counts.
func tallied(img map[string]events.DynamoDBAttributeValue) bool {
	t, ok := img["tally"]
	return ok && t.DataType() == events.DataTypeBoolean && t.Boolean()
}

func hasPrefix(s, p string) bool { return len(s) > len(p) && s[:len(p)] == p }

// image reads the attributes of one image of a record.
type image map[string]events.DynamoDBAttributeValue

func (img image) str(name string) string {
	if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
		return v.String()
	}
	return ""
}

func (img image) num(name string) int64 {
	if v, ok := img[name]; ok && v.DataType() == events.DataTypeNumber {
		n, err := strconv.ParseInt(v.Number(), 10, 64)
		if err == nil {
			return n
		}
	}
	return 0
}

func (img image) set(name string) []string {
	if v, ok := img[name]; ok && v.DataType() == events.DataTypeStringSet {
		return v.StringSet()
	}
	return nil
}

func (img image) flag(name string) bool {
	v, ok := img[name]
	return ok && v.DataType() == events.DataTypeBoolean && v.Boolean()
}

// record reads what the tally needs of a record: for an insertion its new
// image, for a removal its old one, for an edit both.
func record(rec events.DynamoDBEventRecord) (sid int64, r store.TallyRecord, ok bool) {
	if rec.Change.SequenceNumber == "" {
		return 0, store.TallyRecord{}, false
	}
	r.Seq = rec.Change.SequenceNumber
	img, old := image(rec.Change.NewImage), image(rec.Change.OldImage)
	switch rec.EventName {
	case "MODIFY":
		r.Change = store.TallyModify
		r.OldReportAttrs, r.OldSpam = old.set("agg"), old.flag("spam")
	case "REMOVE":
		r.Change, img = store.TallyRemove, old
	}
	if d := partialDelta(rec); d != 0 {
		r.Change, r.Partial = store.TallyInsert, d
		src := image(rec.Change.NewImage)
		if d < 0 {
			src = old
		}
		sid = src.num("survey_id")
		return sid, r, sid > 0
	}
	if hasPrefix(img.str("SK"), "VIEW#") {
		r.View, r.AccountID, r.FolderID = true, img.num("account_id"), img.num("folder_id")
		sid = img.num("survey_id")
		return sid, r, r.Change == store.TallyInsert && sid > 0 && r.AccountID > 0 && r.FolderID > 0
	}
	ref, ok := store.ParseResponseRef(img.str("PK"), img.str("SK"), img.str("submitted_at"))
	if !ok {
		return 0, store.TallyRecord{}, false
	}
	r.ReportAttrs, r.Spam = img.set("agg"), img.flag("spam")
	r.Respondent = r.Change == store.TallyInsert && img.str("respondent") != ""
	if r.Change == store.TallyInsert {
		if v, ok := img["vars_new"]; ok && v.DataType() == events.DataTypeNumberSet {
			for _, n := range v.NumberSet() {
				id, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					return 0, store.TallyRecord{}, false
				}
				r.Variables = append(r.Variables, id)
			}
		}
	}
	return ref.SurveyID, r, true
}

// pageRecord is a new response's record as the page index takes it. Only
// an INSERT adds to the index: an edit (MODIFY) keeps the response's time,
// and a deletion or withdrawal (REMOVE) takes the response off the index
// in its own transaction (responsepages.go).
func pageRecord(rec events.DynamoDBEventRecord) (store.ResponsePageRecord, bool) {
	if rec.EventName != "INSERT" {
		return store.ResponsePageRecord{}, false
	}
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

// surveysAtOnce bounds the surveys of a batch applied at once.
const surveysAtOnce = 8

// Handle applies a batch's records to their surveys' counts, and adds its
// new responses to their surveys' responses page index (after the counts: each has its own
// checkpoint, so a retried batch adds to neither twice). Records it
// cannot read are logged and passed over (no retry would mend them). An
// error fails the batch: the stream gives it again, and the checkpoints
// pass over what was applied. The window's state is not used: each batch
// is applied as it comes, so counts lag the submissions by the batching
// window and a write.
func (t *Tally) Handle(ctx context.Context, ev events.DynamoDBTimeWindowEvent) (events.DynamoDBTimeWindowEventResponse, error) {
	bySurvey := map[int64][]store.TallyRecord{}
	pages := map[int64][]store.ResponsePageRecord{}
	var gone []store.PartialGone
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
		if g, ok := partialGone(rec); ok {
			gone = append(gone, g)
		}
		bySurvey[sid] = append(bySurvey[sid], r)
		if p, ok := pageRecord(rec); ok && !r.View && r.Partial == 0 {
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
	// The list's entries of partials that responses replaced, before the
	// counts: deleting one twice changes nothing, so a batch that fails
	// after them is simply given again.
	var forget errgroup.Group
	forget.SetLimit(surveysAtOnce)
	for _, g := range gone {
		forget.Go(func() error { return t.Store.ForgetPartialEntry(ctx, g) })
	}
	if err := forget.Wait(); err != nil {
		return events.DynamoDBTimeWindowEventResponse{}, err
	}
	// Surveys are apart (no item of one is another's), so a few are
	// applied at once: a batch of many quiet surveys, each a few
	// UpdateItems in a row, stays within the seconds counts may lag.
	var added atomic.Int64
	var g errgroup.Group
	g.SetLimit(surveysAtOnce)
	for _, sid := range sids {
		g.Go(func() error {
			n, err := t.Store.ApplyTally(ctx, sid, ev.ShardID, bySurvey[sid])
			if err != nil {
				return err
			}
			added.Add(int64(n))
			if len(pages[sid]) > 0 {
				if _, err := t.Store.ApplyResponsePages(ctx, sid, ev.ShardID, pages[sid]); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return events.DynamoDBTimeWindowEventResponse{}, err
	}
	if added := added.Load(); added > 0 {
		lag := time.Duration(0)
		if !oldest.IsZero() && t.Now != nil {
			lag = t.Now().Sub(oldest)
		}
		slog.InfoContext(ctx, "tally", "shard", ev.ShardID, "surveys", len(sids), "responses", added, "lag_ms", lag.Milliseconds())
	}
	return events.DynamoDBTimeWindowEventResponse{}, nil
}
