package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// The activity log (contract section 19) is one item per successful
// write, never a shared one:
//
//	ACTIVITY#<aid> / <at>#<random>   one entry; TTL 90 days
//	SURVEY#<sid>   / UPDATED         who wrote last under the survey
//
// Each write puts its own entry, so no two requests touch the same item:
// an owner's script writing 50 questions a second puts 50 items of about
// 200 bytes (1 WCU each) under the account's key, 5% of the 1,000 WCU/s
// DynamoDB gives one partition key, and no transaction is cancelled by
// an entry because none includes one. One key per account keeps the
// newest-first listing one Query; should an account ever write near
// 1,000 times a second, the key takes a shard suffix and the listing
// merges the shards' Queries. The UPDATED item is put beside the entry
// (one BatchWriteItem, last writer wins) and read free by the survey
// detail's Query of the survey's partition; it is in no transaction
// either, so the writes under the survey never conflict on it.
type activityItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	At       string `dynamo:"at"`
	SubUser  int64  `dynamo:"sub_user,omitempty"`
	Method   string `dynamo:"method"`
	Path     string `dynamo:"path"`
	Status   int    `dynamo:"status"`
	SurveyID int64  `dynamo:"survey_id,omitempty"`
	Expires  int64  `dynamo:"expires_at"`
}

type updatedItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	SubUser int64  `dynamo:"sub_user,omitempty"`
	At      string `dynamo:"at"`
}

// ActivityPK is the partition of an account's activity log.
func ActivityPK(aid int64) string { return "ACTIVITY#" + pad(aid) }

// updatedSK is the SK of a survey's last writer in its partition.
const updatedSK = "UPDATED"

// RecordActivity puts the entry of one successful write (when entry is
// true; under its Key when it has one, replacing the entry its write's
// transaction committed) and, when it edits a survey, the survey's last
// writer: one BatchWriteItem of one or two items.
func (s *Store) RecordActivity(ctx context.Context, e survey.Activity, entry bool) error {
	var items []any
	it := s.entryItem(&e)
	if entry {
		items = append(items, it)
	}
	if e.EditsSurvey && e.SurveyID != 0 {
		items = append(items, updatedItem{PK: SurveyPK(e.SurveyID), SK: updatedSK, SubUser: it.SubUser, At: it.At})
	}
	if len(items) == 0 {
		return nil
	}
	if _, err := s.table.Batch(AttrPK, AttrSK).Write().Put(items...).Run(ctx); err != nil {
		return s.fail("record activity", err)
	}
	return nil
}

// entryItem is the entry's item; an entry without a Key (or an At) is
// given one now.
func (s *Store) entryItem(e *survey.Activity) activityItem {
	if e.At.IsZero() {
		e.At = s.Now().UTC()
	}
	at := e.At.UTC().Format(survey.TimestampLayout)
	if e.Key == "" {
		var suffix [4]byte
		_, _ = rand.Read(suffix[:])
		e.Key = at + "#" + hex.EncodeToString(suffix[:])
	}
	it := activityItem{PK: ActivityPK(e.AccountID), SK: e.Key, At: at,
		Method: e.Method, Path: e.Path, Status: e.Status, SurveyID: e.SurveyID, Expires: e.At.Add(survey.ActivityKept).Unix()}
	if e.SubUser != nil {
		it.SubUser = *e.SubUser
	}
	return it
}

// runTx commits tx as the request's write when ctx carries one
// (survey.Write; otherwise it is tx.Run): the write's activity entry goes
// in the same transaction, once (a write of several transactions records
// it with its first), so a write that commits never lacks its entry and
// one that fails leaves none; and a member's write carries a condition on
// their item that the editor's shares it was decided on still hold, so an
// unshare, a share turned viewer or the member's removal that commits
// first refuses it (memberRefusal). Each costs the transaction one more
// item: a put of ~200 bytes (2 WCU, as a transaction's write) and, for a
// member, a condition check of their item.
//
// A path that calls runTx builds a fresh transaction for each try, as the
// items added here may be added only once to a transaction. A create
// names its survey in the entry first (noteCreated).
func (s *Store) runTx(ctx context.Context, tx *dynamo.WriteTx) error {
	w, ok := survey.WriteFrom(ctx)
	if !ok {
		return tx.Run(ctx)
	}
	sub := w.Member()
	checked := sub != nil && len(w.Folders) > 0
	if checked {
		tx.Check(s.shareCheck(w.Entry.AccountID, *sub, w.Folders))
	}
	entry := w.TakeEntry()
	if entry {
		// The entry's key and time, once drawn, stay the write's: a try
		// that landed unseen and the try after it record one entry.
		tx.Put(s.table.Put(s.entryItem(&w.Entry)))
	}
	err := tx.Run(ctx)
	if entry {
		w.EntryDone(err == nil)
	}
	if err == nil {
		return nil
	}
	if checked {
		r := txReasons(err)
		i := len(r) - 1
		if entry {
			i--
		}
		if i >= 0 && r[i] == "ConditionalCheckFailed" {
			return s.memberRefusal(ctx, w.Entry.AccountID, *sub, w.Folders, w.InBody)
		}
	}
	return err
}

// RecordWrite commits the request's activity entry alone, for a write
// that puts nothing else in the table (minted personalised links): the
// entry is then the write, a transaction of its put and, for a member,
// the condition on their share, so a member whose share ended first is
// refused (memberRefusal) and a failure to record answers an error
// instead of the write's success. Without a write in ctx it does
// nothing; an entry already committed is not put twice.
func (s *Store) RecordWrite(ctx context.Context) error {
	w, ok := survey.WriteFrom(ctx)
	if !ok || w.Recorded() {
		return nil
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, s.db.WriteTx())
		switch {
		case err == nil:
			return nil
		case retryConflict(ctx, err, attempt, started):
			continue // the member's item was in another of their writes
		case errors.As(err, new(*survey.Error)):
			return err
		}
		return s.fail("record the write's activity", err)
	}
}

// shareCheck is the condition that the member is still an editor of each
// folder.
func (s *Store) shareCheck(aid, sub int64, folders []int64) *dynamo.ConditionCheck {
	c := s.table.Check(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(sub))
	for _, fid := range folders {
		c = c.If("$.$ = ?", "shares", strconv.FormatInt(fid, 10), string(survey.RoleEditor))
	}
	return c
}

// memberRefusal is the answer to a member's write whose share ended
// before it committed, as the next request's access decision would give
// it (contract section 19), read from the member's item as it is now:
// 400 on folder_id where a folder the body named is no longer theirs to
// write into; ErrNotFound where the member no longer reaches the path's
// folder (the share ended, the member was removed), ErrNoPermission
// where they only read it now.
func (s *Store) memberRefusal(ctx context.Context, aid, sub int64, folders, inBody []int64) error {
	var it memberItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, MemberSK(sub)).Consistent(true).One(ctx, &it)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return s.fail(fmt.Sprintf("get member %d", sub), err)
	}
	for _, fid := range inBody {
		if it.Shares[strconv.FormatInt(fid, 10)] != string(survey.RoleEditor) {
			return survey.FieldError("folder_id", survey.InvalidPK(fid))
		}
	}
	for _, fid := range folders {
		if _, ok := it.Shares[strconv.FormatInt(fid, 10)]; !ok {
			return survey.ErrNotFound
		}
	}
	return survey.ErrNoPermission
}

// Activity answers page (1-based) of size entries of the account's log,
// newest first, within the 90 days kept, and how many there are: one
// Query counting the entries and one reading as far as the page.
func (s *Store) Activity(ctx context.Context, aid int64, page, size int) ([]survey.Activity, int, error) {
	cutoff := s.Now().Add(-survey.ActivityKept).UTC().Format(survey.TimestampLayout)
	q := func() *dynamo.Query {
		return s.table.Get(AttrPK, ActivityPK(aid)).Range(AttrSK, dynamo.Greater, cutoff).Consistent(true)
	}
	count, err := q().Count(ctx)
	if err != nil {
		return nil, 0, s.fail(fmt.Sprintf("count activity of account %d", aid), err)
	}
	off, ok := survey.PageOffset(page, size)
	if !ok || off >= int64(count) {
		return nil, count, nil // past the end: the handler answers 404 "Invalid page."
	}
	skip := int(off)
	var its []activityItem
	err = q().Order(dynamo.Descending).Limit(skip+size).All(ctx, &its)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, 0, s.fail(fmt.Sprintf("query activity of account %d", aid), err)
	}
	if skip > len(its) {
		skip = len(its)
	}
	out := make([]survey.Activity, 0, len(its)-skip)
	for _, it := range its[skip:] {
		at, err := time.Parse(survey.TimestampLayout, it.At)
		if err != nil {
			return nil, 0, fmt.Errorf("store: activity %s: at %q: %w", it.SK, it.At, err)
		}
		e := survey.Activity{At: at, AccountID: aid, Method: it.Method, Path: it.Path, Status: it.Status, SurveyID: it.SurveyID}
		if it.SubUser != 0 {
			sub := it.SubUser
			e.SubUser = &sub
		}
		out = append(out, e)
	}
	return out, count, nil
}

// SurveyFolder answers the folder of a survey of the account: one
// strongly consistent GetItem of the survey's item (two attributes), the
// access decision's read for a member's request. A missing or foreign
// survey answers ENOTFOUND.
func (s *Store) SurveyFolder(ctx context.Context, aid, sid int64) (int64, error) {
	var it struct {
		AccountID int64 `dynamo:"account_id"`
		FolderID  int64 `dynamo:"folder_id"`
	}
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).
		Project("account_id", "folder_id").Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.AccountID != aid) {
		return 0, survey.ErrNotFound
	}
	if err != nil {
		return 0, s.fail(fmt.Sprintf("get folder of survey %d", sid), err)
	}
	return it.FolderID, nil
}

// runUpdate runs a single update as the request's write: alone when ctx
// carries no write (survey.Write), else in a transaction with what runTx
// adds. Its errors are tested as a single update's are (IsCondCheckFailed,
// retryOwnerConflict take both forms).
func (s *Store) runUpdate(ctx context.Context, up *dynamo.Update) error {
	if _, ok := survey.WriteFrom(ctx); !ok {
		return up.Run(ctx)
	}
	return s.runTx(ctx, s.db.WriteTx().Update(up))
}

// runPut is runUpdate for a put.
func (s *Store) runPut(ctx context.Context, put *dynamo.Put) error {
	if _, ok := survey.WriteFrom(ctx); !ok {
		return put.Run(ctx)
	}
	return s.runTx(ctx, s.db.WriteTx().Put(put))
}

// runDelete is runUpdate for a delete.
func (s *Store) runDelete(ctx context.Context, del *dynamo.Delete) error {
	if _, ok := survey.WriteFrom(ctx); !ok {
		return del.Run(ctx)
	}
	return s.runTx(ctx, s.db.WriteTx().Delete(del))
}

// noteCreated names the survey a create makes in the request's activity
// entry, and its created_date as the entry's time, before the create's
// transaction records it.
func noteCreated(ctx context.Context, sid int64, at time.Time) {
	if w, ok := survey.WriteFrom(ctx); ok && !w.Recorded() && w.Entry.SurveyID != sid {
		w.Entry.SurveyID, w.Entry.At, w.Entry.Key = sid, at.UTC(), ""
	}
}
