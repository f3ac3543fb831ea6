package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"
)

// Views (contract section 11): each GET of a survey by a responder counts
// one view. The count is an item of its own, SURVEY#<sid> / VIEWS, not an
// attribute of the survey's item: every submission writes the survey's
// item in its transaction, and a view written there would conflict with
// it (a burst of views would make submissions fail). ADD on an item of its
// own conflicts with nothing.
//
// The owner sees the count where a survey is shown: the detail's Query of
// the survey's partition reads the item with the rest, and the folder
// lists read it from GSI1, where it sorts right after its survey
// (OWNER#<aid> / F#<fid>#S#<sid>#V). Its GSI1 keys are set by the first
// view (if not set yet) and moved with the survey, in the same
// transaction, when the survey changes folder or is restored. Trashing a
// survey leaves them: the lists show a view count only beside a survey
// they list, so an entry whose survey is in the trash or elsewhere is
// skipped, and the folder deletion's Query of a folder's surveys skips
// these entries too.

const viewsSK = "VIEWS"

// viewsItem is a survey's view count.
type viewsItem struct {
	SurveyID int64 `dynamo:"survey_id"`
	Views    int64 `dynamo:"views"`
}

// CountView adds one view to a survey of the account aid in folder fid (as
// the caller read it): one UpdateItem of the survey's views item, which
// nothing else writes under load.
func (s *Store) CountView(ctx context.Context, aid, fid, sid int64) error {
	err := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, viewsSK).
		Add("views", 1).Set("survey_id", sid).
		SetIfNotExists(AttrGSI1PK, OwnerKey(aid)).SetIfNotExists(AttrGSI1SK, SurveyViewsOwnerSK(fid, sid)).
		Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("count a view of survey %d", sid), err)
	}
	return nil
}

// viewsPlace is the write that keeps the views item beside its survey in
// GSI1 when the survey moves to folder fid; it creates the item (no views)
// when there is none yet, and so needs no condition.
func (s *Store) viewsPlace(aid, fid, sid int64) *dynamo.Update {
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, viewsSK).
		Set("survey_id", sid).Set(AttrGSI1PK, OwnerKey(aid)).Set(AttrGSI1SK, SurveyViewsOwnerSK(fid, sid))
}

func decodeViews(item dynamo.Item) (viewsItem, error) {
	var it viewsItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return viewsItem{}, fmt.Errorf("store: decode views: %w", err)
	}
	return it, nil
}
