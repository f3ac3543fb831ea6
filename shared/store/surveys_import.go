// Test seeders: bulk writes that tests, benchmarks and the admin tests use
// to make many surveys or elements at once, bypassing the owner's checks.
// A Lambda binary is built with the lambda.norpc tag (Makefile, GOBUILD)
// and leaves this file out, so no function carries them
// (internal/localaws TestLambdasCarryNoLocalStandIns).

//go:build !lambda.norpc

package store

import (
	"context"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// ImportSurveys loads many surveys of one account at once, with fresh ids,
// slugs and codes, in batched writes (25 items a call): for data
// migrations and for benchmarks that need thousands of surveys. Unlike
// CreateSurvey it does not check each folder nor the account's limit; the
// caller vouches for them. The live surveys are counted on their accounts
// after the batch, one UpdateItem an account, not in the same write: a
// crash between the two leaves the account undercounted (limits.go,
// Recount).
func (s *Store) ImportSurveys(ctx context.Context, svs []survey.Survey) ([]survey.Survey, error) {
	if len(svs) == 0 {
		return nil, nil
	}
	ids, err := s.NewIDs(ctx, KindSurvey, len(svs))
	if err != nil {
		return nil, err
	}
	items := make([]any, 0, (6+SurveyStateCopies)*len(svs))
	out := make([]survey.Survey, len(svs))
	now := s.Now().UTC().Truncate(time.Microsecond)
	for i, sv := range svs {
		sv.ID, sv.Created = ids[i], now
		sv.URLSlug = survey.NewCode(survey.SlugLength)
		sv.PreviewCode = survey.NewCode(survey.PreviewCodeLength)
		sv.ReportCode = survey.NewCode(survey.ReportCodeLength)
		it, err := newSurveyItem(sv)
		if err != nil {
			return nil, err
		}
		lay, err := newLayoutItem(sv.ID, sv.AccountID, survey.Layout{})
		if err != nil {
			return nil, err
		}
		items = append(items, it, slugItem{PK: SlugPK(sv.URLSlug), SK: slugSK, SurveyID: sv.ID}, lay, newReportItem(sv), newPreviewItem(sv))
		for k := range SurveyStateCopies {
			items = append(items, wholeState(sv, k))
		}
		items = append(items, newResponsePagesMeta(sv))
		out[i] = sv
	}
	if _, err := s.table.Batch().Write().Put(items...).Run(ctx); err != nil {
		return nil, s.fail("import surveys", err)
	}
	live := map[int64]int{}
	for _, sv := range out {
		if !sv.Deleted {
			live[sv.AccountID]++
		}
	}
	for aid, n := range live {
		err := s.countAdd(aid, attrLiveSurveys, n).Run(ctx)
		if err != nil && !dynamo.IsCondCheckFailed(err) { // no account item: nothing to count on
			return nil, s.fail(fmt.Sprintf("count imported surveys of account %d", aid), err)
		}
	}
	return out, nil
}
