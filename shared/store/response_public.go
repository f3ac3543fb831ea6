package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// ResponseOfSurvey reads one response of survey sid for its responder (an
// answer sheet): one strongly consistent GetItem; a missing response
// answers ENOTFOUND. Whoever calls it has proved the response is theirs
// (a sealed sheet token).
func (s *Store) ResponseOfSurvey(ctx context.Context, sid, rid int64) (survey.Response, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, ResponsesPK(sid)).Range(AttrSK, dynamo.Equal, ResponseSK(rid)).Consistent(true).One(ctx, &item)
	if err == dynamo.ErrNotFound {
		return survey.Response{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Response{}, s.fail(fmt.Sprintf("get response %d of survey %d", rid, sid), err)
	}
	return decodeResponse(item)
}
