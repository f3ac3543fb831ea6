package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// applyRules checks the rules of e (as it will be stored, replacing old,
// nil for a new element) against next, the layout after the change, and
// records them in next (and its choices, when it randomizes them): rules sent anew are validated (400 on
// conditions), what other rules and the survey's quotas name of old must
// stay (409), and no rule may name an element at or after its own (409).
//
// The display rules' part of an element write (contract section 15). The
// rules themselves are survey's; the store reads what they name and keeps
// the layout's index of them (survey.Layout.Rules) in the same
// transaction as the element, under the layout's version: every element
// change rewrites the layout, so a rule and the elements it names are
// always read and written as of one version.
func (s *Store) applyRules(ctx context.Context, sid int64, next *survey.Layout, old *survey.Element, e survey.Element) error {
	if old != nil {
		if old.Type != e.Type || slices.ContainsFunc(old.Choices, func(c survey.ChoiceItem) bool { _, ok := e.Choice(c.ID); return !ok }) {
			// A change that removes choices or the type may take what a
			// quota names (one read of them, only then).
			qs, err := s.readQuotas(ctx, sid)
			if err != nil {
				return err
			}
			next.SetQuotas(qs)
		}
		if err := next.CheckItemsKept(*old, e); err != nil {
			return err
		}
	}
	if len(e.Conditions) > 0 && (old == nil || !reflect.DeepEqual(old.Conditions, e.Conditions)) {
		named, err := s.elementsByID(ctx, sid, e.RuleOperands())
		if err != nil {
			return err
		}
		named[e.ID] = e
		if err := survey.ValidateConditions(e, next.DisplayOrder(), named); err != nil {
			return err
		}
	}
	next.SetRules(e)
	next.SetShuffle(e)
	next.SetTiming(e)
	return next.CheckRules()
}

// elementsByID reads the elements of ids of a survey, strongly consistent,
// in one BatchGetItem (ids are at most survey.MaxConditions); a missing one
// is left out. An id may repeat (two quota conditions on one question):
// it is read once, since BatchGetItem refuses a request that names a key
// twice (a ValidationException, which answered 500).
func (s *Store) elementsByID(ctx context.Context, sid int64, ids []int64) (map[int64]survey.Element, error) {
	out := make(map[int64]survey.Element, len(ids)+1)
	if len(ids) == 0 {
		return out, nil
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{SurveyPK(sid), ElementSK(id)}
	}
	var items []elementItem
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, s.fail(fmt.Sprintf("get elements of survey %d", sid), err)
	}
	for _, it := range items {
		e, err := it.element()
		if err != nil {
			return nil, err
		}
		out[e.ID] = e
	}
	return out, nil
}
