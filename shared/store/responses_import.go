package store

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"surveyservice/shared/survey"
)

// importParallelism bounds the concurrent batch writes of an import.
const importParallelism = 8

// importChunk is the responses one batch write call group carries.
const importChunk = 500

// ImportResponses stores responses as a submission leaves them: the
// response items (submission order in GSI1 included) and each survey's
// submitted_responses raised by as many. It is for data migrations, test
// fixtures and benchmarks that need thousands of responses: batched writes
// (25 items a call) and one UpdateItem per survey, checking nothing a
// submission checks (idempotency, an open survey, codes, links). Responses
// without an id get fresh ones; the answer carries every id.
func (s *Store) ImportResponses(ctx context.Context, rs []survey.Response) ([]survey.Response, error) {
	out := append([]survey.Response(nil), rs...)
	var missing []int
	for i, r := range out {
		if r.ID == 0 {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		ids, err := s.NewIDs(ctx, KindResponse, len(missing))
		if err != nil {
			return nil, err
		}
		for k, i := range missing {
			out[i].ID = ids[k]
		}
	}
	counts := map[int64]int64{}
	items := make([]any, len(out))
	for i, r := range out {
		it, err := newResponseItem(r)
		if err != nil {
			return nil, err
		}
		items[i] = it
		counts[r.SurveyID]++
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(importParallelism)
	for start := 0; start < len(items); start += importChunk {
		chunk := items[start:min(start+importChunk, len(items))]
		g.Go(func() error {
			if _, err := s.table.Batch().Write().Put(chunk...).Run(gctx); err != nil {
				return s.fail("import responses", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for sid, n := range counts {
		err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, surveySK).Add("submitted_responses", n).
			If("attribute_exists(PK)").Run(ctx)
		if err != nil {
			return nil, s.fail(fmt.Sprintf("count imported responses of survey %d", sid), err)
		}
	}
	return out, nil
}
