package store

import (
	"context"
	"fmt"

	"github.com/guregu/dynamo/v2"
)

// DueSurvey is an entry of the sweep index: a survey and the expiration
// date it was indexed under.
type DueSurvey struct {
	ID             int64  `dynamo:"id"`
	ExpirationDate string `dynamo:"expiration_date"`
}

// DuePage reads up to limit entries of one shard of the sweep index that
// are due on today (their date is today or earlier), from start (nil for the
// beginning). It reads only due entries: one Query of the sparse index,
// keys and two attributes projected. next is nil when the shard is done.
func (s *Store) DuePage(ctx context.Context, shard int, today string, start dynamo.PagingKey, limit int) (due []DueSurvey, next dynamo.PagingKey, err error) {
	q := s.table.Get(AttrGSI2PK, fmt.Sprintf("EXPIRY#%d", shard)).Index(IndexGSI2).
		Range(AttrGSI2SK, dynamo.LessOrEqual, today+"#~").
		Project("id", "expiration_date").SearchLimit(limit)
	if start != nil {
		q = q.StartFrom(start)
	}
	next, err = q.AllWithLastEvaluatedKey(ctx, &due)
	if err != nil {
		return nil, nil, s.fail(fmt.Sprintf("query sweep shard %d", shard), err)
	}
	return due, next, nil
}

// CloseExpired closes a due survey: closed, out of the sweep index. The
// write is conditional on the survey still having the expiration date it
// was found under, so a retry, an overlapping run, or an owner who moved
// the date a moment before can never close the wrong survey; closed reports
// whether this call closed it.
func (s *Store) CloseExpired(ctx context.Context, d DueSurvey) (closed bool, err error) {
	// The token tells this close's own earlier attempt (an SDK retry of an
	// update that landed but whose answer was lost) from another run's
	// close: only the first counts as closed by this call.
	token := newPutToken()
	err = s.table.Update(AttrPK, SurveyPK(d.ID)).Range(AttrSK, SurveySK).
		Set("closed", true).Set(attrPutToken, token).Remove(AttrGSI2PK, AttrGSI2SK).
		If("expiration_date = ? AND attribute_exists(GSI2PK)", d.ExpirationDate).
		IncludeItemInCondCheckFail(true).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return ownEarlierPut(condFailedItem(err), token), nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("close survey %d", d.ID), err)
	}
	return true, nil
}
