package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// PublicCollection reads a survey with everything under it, for the
// public routes (no account to check): the same one Query of its item
// collection as the owner's detail, never a read per element. consistent
// asks for a strongly consistent read (a submission validates against what
// the owner wrote last); the responder's view of the survey does without.
// A missing survey answers ENOTFOUND; one in the trash is returned as it is
// (Survey.Deleted), for the caller to answer.
func (s *Store) PublicCollection(ctx context.Context, sid int64, consistent bool) (SurveyCollection, error) {
	var items []dynamo.Item
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Consistent(consistent).All(ctx, &items); err != nil {
		return SurveyCollection{}, s.fail(fmt.Sprintf("query survey %d", sid), err)
	}
	c, found, err := decodeCollection(items)
	if err != nil {
		return SurveyCollection{}, err
	}
	if !found {
		return SurveyCollection{}, survey.ErrNotFound
	}
	return c, nil
}
