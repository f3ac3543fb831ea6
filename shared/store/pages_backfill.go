package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
)

// PagesBackfill is what BackfillPages did for one survey.
type PagesBackfill struct {
	SurveyID  int64                 `json:"survey_id"`
	Codes     CodePagesBackfill     `json:"codes"`
	Responses ResponsePagesBackfill `json:"responses"`
}

// BackfillPages backfills both page indexes of a survey: its codes'
// (codepages_backfill.go) and its responses' (responsepages_backfill.go).
// Idempotent; a survey already done costs a few reads. ENOTFOUND for a survey
// that does not exist.
func (s *Store) BackfillPages(ctx context.Context, sid int64) (PagesBackfill, error) {
	out := PagesBackfill{SurveyID: sid}
	var err error
	if out.Codes, err = s.BackfillCodePages(ctx, sid); err != nil {
		return out, err
	}
	out.Responses, err = s.BackfillResponsePages(ctx, sid)
	return out, err
}

// EachSurveyID calls fn with the id of every survey in the table (in the
// trash too), from a parallel Scan of segments segments filtered on the
// survey items, keys only. It is the one whole-table read of the pages
// backfill: no index lists every survey of every account, and this runs
// once. It answers the items the Scan read.
func (s *Store) EachSurveyID(ctx context.Context, segments int, fn func(int64) error) (int64, error) {
	var sm dynamo.ScanMetrics
	it := s.table.Scan().Filter("'SK' = ?", SurveySK).Project(AttrPK).
		ScanMetrics(&sm).IterParallel(ctx, max(segments, 1))
	var item struct {
		PK string `dynamo:"PK"`
	}
	for it.Next(ctx, &item) {
		id, err := strconv.ParseInt(strings.TrimPrefix(item.PK, "SURVEY#"), 10, 64)
		if err != nil || !strings.HasPrefix(item.PK, "SURVEY#") {
			continue
		}
		if err := fn(id); err != nil {
			return sm.Scanned, err
		}
	}
	if err := it.Err(); err != nil {
		return sm.Scanned, s.fail("scan for surveys", err)
	}
	return sm.Scanned, nil
}
