package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/guregu/dynamo/v2"
)

const viewsSK = "VIEWS"

// viewsItem is a survey's view count.
type viewsItem struct {
	SurveyID int64 `dynamo:"survey_id"`
	Views    int64 `dynamo:"views"`
}

// ViewShards is how many partition keys a survey's view records are
// spread over: a viral survey's thousand views a second write under 100
// units a second on each.
const ViewShards = 16

// viewTTL is how long a view record is kept: past the stream's 24 hours,
// by which the tally has counted it.
const viewTTL = 48 * time.Hour

// ViewLogPK is one shard of a survey's view records.
func ViewLogPK(sid int64, shard int) string { return fmt.Sprintf("VIEWLOG#%s#%d", pad(sid), shard) }

// viewRecordSK is a view record's SK: unique, so that each view is one
// insertion in the stream.
const viewRecordPrefix = "VIEW#"

// CountView counts one view of a survey of the account aid in folder fid
// (as the caller read it): one PutItem of a view record in one of
// ViewShards partitions, which the tally function adds to the survey's
// views item from the stream (tally.go), with the responses' counts,
// exactly once, a second or two later. No item is written by every view,
// so a burst of views makes nothing else wait or fail.
//
// The count is written only by the tally, from one record a view:
// docs/data-model.md#views.
func (s *Store) CountView(ctx context.Context, aid, fid, sid int64) error {
	var id [12]byte
	_, _ = rand.Read(id[:])
	err := s.table.Put(map[string]any{
		AttrPK: ViewLogPK(sid, mrand.IntN(ViewShards)), AttrSK: viewRecordPrefix + hex.EncodeToString(id[:]),
		"survey_id": sid, "account_id": aid, "folder_id": fid, "tally": true,
		AttrTTL: s.Now().Add(viewTTL).Unix(),
	}).Run(ctx)
	if err != nil {
		return s.fail(fmt.Sprintf("count a view of survey %d", sid), err)
	}
	return nil
}

// viewsUpdate adds to up (of the views item) the tally's write of n views to the survey's views item,
// placing it in GSI1 beside its survey (folder fid of account aid) if it
// is not placed yet.
func (s *Store) viewsUpdate(up *dynamo.Update, aid, fid, sid, n int64) {
	up.Add("views", n).Set("survey_id", sid).
		SetIfNotExists(AttrGSI1PK, OwnerKey(aid)).SetIfNotExists(AttrGSI1SK, SurveyViewsOwnerSK(fid, sid))
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
