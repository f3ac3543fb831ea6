package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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

// RecordActivity puts the entry of one successful write and, when it
// edits a survey, the survey's last writer: one BatchWriteItem of one or
// two new items.
func (s *Store) RecordActivity(ctx context.Context, e survey.Activity) error {
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	at := e.At.UTC().Format(survey.TimestampLayout)
	it := activityItem{PK: ActivityPK(e.AccountID), SK: at + "#" + hex.EncodeToString(suffix[:]), At: at,
		Method: e.Method, Path: e.Path, Status: e.Status, SurveyID: e.SurveyID, Expires: e.At.Add(survey.ActivityKept).Unix()}
	if e.SubUser != nil {
		it.SubUser = *e.SubUser
	}
	items := []any{it}
	if e.EditsSurvey && e.SurveyID != 0 {
		items = append(items, updatedItem{PK: SurveyPK(e.SurveyID), SK: updatedSK, SubUser: it.SubUser, At: at})
	}
	if _, err := s.table.Batch(AttrPK, AttrSK).Write().Put(items...).Run(ctx); err != nil {
		return s.fail("record activity", err)
	}
	return nil
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
