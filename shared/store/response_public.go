package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// ResponseOfSurvey reads one response of survey sid for its responder (an
// answer sheet): one strongly consistent GetItem; a missing response
// answers ENOTFOUND. Whoever calls it has proved the response is theirs
// (a sealed sheet token).
func (s *Store) ResponseOfSurvey(ctx context.Context, sid, rid int64) (survey.Response, error) {
	item, err := s.responseItemByID(ctx, sid, rid)
	if err != nil {
		return survey.Response{}, err
	}
	return decodeResponse(item)
}

// responseItemByID reads a response's item wherever it is: its shard, or
// shard 0 for a response written before responses were sharded. One
// strongly consistent BatchGetItem; ENOTFOUND when there is none.
func (s *Store) responseItemByID(ctx context.Context, sid, rid int64) (dynamo.Item, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).Get(responseKeys(sid, rid)...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, s.fail(fmt.Sprintf("get response %d of survey %d", rid, sid), err)
	}
	if len(items) == 0 {
		return nil, survey.ErrNotFound
	}
	return items[0], nil
}
