package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Attributes of the account item that hold its counts.
const (
	attrLiveSurveys = "live_surveys"
	attrFolders     = "folders"
)

// AccountCounts are the counts an account item holds.
//
// The counts move in the same transaction as the writes they count,
// conditional on their limit: docs/data-model.md#account-limits.
type AccountCounts struct {
	LiveSurveys int64 `dynamo:"live_surveys" json:"live_surveys"`
	Folders     int64 `dynamo:"folders" json:"folders"`
}

// limitAttempts bounds the tries of a write that meets a change it must
// read again (a member removed, a folder erased meanwhile) and of Recount.
const limitAttempts = 6

// countUp is the transaction part that adds one to a count of the account,
// on the condition that the account exists and the count is under max. It
// asks for the item when the condition fails, so that limitRefusal can tell
// a missing account from a full one.
func (s *Store) countUp(aid int64, attr string, max int64) *dynamo.Update {
	return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, accountSK).Add(attr, 1).
		If("attribute_exists(PK) AND (attribute_not_exists($) OR $ < ?)", attr, attr, max).
		IncludeItemInCondCheckFail(true)
}

// countAdd adds delta to a count of the account, unbounded: the transaction
// part of a shrink (delta < 0). It needs only the account to exist (an ADD
// would otherwise make a stub account item); an account that undercounts (one
// written before the counts) may go below 0, which only gives it room until
// it is recounted.
func (s *Store) countAdd(aid int64, attr string, delta int) *dynamo.Update {
	return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, accountSK).Add(attr, delta).If("attribute_exists(PK)")
}

// limitRefusal is the answer to a transaction whose part i (a countUp)
// failed its condition: ENOTFOUND when the account does not exist, else
// the limit's 400 naming it.
func limitRefusal(err error, i int, attr string, max int64) error {
	if txItemAt(err, i) == nil {
		return survey.ErrNotFound
	}
	if attr == attrFolders {
		return survey.FolderLimitReached(max)
	}
	return survey.LiveSurveyLimitReached(max)
}

// retryConflict waits before another try of a transaction of the
// account's (a counted create, a share, a member) lost to a concurrent one
// on an item they share (TransactionConflict: the account item's counts, a
// folder, a member), and reports whether to try: as an owner's write of a
// survey does (ownerAgain), until ownerReserve before the request's
// deadline, never for anything else. A fixed number of tries answered 503
// to writes that could all succeed: 30 survey creates at once met up to
// 11 conflicts each (contract section 3, amended: all that fit succeed,
// the ones over the limit answer its 400, none 503). The transaction's own
// condition on the count decides the limit exactly, so nothing is read
// between tries: a loser's next try either fits or fails the condition.
func retryConflict(ctx context.Context, err error, attempt int, started time.Time) bool {
	return txConflict(err) && ownerAgain(ctx, attempt, started)
}

// AccountCounts reads the counts of an account (strongly consistent):
// absent counts are 0. A missing account answers ENOTFOUND.
func (s *Store) AccountCounts(ctx context.Context, aid int64) (AccountCounts, error) {
	var c AccountCounts
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, accountSK).
		Project(attrLiveSurveys, attrFolders).Consistent(true).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return AccountCounts{}, survey.ErrNotFound
	}
	if err != nil {
		return AccountCounts{}, s.fail(fmt.Sprintf("get counts of account %d", aid), err)
	}
	return c, nil
}

// Recount sets an account's counts from what it holds (its folders,
// including any being deleted, and its live surveys, from one Query of
// GSI1) and returns the counts before and after. It is the repair of an
// account created before the counts existed. The write is conditional on
// the counts being those read before the Query, so a counted write that
// lands meanwhile makes it read and count again; GSI1 is eventually
// consistent, though, so run it while the account is quiet.
func (s *Store) Recount(ctx context.Context, aid int64) (before, after AccountCounts, err error) {
	for range limitAttempts {
		var raw struct {
			LiveSurveys *int64 `dynamo:"live_surveys"`
			Folders     *int64 `dynamo:"folders"`
		}
		err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, accountSK).
			Project(attrLiveSurveys, attrFolders, AttrPK).Consistent(true).One(ctx, &raw)
		if errors.Is(err, dynamo.ErrNotFound) {
			return before, after, survey.ErrNotFound
		}
		if err != nil {
			return before, after, s.fail(fmt.Sprintf("get counts of account %d", aid), err)
		}
		before = AccountCounts{}
		if raw.LiveSurveys != nil {
			before.LiveSurveys = *raw.LiveSurveys
		}
		if raw.Folders != nil {
			before.Folders = *raw.Folders
		}
		var items []struct {
			SK string `dynamo:"SK"`
		}
		if err := s.table.Get(AttrGSI1PK, OwnerKey(aid)).Index(IndexGSI1).Project(AttrSK).All(ctx, &items); err != nil {
			return before, after, s.fail(fmt.Sprintf("query account %d", aid), err)
		}
		after = AccountCounts{}
		for _, it := range items {
			switch {
			case it.SK == SurveySK:
				after.LiveSurveys++
			case strings.HasPrefix(it.SK, "FOLDER#"):
				after.Folders++
			}
		}
		up := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, accountSK).
			Set(attrLiveSurveys, after.LiveSurveys).Set(attrFolders, after.Folders)
		cond, args := []string{"attribute_exists(PK)"}, []any{}
		for _, c := range []struct {
			attr string
			was  *int64
		}{{attrLiveSurveys, raw.LiveSurveys}, {attrFolders, raw.Folders}} {
			if c.was == nil {
				cond = append(cond, "attribute_not_exists($)")
				args = append(args, c.attr)
			} else {
				cond = append(cond, "$ = ?")
				args = append(args, c.attr, *c.was)
			}
		}
		err = up.If(strings.Join(cond, " AND "), args...).Run(ctx)
		if err == nil {
			return before, after, nil
		}
		if !dynamo.IsCondCheckFailed(err) {
			return before, after, s.fail(fmt.Sprintf("recount account %d", aid), err)
		}
		// A counted write landed meanwhile (or the account went): again.
	}
	return before, after, errBusy
}
