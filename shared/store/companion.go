package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// companion is one companion item of a survey (its variables, webhooks or
// settings): its key, and what names it in errors.
type companion struct{ pk, sk, what string }

// surveyWith reads a survey of the account and one companion item of it in
// one strongly consistent BatchGetItem; decode is given the companion item
// when it exists. A missing or foreign survey answers ENOTFOUND.
func (s *Store) surveyWith(ctx context.Context, aid, sid int64, c companion, decode func(dynamo.Item) error) (survey.Survey, error) {
	pk, sk, what := c.pk, c.sk, c.what
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{pk, sk}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, s.fail(fmt.Sprintf("get %s of survey %d", what, sid), err)
	}
	var sv survey.Survey
	found := false
	for _, item := range items {
		switch skOf(item) {
		case SurveySK:
			if sv, err = decodeSurvey(item); err != nil {
				return survey.Survey{}, err
			}
			found = true
		case sk:
			if err := decode(item); err != nil {
				return survey.Survey{}, err
			}
		}
	}
	if !found || sv.AccountID != aid {
		return survey.Survey{}, survey.ErrNotFound
	}
	return sv, nil
}

// surveyWithList is surveyWith for a companion item that holds a versioned
// list (variables, webhooks): the list is empty, not nil, and its version
// 0 when the item does not exist yet.
func surveyWithList[T any](ctx context.Context, s *Store, aid, sid int64, c companion, decode func(dynamo.Item) ([]T, int64, error)) (survey.Survey, []T, int64, error) {
	list := []T{}
	var version int64
	sv, err := s.surveyWith(ctx, aid, sid, c, func(item dynamo.Item) (err error) {
		list, version, err = decode(item)
		return err
	})
	if err != nil {
		return survey.Survey{}, nil, 0, err
	}
	return sv, list, version, nil
}
