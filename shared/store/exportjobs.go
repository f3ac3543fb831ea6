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

// Export job states.
const (
	ExportPending   = "pending"
	ExportRunning   = "running"
	ExportSucceeded = "succeeded"
	ExportFailed    = "failed"
)

// ExportJobTTL is how long a job and its file are kept.
const ExportJobTTL = 24 * time.Hour

// ExportsPK is the partition of a survey's export jobs.
func ExportsPK(sid int64) string { return "EXPORTS#" + pad(sid) }

// ExportSK is one export job.
func ExportSK(id string) string { return "EXPORT#" + id }

// ExportJob is one export of a survey's responses.
//
// An export job (POST .../responses/exports/) is EXPORTS#<sid> /
// EXPORT#<job id>: who asked, its state and, once written, the file's key
// and its rows. It is written by the request that starts it and by the
// export function that runs it (an SQS message each), never by anything
// on a submission's path. It expires (TTL) with the file (a day).
type ExportJob struct {
	ID        string `dynamo:"id"`
	SurveyID  int64  `dynamo:"survey_id"`
	AccountID int64  `dynamo:"account_id"`
	Status    string `dynamo:"status"`
	Created   string `dynamo:"created_at"`
	Finished  string `dynamo:"finished_at,omitempty"`
	// Key is the file's key in the exports bucket, fixed at creation.
	Key  string `dynamo:"file_key"`
	Rows int64  `dynamo:"rows"`
	// Attempts counts the runs started (a failed run's message comes back).
	Attempts int `dynamo:"attempts"`
}

type exportJobItem struct {
	PK string `dynamo:"PK"`
	SK string `dynamo:"SK"`
	ExportJob
	ExpiresAt int64 `dynamo:"expires_at"`
}

// NewExportJobID is a fresh, unguessable job id (16 random bytes, hex).
func NewExportJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// CreateExportJob records a pending job: one conditional PutItem (with
// the request's activity entry, a transaction: runPut).
func (s *Store) CreateExportJob(ctx context.Context, j ExportJob) error {
	now := s.Now().UTC()
	j.Status, j.Created = ExportPending, now.Format(survey.TimestampLayout)
	it := exportJobItem{PK: ExportsPK(j.SurveyID), SK: ExportSK(j.ID), ExportJob: j, ExpiresAt: now.Add(ExportJobTTL).Unix()}
	if err := s.runPut(ctx, s.table.Put(it).If("attribute_not_exists(PK)")); err != nil {
		return s.fail(fmt.Sprintf("create export job of survey %d", j.SurveyID), err)
	}
	return nil
}

// ExportJobOf is the account's job of the survey: one consistent GetItem;
// another account's or an unknown job answers ENOTFOUND.
func (s *Store) ExportJobOf(ctx context.Context, aid, sid int64, id string) (ExportJob, error) {
	var it exportJobItem
	err := s.table.Get(AttrPK, ExportsPK(sid)).Range(AttrSK, dynamo.Equal, ExportSK(id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.AccountID != aid) {
		return ExportJob{}, survey.ErrNotFound
	}
	if err != nil {
		return ExportJob{}, s.fail(fmt.Sprintf("get export job of survey %d", sid), err)
	}
	return it.ExportJob, nil
}

// StartExportJob marks a job running and answers it; a job that already
// succeeded or failed answers ok false (a redelivered message: nothing to
// do), an unknown one ENOTFOUND.
func (s *Store) StartExportJob(ctx context.Context, sid int64, id string) (j ExportJob, ok bool, err error) {
	var it exportJobItem
	err = s.table.Update(AttrPK, ExportsPK(sid)).Range(AttrSK, ExportSK(id)).
		Set("status", ExportRunning).Add("attempts", 1).
		If("attribute_exists(PK) AND ($ = ? OR $ = ?)", "status", ExportPending, "status", ExportRunning).
		Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		var cur exportJobItem
		gerr := s.table.Get(AttrPK, ExportsPK(sid)).Range(AttrSK, dynamo.Equal, ExportSK(id)).Consistent(true).One(ctx, &cur)
		if errors.Is(gerr, dynamo.ErrNotFound) {
			return ExportJob{}, false, survey.ErrNotFound
		}
		if gerr != nil {
			return ExportJob{}, false, s.fail("get export job", gerr)
		}
		return cur.ExportJob, false, nil
	}
	if err != nil {
		return ExportJob{}, false, s.fail(fmt.Sprintf("start export job of survey %d", sid), err)
	}
	return it.ExportJob, true, nil
}

// FinishExportJob records a job's end: succeeded with its rows, or failed.
func (s *Store) FinishExportJob(ctx context.Context, sid int64, id, status string, rows int64) error {
	err := s.table.Update(AttrPK, ExportsPK(sid)).Range(AttrSK, ExportSK(id)).
		Set("status", status).Set("rows", rows).Set("finished_at", s.Now().UTC().Format(survey.TimestampLayout)).
		If("attribute_exists(PK)").Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("finish export job of survey %d", sid), err)
	}
	return nil
}
