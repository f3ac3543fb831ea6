// Package storetest writes what a test or a benchmark needs in the table
// faster than the API would: responses by the thousand, report counts.
// Nothing a Lambda runs imports it.
package storetest

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// importParallelism bounds the concurrent batch writes of an import.
const importParallelism = 8

// importChunk is the responses one batch write call group carries.
const importChunk = 500

// table is the store's table, written directly.
func table(st *store.Store) dynamo.Table {
	return dynamo.NewFromIface(st.Client()).Table(st.TableName())
}

// encode is the items of rs as a submission writes them.
func encode(rs []survey.Response) ([]any, error) {
	items := make([]any, len(rs))
	for i, r := range rs {
		it, err := store.EncodeResponse(r)
		if err != nil {
			return nil, err
		}
		items[i] = it
	}
	return items, nil
}

// SeedResponses writes response items exactly as the submission writes
// them, without the rest of its transaction (the survey's count, the
// Idempotency-Key): for tests and measurements of what consumes responses
// (the webhooks' dispatch). BatchWriteItem, 25 items a call.
func SeedResponses(ctx context.Context, st *store.Store, rs []survey.Response) error {
	items, err := encode(rs)
	if err != nil {
		return err
	}
	t := table(st)
	for start := 0; start < len(items); start += 25 {
		if _, err := t.Batch().Write().Put(items[start:min(start+25, len(items))]...).Run(ctx); err != nil {
			return fmt.Errorf("storetest: seed responses: %w", err)
		}
	}
	return nil
}

// SeedAggregate adds counts to one of a survey's report shards as
// submissions would, for tests and measurements that seed responses with
// SeedResponses: one UpdateItem.
func SeedAggregate(ctx context.Context, st *store.Store, sid int64, shard int, counts map[string]int64) error {
	u := table(st).Update(store.AttrPK, store.AggPK(sid)).Range(store.AttrSK, store.AggSK(shard))
	for k, n := range counts {
		u.Add(k, n)
	}
	if err := u.Run(ctx); err != nil {
		return fmt.Errorf("storetest: seed report counts: %w", err)
	}
	return nil
}

// ImportResponses stores responses as a submission leaves them: the
// response items (submission order in GSI1 included) and each survey's
// submitted_responses raised by as many. It is for test fixtures and
// benchmarks that need thousands of responses: batched writes (25 items a
// call) and one UpdateItem per survey, checking nothing a submission
// checks (idempotency, an open survey, codes, links). Responses without an
// id get fresh ones; the answer carries every id.
func ImportResponses(ctx context.Context, st *store.Store, rs []survey.Response) ([]survey.Response, error) {
	out := append([]survey.Response(nil), rs...)
	var missing []int
	for i, r := range out {
		if r.ID == 0 {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		ids, err := st.NewIDs(ctx, store.KindResponse, len(missing))
		if err != nil {
			return nil, err
		}
		for k, i := range missing {
			out[i].ID = ids[k]
		}
	}
	items, err := encode(out)
	if err != nil {
		return nil, err
	}
	counts := map[int64]int64{}
	signedIn := map[int64]bool{}
	for _, r := range out {
		counts[r.SurveyID]++
		signedIn[r.SurveyID] = signedIn[r.SurveyID] || r.Respondent != nil
	}
	t := table(st)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(importParallelism)
	for start := 0; start < len(items); start += importChunk {
		chunk := items[start:min(start+importChunk, len(items))]
		g.Go(func() error {
			if _, err := t.Batch().Write().Put(chunk...).Run(gctx); err != nil {
				return fmt.Errorf("storetest: import responses: %w", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for sid, n := range counts {
		u := t.Update(store.AttrPK, store.SurveyPK(sid)).Range(store.AttrSK, store.SurveySK).Add("submitted_responses", n)
		if signedIn[sid] {
			// As the tally marks a submitted one (contract section 18).
			u.Set(store.AttrRespondents, true)
		}
		err := u.If("attribute_exists(PK)").Run(ctx)
		if err != nil {
			return nil, fmt.Errorf("storetest: count imported responses of survey %d: %w", sid, err)
		}
	}
	// The stream's tally passes imports over: count them in the page index
	// as the tally counts submissions (store/responsepages.go).
	if err := st.IndexImportedResponses(ctx, out); err != nil {
		return nil, fmt.Errorf("storetest: index imported responses: %w", err)
	}
	return out, nil
}

// PreIndexSurvey makes survey sid one from before the responses' page
// index, as a survey created before it is: its index's marks item
// (RPAGES#<sid> / META), which a survey is created with (its backfill
// bound set and finished: store/responsepages_backfill.go), is deleted,
// so that responses seeded around the tally (SeedResponses) stand for
// responses the index never counted, until a backfill. Call it before the
// survey takes a response.
func PreIndexSurvey(ctx context.Context, st *store.Store, sid int64) error {
	err := table(st).Delete(store.AttrPK, store.ResponsePagesPK(sid)).Range(store.AttrSK, store.ResponsePagesMetaSK).Run(ctx)
	if err != nil {
		return fmt.Errorf("storetest: survey %d from before the page index: %w", sid, err)
	}
	return nil
}

// PutLegacyPagesCheckpoint writes the page index's checkpoint of a
// stream shard as the tally kept it before the marks held checkpoints
// (RPAGES#<sid> / CP#<stream shard>, its sequence key in "seq"): the
// tally still reads it, and passes over the records it names.
func PutLegacyPagesCheckpoint(ctx context.Context, st *store.Store, sid int64, streamShard, seqKey string) error {
	err := table(st).Put(map[string]any{store.AttrPK: store.ResponsePagesPK(sid), store.AttrSK: "CP#" + streamShard, "seq": seqKey}).Run(ctx)
	if err != nil {
		return fmt.Errorf("storetest: a legacy page index checkpoint of survey %d: %w", sid, err)
	}
	return nil
}

// PutLegacyTallyCheckpoint writes a stream shard's checkpoint of the
// survey's counts as the tally's transactions kept it before each counter
// item held its own (TALLY#<sid> / <stream shard>, the record's sequence
// number in "seq"): the tally still reads it.
func PutLegacyTallyCheckpoint(ctx context.Context, st *store.Store, sid int64, streamShard, seq string) error {
	err := table(st).Put(map[string]any{store.AttrPK: store.TallyPK(sid), store.AttrSK: streamShard, "seq": seq}).Run(ctx)
	if err != nil {
		return fmt.Errorf("storetest: a legacy tally checkpoint of survey %d: %w", sid, err)
	}
	return nil
}

// PutPlainResponse writes r's item (r.ID set) as the store wrote every
// response until 30 November 2026: its answers and variables as the JSON
// strings "answers" and "variables", not compressed in "z"
// (store/responsedocs.go). For the tests that old items still read as
// they did. One PutItem; it fails when the store wrote no "z" for r, so
// that such a test cannot pass on a plain twin of a plain item.
func PutPlainResponse(ctx context.Context, st *store.Store, r survey.Response) error {
	return putOldResponse(ctx, st, r, func(item map[string]types.AttributeValue, answers, variables []byte) error {
		item["answers"] = &types.AttributeValueMemberS{Value: string(answers)}
		item["variables"] = &types.AttributeValueMemberS{Value: string(variables)}
		return nil
	})
}

// PutDeflateResponse writes r's item (r.ID set) as the store wrote
// responses on 30 November 2026 before brotli: its answers and variables
// in "z" in format 1, written here from its definition (a byte 1, then a
// raw DEFLATE stream of uvarint(len(answers)) || answers || variables),
// not by the store's code. One PutItem; it fails as PutPlainResponse does.
func PutDeflateResponse(ctx context.Context, st *store.Store, r survey.Response) error {
	return putOldResponse(ctx, st, r, func(item map[string]types.AttributeValue, answers, variables []byte) error {
		var buf bytes.Buffer
		buf.WriteByte(1)
		w, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			return err
		}
		_, _ = w.Write(binary.AppendUvarint(nil, uint64(len(answers))))
		_, _ = w.Write(answers)
		_, _ = w.Write(variables)
		if err := w.Close(); err != nil {
			return err
		}
		item["z"] = &types.AttributeValueMemberB{Value: buf.Bytes()}
		return nil
	})
}

// putOldResponse writes r's item as the store writes it, its documents
// (the store's "z" taken out) as set puts them.
func putOldResponse(ctx context.Context, st *store.Store, r survey.Response,
	set func(item map[string]types.AttributeValue, answers, variables []byte) error) error {
	item, err := store.EncodeResponse(r)
	if err != nil {
		return err
	}
	if _, ok := item["z"]; !ok {
		return fmt.Errorf("storetest: response %d: the store wrote no z", r.ID)
	}
	vars := r.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	answers, err := json.Marshal(r.Answers)
	if err != nil {
		return err
	}
	variables, err := json.Marshal(vars)
	if err != nil {
		return err
	}
	delete(item, "z")
	if err := set(item, answers, variables); err != nil {
		return err
	}
	if err := table(st).Put(item).Run(ctx); err != nil {
		return fmt.Errorf("storetest: put response %d: %w", r.ID, err)
	}
	return nil
}
