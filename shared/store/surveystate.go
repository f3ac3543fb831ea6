package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Read copies of a survey's state (docs/data-model.md#read-copies-of-a-surveys-state).
//
// One item serves at most 3,000 read units a second. A partial save
// (contract section 20) must see a close at once (a save after the close
// answers 410), as the submission's fence must, so neither may trust a
// container's earlier read; at 1,000 responses a second of 12 page turns
// each, reading the survey item would ask it some 13,000 units a second.
// So the state those decisions need (is_stopped, deleted,
// expiration_date, and cv, the collection version the container's cache
// is keyed by) is also kept in SurveyStateCopies items, each its own
// partition key, and every write of the survey item that changes one of
// them writes every copy the same way in its own transaction
// (mirrorState). A strongly consistent read of any one copy is then as
// exact as one of the survey item. The sweep's closed flag is not
// copied: it is set only once the expiration date, which is, has passed.
//
// A survey is created with its copies whole (createState). A survey
// created before the copies, or a copy an owner's write created with only
// its change, is not whole: its reader reads the survey item as before
// and writes the copy whole (backfillState), in a transaction conditional
// on the item still holding what was copied.

// stateItem is a read copy of a survey's state.
type stateItem struct {
	IsStopped      bool   `dynamo:"is_stopped"`
	Deleted        bool   `dynamo:"deleted"`
	ExpirationDate string `dynamo:"expiration_date"`
	CV             int64  `dynamo:"cv"`
	Whole          bool   `dynamo:"whole"`
	// LimitGen is the generation of the survey's response limit when one
	// was set since 30 November 2026, else 0 (limitbase.go).
	LimitGen int64 `dynamo:"lg,omitempty"`
}

// attrLimitGen is the survey item's and its state copies' response limit
// generation (limitbase.go).
const attrLimitGen = "lg"

// active is whether the copy's survey takes responses at now
// (survey.Survey.Active).
func (st stateItem) active(now survey.Survey) survey.Survey {
	now.IsStopped, now.Deleted, now.ExpirationDate, now.ClosedBySweep = st.IsStopped, st.Deleted, st.ExpirationDate, false
	return now
}

// mirrorState adds to tx the write of every copy of the survey's state:
// mirror applies to each the same change (SET, REMOVE, ADD of the copied
// attributes) as the transaction makes to the survey item. The copies go
// after tx's items, so their indices (txFailedAt) stay what they were.
func (s *Store) mirrorState(tx *dynamo.WriteTx, sid int64, mirror func(*dynamo.Update) *dynamo.Update) *dynamo.WriteTx {
	for k := range SurveyStateCopies {
		tx.Update(mirror(s.table.Update(AttrPK, SurveyStatePK(sid, k)).Range(AttrSK, SurveyStateSK)))
	}
	return tx
}

// addCV mirrors a change that moves the collection version.
func addCV(u *dynamo.Update) *dynamo.Update { return u.Add(attrCollectionVersion, 1) }

// stateCopyOf picks the copy a key (a session's token, a response) reads.
func stateCopyOf(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % SurveyStateCopies)
}

// readState reads copy k of the survey's state, strongly consistent;
// whole is false when it is missing or not yet written whole.
func (s *Store) readState(ctx context.Context, sid int64, k int) (stateItem, bool, error) {
	var st stateItem
	err := s.table.Get(AttrPK, SurveyStatePK(sid, k)).Range(AttrSK, dynamo.Equal, SurveyStateSK).Consistent(true).One(ctx, &st)
	if errors.Is(err, dynamo.ErrNotFound) {
		return stateItem{}, false, nil
	}
	if err != nil {
		return stateItem{}, false, s.fail(fmt.Sprintf("read the state of survey %d", sid), err)
	}
	return st, st.Whole, nil
}

// backfillState writes copy k whole from the survey item: one strongly
// consistent GetItem, then one transaction of the copy's Put and a
// ConditionCheck that the item still holds what was copied. Losing it
// (the item changed, a conflict) leaves the copy as it was for a later
// read to try again; so does any error, which is the caller's to ignore.
func (s *Store) backfillState(ctx context.Context, sid int64, k int) error {
	var item dynamo.Item
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).Consistent(true).One(ctx, &item)
	if err != nil {
		return err
	}
	var si surveyItem
	if err := dynamo.UnmarshalItem(item, &si); err != nil {
		return err
	}
	cv := collectionVersion(item)
	check := s.table.Check(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If("is_stopped = ? AND deleted = ?", si.IsStopped, si.Deleted)
	if si.ExpirationDate == "" {
		check.If("attribute_not_exists(expiration_date)")
	} else {
		check.If("expiration_date = ?", si.ExpirationDate)
	}
	if _, ok := item[attrCollectionVersion]; ok {
		check.If("cv = ?", cv)
	} else {
		check.If("attribute_not_exists(cv)")
	}
	if si.LimitGen != 0 {
		check.If("lg = ?", si.LimitGen)
	} else {
		check.If("attribute_not_exists(lg)")
	}
	st := struct {
		PK, SK string
		stateItem
	}{SurveyStatePK(sid, k), SurveyStateSK, stateItem{IsStopped: si.IsStopped, Deleted: si.Deleted, ExpirationDate: si.ExpirationDate, CV: cv, Whole: true,
		LimitGen: si.LimitGen}}
	return s.db.WriteTx().Check(check).Put(s.table.Put(st)).Run(ctx)
}

// wholeState is copy k of a new survey's state, whole (cv 0: a new
// survey item has none), for the transaction that creates the survey.
func wholeState(sv survey.Survey, k int) any {
	return struct {
		PK, SK string
		stateItem
	}{SurveyStatePK(sv.ID, k), SurveyStateSK, stateItem{IsStopped: sv.IsStopped, Deleted: sv.Deleted, ExpirationDate: sv.ExpirationDate, Whole: true}}
}

// createState adds to tx the Puts of every copy of a new survey's state,
// whole, after tx's items (their indices stay what they were).
func (s *Store) createState(tx *dynamo.WriteTx, sv survey.Survey) *dynamo.WriteTx {
	for k := range SurveyStateCopies {
		tx.Put(s.table.Put(wholeState(sv, k)))
	}
	return tx
}

// PartialCollection is PublicCollection(ctx, sid, true) for the partial
// routes: the copy of the survey's state that key (the session's token)
// picks, written whole from the survey item when it is not yet (for the
// next read). A save does not check the response limit (the submission
// does), so the survey's count is not needed: its other fields (counts)
// may be the container's older ones, which no partial route uses.
func (s *Store) PartialCollection(ctx context.Context, sid int64, key string) (SurveyCollection, error) {
	return s.stateCollection(ctx, sid, stateCopyOf(key), true, true, false)
}

// stateOpen reads whether the survey is open at the response's time from
// the copy of its state the response's id picks (surveyOpenAt), and its
// response limit's generation; known is false when that copy is not
// whole, and then it is written whole for the next read.
func (s *Store) stateOpen(ctx context.Context, r survey.Response) (open bool, limitGen int64, known bool, err error) {
	k := stateCopyOf(fmt.Sprint(r.ID))
	st, whole, err := s.readState(ctx, r.SurveyID, k)
	if err != nil || !whole {
		if err == nil {
			if berr := s.backfillState(ctx, r.SurveyID, k); berr != nil && !errors.Is(berr, dynamo.ErrNotFound) && txReasons(berr) == nil {
				slog.Warn("a copy of a survey's state not written", "survey", r.SurveyID, "copy", k, "error", berr.Error())
			}
		}
		return false, 0, false, err
	}
	return st.active(survey.Survey{}).Active(r.SubmittedAt), st.LimitGen, true, nil
}

// ownerReadEvery is how long a container trusts its read of a survey's
// owner for the partial routes' plan check (OwnerAccount). That read was
// eventually consistent already (a plan change reaches it within about a
// second); a read per save would ask the account's item 12,000 reads a
// second (6,000 units) at 1,000 responses a second of 12 page turns.
const ownerReadEvery = time.Second

type ownerCache struct {
	mu sync.Mutex
	m  map[int64]ownerRead
}

type ownerRead struct {
	at time.Time
	a  survey.Account
}

// OwnerAccount is Account (eventually consistent) as the partial routes
// read a survey's owner: the container's read of less than
// ownerReadEvery ago, else one GetItem.
func (s *Store) OwnerAccount(ctx context.Context, aid int64) (survey.Account, error) {
	s.ownerReads.mu.Lock()
	r, ok := s.ownerReads.m[aid]
	s.ownerReads.mu.Unlock()
	if ok && time.Since(r.at) < ownerReadEvery {
		return r.a, nil
	}
	a, err := s.Account(ctx, aid)
	if err != nil {
		return survey.Account{}, err
	}
	s.ownerReads.mu.Lock()
	defer s.ownerReads.mu.Unlock()
	if s.ownerReads.m == nil || len(s.ownerReads.m) > 10000 {
		s.ownerReads.m = map[int64]ownerRead{}
	}
	s.ownerReads.m[aid] = ownerRead{at: time.Now(), a: a}
	return a, nil
}
