package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A survey's quotas (contract section 25) live in its item collection,
// SURVEY#<sid> / QUOTA#<id>, so the public routes' copy of the survey
// (pubcache.go) carries them to every submission; each write of one moves
// the collection version and the survey item's quota_count, in one
// transaction. Their places are the allowances' (places.go).

const quotaPrefix = "QUOTA#"

// KindQuota numbers quotas.
const KindQuota = "quota"

// attrQuotaCount is the survey item's number of quotas (at most
// survey.MaxQuotas, a condition of each creation).
const attrQuotaCount = "quota_count"

// QuotaSK is a quota's item, ordered by id.
func QuotaSK(id int64) string { return quotaPrefix + pad(id) }

type quotaItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	ID         int64  `dynamo:"id"`
	Name       string `dynamo:"name"`
	Limit      int64  `dynamo:"limit"`
	Conditions string `dynamo:"conditions"` // JSON
}

func decodeQuota(item dynamo.Item) (survey.Quota, error) {
	var it quotaItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return survey.Quota{}, fmt.Errorf("store: decode quota: %w", err)
	}
	q := survey.Quota{ID: it.ID, Name: it.Name, Limit: it.Limit}
	if err := json.Unmarshal([]byte(it.Conditions), &q.Conditions); err != nil {
		return survey.Quota{}, fmt.Errorf("store: decode quota %d: %w", it.ID, err)
	}
	return q, nil
}

func (s *Store) quotaPut(sid int64, q survey.Quota) (*dynamo.Put, error) {
	conds, err := json.Marshal(q.Conditions)
	if err != nil {
		return nil, err
	}
	return s.table.Put(quotaItem{PK: SurveyPK(sid), SK: QuotaSK(q.ID), ID: q.ID, Name: q.Name, Limit: q.Limit, Conditions: string(conds)}), nil
}

// WithQuotaCounts sets each quota's Count: its places taken, summed over
// the allowances (one strongly consistent read of them, exact at once).
func (s *Store) WithQuotaCounts(ctx context.Context, sid int64, qs []survey.Quota) ([]survey.Quota, error) {
	if len(qs) == 0 {
		return qs, nil
	}
	used, err := s.allowances(ctx, sid)
	if err != nil {
		return nil, err
	}
	for i := range qs {
		qs[i].Count = 0
		for _, u := range used {
			qs[i].Count += u[quotaAttr(qs[i].ID)]
		}
	}
	return qs, nil
}

// CreateQuota adds a quota to a live survey of the account, its id new:
// one transaction of the quota and the survey item (its collection
// version and quota_count, which must be under survey.MaxQuotas).
func (s *Store) CreateQuota(ctx context.Context, aid, sid int64, q survey.Quota) (survey.Quota, error) {
	id, err := s.NewID(ctx, KindQuota)
	if err != nil {
		return survey.Quota{}, err
	}
	q.ID, q.Count = id, 0
	put, err := s.quotaPut(sid, q)
	if err != nil {
		return survey.Quota{}, err
	}
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).Add(attrQuotaCount, 1).
		If(surveyWritable, aid, false).If("(attribute_not_exists($) OR $ < ?)", attrQuotaCount, attrQuotaCount, survey.MaxQuotas)
	err = s.quotaTx(ctx, func() *dynamo.WriteTx {
		return s.mirrorState(s.db.WriteTx().Put(put.If("attribute_not_exists(PK)")).Update(sup), sid, addCV)
	}, 1, func() error {
		if err := s.checkWritable(ctx, aid, sid); err != nil {
			return err
		}
		return survey.ErrTooManyQuotas
	})
	return q, err
}

// UpdateQuota rewrites a quota of a live survey of the account (ENOTFOUND
// when it does not exist). A new limit is a change of the quota's cap
// (ChangeCap, rebase.go): exact under racing submissions, and a limit
// lowered to or below the count closes it.
func (s *Store) UpdateQuota(ctx context.Context, aid, sid int64, q survey.Quota) error {
	put, err := s.quotaPut(sid, q)
	if err != nil {
		return err
	}
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)
	write := func() error {
		return s.quotaTx(ctx, func() *dynamo.WriteTx {
			return s.mirrorState(s.db.WriteTx().Put(put.If("attribute_exists(PK)")).Update(sup), sid, addCV)
		}, 1,
			func() error { return s.whyNotWritable(ctx, aid, sid) })
	}
	var old quotaItem
	err = s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, QuotaSK(q.ID)).Consistent(true).One(ctx, &old)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return survey.ErrNotFound
	case err != nil:
		return s.fail(fmt.Sprintf("read quota %d", q.ID), err)
	case old.Limit == q.Limit:
		return write()
	}
	return s.ChangeCap(ctx, sid, QuotaCap(q), write)
}

// DeleteQuota removes a quota of a live survey of the account (ENOTFOUND
// when it does not exist). Its counters stay in the allowances, read by
// no one.
func (s *Store) DeleteQuota(ctx context.Context, aid, sid, id int64) error {
	del := s.table.Delete(AttrPK, SurveyPK(sid)).Range(AttrSK, QuotaSK(id)).If("attribute_exists(PK)")
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).Add(attrQuotaCount, -1).
		If(surveyWritable, aid, false)
	return s.quotaTx(ctx, func() *dynamo.WriteTx { return s.mirrorState(s.db.WriteTx().Delete(del).Update(sup), sid, addCV) }, 1, func() error { return s.whyNotWritable(ctx, aid, sid) })
}

// quotaTx runs a quota's transaction (write 0 the quota's, write surveyAt
// the survey item's): a failed survey condition answers onSurvey after
// telling a missing or trashed survey apart, a failed quota condition
// ENOTFOUND; a lost race with the tally or another owner write is tried
// again (retryOwnerConflict).
func (s *Store) quotaTx(ctx context.Context, tx func() *dynamo.WriteTx, surveyAt int, onSurvey func() error) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, tx()) // fresh each try (runTx adds to it)
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, surveyAt):
			return onSurvey()
		case txFailedAt(err, 0):
			return survey.ErrNotFound
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail("write a quota", err)
	}
}
