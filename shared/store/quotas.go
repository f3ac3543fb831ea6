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

// readQuotas are the survey's quotas, strongly consistent (one Query of
// its QUOTA# items: at most survey.MaxQuotas).
func (s *Store) readQuotas(ctx context.Context, sid int64) ([]survey.Quota, error) {
	var items []dynamo.Item
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.BeginsWith, quotaPrefix).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("get quotas of survey %d", sid), err)
	}
	qs := make([]survey.Quota, 0, len(items))
	for _, it := range items {
		q, err := decodeQuota(it)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return qs, nil
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
// one transaction of the quota, the survey item (its collection version
// and quota_count, which must be under survey.MaxQuotas) and the layout
// (namesHeld), tried again when an element change won the race.
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
	err = s.namesHeld(ctx, aid, sid, q.Conditions, func(lw *dynamo.Update) error {
		return s.quotaTx(ctx, func() *dynamo.WriteTx {
			return s.mirrorState(s.db.WriteTx().Put(put.If("attribute_not_exists(PK)")).Update(sup).Update(lw), sid, addCV)
		}, 1, func() error {
			if err := s.checkWritable(ctx, aid, sid); err != nil {
				return err
			}
			return survey.ErrTooManyQuotas
		})
	})
	return q, err
}

// UpdateQuota rewrites a quota of a live survey of the account (ENOTFOUND
// when it does not exist), with the layout as CreateQuota. A new limit is
// a change of the quota's cap (ChangeCap, rebase.go): exact under racing
// submissions, and a limit lowered to or below the count closes it.
func (s *Store) UpdateQuota(ctx context.Context, aid, sid int64, q survey.Quota) error {
	put, err := s.quotaPut(sid, q)
	if err != nil {
		return err
	}
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)
	write := func() error {
		return s.namesHeld(ctx, aid, sid, q.Conditions, func(lw *dynamo.Update) error {
			return s.quotaTx(ctx, func() *dynamo.WriteTx {
				return s.mirrorState(s.db.WriteTx().Put(put.If("attribute_exists(PK)")).Update(sup).Update(lw), sid, addCV)
			}, 1,
				func() error { return s.whyNotWritable(ctx, aid, sid) })
		})
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

// namesHeld runs a quota's write (tx, given the layout's part, its
// third) so that what its conditions name is still there when it lands:
// it reads the layout and the questions named, checks the conditions
// against them (400, survey.CheckQuotaConditions), and the transaction
// moves the layout's version under a condition on the one read. An
// element delete or change of choices, which reads the quotas under the
// same version (DeleteElement, applyRules), either lands first, and the
// write is tried again and refused, or sees the quota and is refused
// itself (409): a quota never names what is gone.
func (s *Store) namesHeld(ctx context.Context, aid, sid int64, conds []survey.QuotaCondition, tx func(*dynamo.Update) error) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		l, err := s.readLayout(ctx, aid, sid)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, len(conds))
		for _, c := range conds {
			ids = append(ids, c.Question)
		}
		named, err := s.elementsByID(ctx, sid, ids)
		if err != nil {
			return err
		}
		if err := survey.CheckQuotaConditions(conds, named); err != nil {
			return err
		}
		lw := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, layoutSK).Set("version", l.Version+1).
			If("account_id = ? AND version = ?", aid, l.Version)
		err = tx(lw)
		switch {
		case !errors.Is(err, errLayoutMoved):
			return err
		case !ownerAgain(ctx, attempt, started):
			return errLayoutBusy
		}
	}
}

// errLayoutMoved is a quota's write that lost the layout to an element
// change (namesHeld tries it again).
var errLayoutMoved = errors.New("store: the layout moved under a quota's write")

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
// the survey item's, write 2 the layout's of namesHeld): a failed survey condition answers onSurvey after
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
		case txFailedAt(err, 2):
			return errLayoutMoved // namesHeld's layout (the mirrors, DeleteQuota's third, have no condition)
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail("write a quota", err)
	}
}
