package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// NoticeSurvey reads the survey an email or SMS notification tells of (its
// name, language and owner), whoever owns it: one eventually consistent
// GetItem of its item (a name changed a moment ago may be told as it was).
// A missing survey answers ENOTFOUND.
func (s *Store) NoticeSurvey(ctx context.Context, sid int64) (survey.Survey, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Survey{}, s.fail(fmt.Sprintf("get survey %d", sid), err)
	}
	return decodeSurvey(item)
}
