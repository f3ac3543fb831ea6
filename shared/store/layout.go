package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const layoutSK = "LAYOUT"

// layoutItem is SURVEY#<sid> / LAYOUT: the survey's element lists (see
// survey.Layout) and the version every change is conditional on. It lives
// beside the survey's own item rather than in it, so that the folder lists
// (which read survey items through GSI1) never carry it.
type layoutItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
	Layout    string `dynamo:"layout"`
	Version   int64  `dynamo:"version"`
}

func newLayoutItem(sid, aid int64, l survey.Layout) (layoutItem, error) {
	doc, err := json.Marshal(l)
	if err != nil {
		return layoutItem{}, fmt.Errorf("store: encode layout: %w", err)
	}
	return layoutItem{PK: SurveyPK(sid), SK: layoutSK, AccountID: aid, Layout: string(doc), Version: l.Version}, nil
}

func (it layoutItem) layout() (survey.Layout, error) {
	var l survey.Layout
	if err := json.Unmarshal([]byte(it.Layout), &l); err != nil {
		return survey.Layout{}, fmt.Errorf("store: decode layout of %s: %w", it.PK, err)
	}
	l.Version = it.Version
	return l, nil
}

// readLayout reads the survey's layout in one strongly consistent GetItem;
// a missing or foreign survey answers ENOTFOUND.
func (s *Store) readLayout(ctx context.Context, aid, sid int64) (survey.Layout, error) {
	var it layoutItem
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, layoutSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.AccountID != aid) {
		return survey.Layout{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Layout{}, s.fail(fmt.Sprintf("get layout of survey %d", sid), err)
	}
	return it.layout()
}

// layoutWrite is the conditional write of a changed layout: it lands only
// if nobody changed the layout since it was read.
func (s *Store) layoutWrite(sid, aid int64, l survey.Layout) (*dynamo.Update, error) {
	doc, err := json.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("store: encode layout: %w", err)
	}
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, layoutSK).
		Set("layout", string(doc)).Set("version", l.Version+1).
		If("account_id = ? AND version = ?", aid, l.Version), nil
}

// surveyTouch is the survey item's part of every element change: it must
// be the account's and out of the trash, carries the question count the
// folder lists show, and moves the collection version that the public
// routes' cache checks (pubcache.go).
func (s *Store) surveyTouch(sid, aid int64, l survey.Layout) *dynamo.Update {
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).
		Set("question_count", l.QuestionCount()).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)
}
