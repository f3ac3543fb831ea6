package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const elementPrefix = "ELEMENT#"

// elementItem is SURVEY#<sid> / ELEMENT#<eid>: the element's fields as a
// JSON document; its place is the layout's.
type elementItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	ID       int64  `dynamo:"id"`
	Doc      string `dynamo:"doc"`
	PutToken string `dynamo:"put_token,omitempty"` // set by a create; see puttoken.go
}

func newElementItem(sid int64, e survey.Element) (elementItem, error) {
	doc, err := json.Marshal(e)
	if err != nil {
		return elementItem{}, fmt.Errorf("store: encode element: %w", err)
	}
	return elementItem{PK: SurveyPK(sid), SK: ElementSK(e.ID), ID: e.ID, Doc: string(doc)}, nil
}

func (it elementItem) element() (survey.Element, error) {
	// Decoded over the defaults, so that an element stored before a field
	// existed reads with that field's default.
	e := survey.NewElement(0)
	if err := json.Unmarshal([]byte(it.Doc), &e); err != nil {
		return survey.Element{}, fmt.Errorf("store: decode element %d: %w", it.ID, err)
	}
	e.ID = it.ID
	return e, nil
}

// errLayoutBusy answers a change that lost the race for the layout to
// other changes for ownerRetryFor (each retry rereads the layout): the
// client may simply retry.
var errLayoutBusy = survey.Errorf(survey.EUNAVAILABLE, "The survey is being changed by other requests; try again shortly.")

// backoff waits a little before retry n (1-based), with jitter, so that
// racing writers spread out.
func backoff(ctx context.Context, n int) error {
	d := time.Duration(rand.IntN(8*n+8)+2) * time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// elementTx runs one element change: the element's own write (put or
// delete), the layout under its version, the survey under its liveness. It
// tells a lost race (retry) from a survey that is gone or in the trash. A
// create passes its put token: its element put failing on an item with
// that token is its own earlier attempt (success), on any other item a
// taken id (errElementIDTaken).
func (s *Store) elementTx(ctx context.Context, aid, sid int64, own func(*dynamo.WriteTx), l survey.Layout, token string) (retry bool, err error) {
	lw, err := s.layoutWrite(sid, aid, l)
	if err != nil {
		return false, err
	}
	tx := s.db.WriteTx()
	own(tx)
	err = s.runTx(ctx, s.mirrorState(tx.Update(lw).Update(s.surveyTouch(sid, aid, l)), sid, addCV))
	switch {
	case err == nil:
		return false, nil
	case token != "" && txFailedAt(err, 0) && ownEarlierPut(txItemAt(err, 0), token):
		return false, nil // an earlier attempt of this very transaction landed
	case txFailedAt(err, 2):
		return false, s.whyNotWritable(ctx, aid, sid)
	case token != "" && txFailedAt(err, 0):
		return false, errElementIDTaken
	case txFailedAt(err, 1) || txConflict(err):
		return true, nil
	case txFailedAt(err, 0):
		return false, survey.ErrNotFound // the element itself vanished (deleted concurrently)
	}
	return false, s.fail(fmt.Sprintf("write element of survey %d", sid), err)
}

// errElementIDTaken is a new element's id found taken in its survey.
var errElementIDTaken = errors.New("store: element id taken")

// ElementChange is the outcome of an element write: the element and the
// layout it now stands in.
type ElementChange struct {
	Element survey.Element
	Layout  survey.Layout
}

// CreateElement adds an element to a survey of the account, placed as p
// says. It is one read of the layout and one transaction (element, layout
// under its version, survey), retried when another change of the same
// survey won the race. It answers EINVALID on prior_question or
// related_group or when the survey's elements would exceed
// survey.MaxSurveyContent, ENOTFOUND, survey.ErrSurveyDeleted (409), or, after
// every retry lost, EUNAVAILABLE (503, retry).
func (s *Store) CreateElement(ctx context.Context, aid, sid int64, e survey.Element, p survey.Placement) (ElementChange, error) {
	id, err := s.NewID(ctx, KindElement)
	if err != nil {
		return ElementChange{}, err
	}
	e.Choices = slices.Clone(e.Choices) // the ids given below are not the caller's to see
	e.Rows, e.Columns = slices.Clone(e.Rows), slices.Clone(e.Columns)
	itemIDs, err := s.takeIDs(ctx, KindChoice, e.NewItemIDs())
	if err != nil {
		return ElementChange{}, err
	}
	e.AssignItemIDs(itemIDs)
	token := newPutToken()
	ids := 1
	started := time.Now()
	for attempt := 1; ; attempt++ {
		e.ID = id
		it, err := newElementItem(sid, e)
		if err != nil {
			return ElementChange{}, err
		}
		it.PutToken = token
		l, err := s.readLayout(ctx, aid, sid)
		if err != nil {
			return ElementChange{}, err
		}
		next := l.Clone()
		if err := next.Insert(id, e.Type, p); err != nil {
			return ElementChange{}, err
		}
		if err := s.applyRules(ctx, sid, &next, nil, e); err != nil {
			return ElementChange{}, err
		}
		if err := next.SetSize(id, len(it.Doc)); err != nil {
			return ElementChange{}, err
		}
		next.Version = l.Version
		retry, err := s.elementTx(ctx, aid, sid, func(tx *dynamo.WriteTx) {
			tx.Put(s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true))
		}, next, token)
		if err == errElementIDTaken && ids < idAttempts {
			if err := s.idTaken(ctx, KindElement, id); err != nil {
				return ElementChange{}, err
			}
			if id, err = s.NewID(ctx, KindElement); err != nil {
				return ElementChange{}, err
			}
			ids++
			continue
		}
		if err == errElementIDTaken {
			return ElementChange{}, errIDsTaken
		}
		if err != nil {
			return ElementChange{}, err
		}
		if !retry {
			next.Version++
			s.retries.Add(int64(attempt - 1))
			return ElementChange{Element: e, Layout: next}, nil
		}
		if !ownerAgain(ctx, attempt, started) {
			s.retries.Add(int64(attempt))
			return ElementChange{}, errLayoutBusy
		}
	}
}

// Element reads one element of a survey of the account with the survey's
// layout: one BatchGetItem, strongly consistent.
func (s *Store) Element(ctx context.Context, aid, sid, eid int64) (ElementChange, error) {
	// One TransactGetItems, not a BatchGetItem: a batch reads its items
	// one by one, so it can pair an element from before a concurrent
	// change with the layout version after it, and an update built on that
	// pair passes the version check and undoes the change (seen on
	// DynamoDB Local, which serves requests in parallel as DynamoDB does).
	// It is cancelled (TransactionConflict) while a write transaction holds
	// either item: it is tried again after a jittered wait (ownerAgain).
	var items []dynamo.Item
	var err error
	started := time.Now()
	for attempt := 1; ; attempt++ {
		items = nil
		err = s.db.GetTx().
			Get(s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, layoutSK)).
			Get(s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, ElementSK(eid))).
			All(ctx, &items)
		if !txConflict(err) || !ownerAgain(ctx, attempt, started) {
			break
		}
	}
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return ElementChange{}, s.fail(fmt.Sprintf("get element %d", eid), err)
	}
	var out ElementChange
	var haveLayout, haveElement bool
	for _, item := range items {
		switch skOf(item) {
		case layoutSK:
			var it layoutItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return ElementChange{}, fmt.Errorf("store: decode layout: %w", err)
			}
			if it.AccountID != aid {
				return ElementChange{}, survey.ErrNotFound
			}
			if out.Layout, err = it.layout(); err != nil {
				return ElementChange{}, err
			}
			haveLayout = true
		default:
			var it elementItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return ElementChange{}, fmt.Errorf("store: decode element: %w", err)
			}
			if out.Element, err = it.element(); err != nil {
				return ElementChange{}, err
			}
			haveElement = true
		}
	}
	if !haveLayout || !haveElement {
		return ElementChange{}, survey.ErrNotFound
	}
	return out, nil
}

// UpdateElement changes an element of a survey of the account: edit
// changes its fields (the type included) or answers why it cannot (its
// error is returned as is), p its place. Choices, rows and columns that
// edit leaves without an id get new ones (one id allocation at most). One
// read (the element and the layout) and one transaction, retried on a lost
// race. A change that would grow the survey's elements over
// survey.MaxSurveyContent answers EINVALID.
func (s *Store) UpdateElement(ctx context.Context, aid, sid, eid int64, edit func(*survey.Element) error, p survey.Placement) (ElementChange, error) {
	var itemIDs []int64 // allocated once, kept across retries
	started := time.Now()
	for attempt := 1; ; attempt++ {
		cur, err := s.Element(ctx, aid, sid, eid)
		if err != nil {
			return ElementChange{}, err
		}
		e := cur.Element
		e.Choices = slices.Clone(e.Choices) // edit must not change what was read
		e.Rows, e.Columns = slices.Clone(e.Rows), slices.Clone(e.Columns)
		if err := edit(&e); err != nil {
			return ElementChange{}, err
		}
		e.ID = eid
		next := cur.Layout.Clone()
		if err := next.Update(eid, cur.Element.Type, e.Type, p); err != nil {
			return ElementChange{}, err
		}
		if err := s.applyRules(ctx, sid, &next, &cur.Element, e); err != nil {
			return ElementChange{}, err
		}
		if n := e.NewItemIDs(); n > len(itemIDs) {
			more, err := s.takeIDs(ctx, KindChoice, n-len(itemIDs))
			if err != nil {
				return ElementChange{}, err
			}
			itemIDs = append(itemIDs, more...)
		}
		e.AssignItemIDs(itemIDs)
		it, err := newElementItem(sid, e)
		if err != nil {
			return ElementChange{}, err
		}
		if err := next.SetSize(eid, len(it.Doc)); err != nil {
			return ElementChange{}, err
		}
		retry, err := s.elementTx(ctx, aid, sid, func(tx *dynamo.WriteTx) {
			tx.Put(s.table.Put(it).If("attribute_exists(PK)"))
		}, next, "")
		if err != nil {
			return ElementChange{}, err
		}
		if !retry {
			next.Version++
			s.retries.Add(int64(attempt - 1))
			return ElementChange{Element: e, Layout: next}, nil
		}
		if !ownerAgain(ctx, attempt, started) {
			s.retries.Add(int64(attempt))
			return ElementChange{}, errLayoutBusy
		}
	}
}

// DeleteElement removes an element of a survey of the account and closes
// the gap in its list; a deleted group leaves its questions ungrouped (the
// layout is where membership lives, so no question is rewritten).
func (s *Store) DeleteElement(ctx context.Context, aid, sid, eid int64) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		cur, err := s.Element(ctx, aid, sid, eid) // the layout and the element, one read
		if err != nil {
			return err
		}
		l := cur.Layout
		if _, ok := l.Find(eid); !ok {
			return survey.ErrNotFound
		}
		if cur.Element.Type.QuotaQuestion() {
			// Only a choice question can be named by a quota: it refuses
			// the delete, as a rule does (CheckRules).
			qs, err := s.readQuotas(ctx, sid)
			if err != nil {
				return err
			}
			l.SetQuotas(qs)
		}
		next := l.Clone()
		next.Remove(eid)
		if err := next.CheckRules(); err != nil {
			return err
		}
		retry, err := s.elementTx(ctx, aid, sid, func(tx *dynamo.WriteTx) {
			tx.Delete(s.table.Delete(AttrPK, SurveyPK(sid)).Range(AttrSK, ElementSK(eid)).If("attribute_exists(PK)"))
		}, next, "")
		if err != nil {
			return err
		}
		if !retry {
			s.retries.Add(int64(attempt - 1))
			return nil
		}
		if !ownerAgain(ctx, attempt, started) {
			s.retries.Add(int64(attempt))
			return errLayoutBusy
		}
	}
}

// LayoutRetries is how many element writes were retried after losing a
// race for a layout, since the store was made (for tests and benchmarks).
func (s *Store) LayoutRetries() int64 { return s.retries.Load() }
