package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A survey's allowed phone numbers (section 18, phone_numbers_limited) are
// kept as its authentication codes are (phoneList, lists.go): callers pass
// numbers already normalised to E.164 (survey.NormalizePhone).

// PhoneCount answers how many numbers the list of a survey of the account
// holds (the count its writes keep), in one strongly consistent
// BatchGetItem. A missing or foreign survey ENOTFOUND.
func (s *Store) PhoneCount(ctx context.Context, aid, sid int64) (int64, error) {
	sv, n, _, err := s.listCount(ctx, phoneList, sid)
	if err != nil {
		return 0, err
	}
	if sv.AccountID != aid {
		return 0, survey.ErrNotFound
	}
	return n, nil
}

// PhonesPage reads page (1-based) of pageSize numbers of a survey's list, in
// byte order, through the list's page index (as CodesPageRead).
func (s *Store) PhonesPage(ctx context.Context, sid int64, page, pageSize int) ([]string, error) {
	numbers, _, err := s.listPageRead(ctx, phoneList, sid, page, pageSize)
	return numbers, err
}

// AddPhones stores numbers (E.164, de-duplicated) on the list of a survey
// of the account, keeping those it holds, with the count moving exactly as
// the items do (as AddCodes). ENOTFOUND, survey.ErrSurveyDeleted, or
// EUNAVAILABLE when the store stays busy.
func (s *Store) AddPhones(ctx context.Context, aid, sid int64, numbers []string) error {
	return s.addItems(ctx, phoneList, aid, sid, numbers)
}

// DeletePhones removes the numbers (E.164) from the list of a survey of the
// account; unknown ones are ignored (as DeleteCodes).
func (s *Store) DeletePhones(ctx context.Context, aid, sid int64, numbers []string) error {
	return s.deleteItems(ctx, phoneList, aid, sid, numbers)
}

// DeleteAllPhones empties the list of a survey of the account (as
// DeleteAllCodes): numbers uploaded meanwhile stay, and stay counted.
func (s *Store) DeleteAllPhones(ctx context.Context, aid, sid int64) error {
	return s.deleteAllItems(ctx, phoneList, aid, sid)
}

// PhoneListed tells whether the number (E.164, from survey.NormalizePhone)
// is on survey sid's list: one strongly consistent GetItem, so a number
// added a moment ago is seen. The caller has found the survey already.
func (s *Store) PhoneListed(ctx context.Context, sid int64, e164 string) (bool, error) {
	var it codeItem
	err := s.table.Get(AttrPK, PhonesPK(sid)).Range(AttrSK, dynamo.Equal, PhoneSK(e164)).Project(AttrSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("check phone number", err)
	}
	return true, nil
}
