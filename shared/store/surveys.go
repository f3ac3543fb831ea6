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

const (
	// SurveySK is the SK of a survey's own item in its partition.
	SurveySK = "SURVEY"
	slugSK   = "SLUG"
)

// surveyItem is a survey's own item, SURVEY#<sid> / SURVEY. It is in GSI1
// (under its owner and folder) while it is live, and leaves it when trashed.
type surveyItem struct {
	// LimitGen: the response limit's generation (limitbase.go).
	LimitGen           int64  `dynamo:"lg,omitempty"`
	PK                 string `dynamo:"PK"`
	SK                 string `dynamo:"SK"`
	GSI1PK             string `dynamo:"GSI1PK,omitempty"`
	GSI1SK             string `dynamo:"GSI1SK,omitempty"`
	GSI2PK             string `dynamo:"GSI2PK,omitempty"`
	GSI2SK             string `dynamo:"GSI2SK,omitempty"`
	ID                 int64  `dynamo:"id"`
	AccountID          int64  `dynamo:"account_id"`
	FolderID           int64  `dynamo:"folder_id"`
	Name               string `dynamo:"name"`
	Language           int64  `dynamo:"language"`
	URLSlug            string `dynamo:"url_slug"`
	PreviewCode        string `dynamo:"preview_code"`
	ReportCode         string `dynamo:"report_code"`
	Created            string `dynamo:"created"`
	Views              int64  `dynamo:"views"`
	SubmittedResponses int64  `dynamo:"submitted_responses"`
	SpamResponses      int64  `dynamo:"spam_responses,omitempty"`
	PartialResponses   int64  `dynamo:"partial_responses_count,omitempty"`
	Respondents        bool   `dynamo:"respondents,omitempty"`
	IsTemplate         bool   `dynamo:"is_template"`
	Deleted            bool   `dynamo:"deleted"`
	IsStopped          bool   `dynamo:"is_stopped"`
	ExpirationDate     string `dynamo:"expiration_date,omitempty"`
	ClosedBySweep      bool   `dynamo:"closed,omitempty"`
	QuestionCount      int    `dynamo:"question_count"`
	Theme              string `dynamo:"theme"`
	// PutToken tells the create's own earlier attempt from another item
	// (see puttoken.go).
	PutToken string `dynamo:"put_token,omitempty"`
}

// slugItem maps a public slug to its survey and keeps slugs unique.
type slugItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	SurveyID int64  `dynamo:"survey_id"`
}

func newSurveyItem(sv survey.Survey) (surveyItem, error) {
	theme, err := json.Marshal(sv.Theme)
	if err != nil {
		return surveyItem{}, fmt.Errorf("store: encode theme: %w", err)
	}
	it := surveyItem{
		PK: SurveyPK(sv.ID), SK: SurveySK,
		ID: sv.ID, AccountID: sv.AccountID, FolderID: sv.FolderID, Name: sv.Name, Language: sv.Language,
		URLSlug: sv.URLSlug, PreviewCode: sv.PreviewCode, ReportCode: sv.ReportCode,
		Created: sv.Created.UTC().Format(survey.TimestampLayout), Views: sv.Views,
		SubmittedResponses: sv.SubmittedResponses, SpamResponses: sv.SpamResponses, PartialResponses: sv.PartialResponses, IsTemplate: sv.IsTemplate, Deleted: sv.Deleted,
		IsStopped: sv.IsStopped, ExpirationDate: sv.ExpirationDate, ClosedBySweep: sv.ClosedBySweep,
		QuestionCount: sv.QuestionCount, Theme: string(theme), Respondents: sv.HasRespondents,
	}
	if !sv.Deleted {
		it.GSI1PK, it.GSI1SK = OwnerKey(sv.AccountID), SurveyOwnerSK(sv.FolderID, sv.ID)
	}
	if sv.ExpirationDate != "" && !sv.ClosedBySweep {
		it.GSI2PK, it.GSI2SK = ExpiryKey(sv.ID), ExpirySK(sv.ExpirationDate, sv.ID)
	}
	return it, nil
}

func (it surveyItem) survey() (survey.Survey, error) {
	sv, err := it.state()
	if err != nil {
		return survey.Survey{}, err
	}
	if err := json.Unmarshal([]byte(it.Theme), &sv.Theme); err != nil {
		return survey.Survey{}, fmt.Errorf("store: survey %d: theme: %w", it.ID, err)
	}
	return sv, nil
}

// state is the survey without its theme, the one field of the item that
// is a JSON document: what deciding whether it is open needs, and all a
// cached collection's survey needs read again when its theme is unchanged
// (pubcache.go).
func (it surveyItem) state() (survey.Survey, error) {
	sv := survey.Survey{
		ID: it.ID, AccountID: it.AccountID, FolderID: it.FolderID, Name: it.Name, Language: it.Language,
		URLSlug: it.URLSlug, PreviewCode: it.PreviewCode, ReportCode: it.ReportCode, Views: it.Views,
		SubmittedResponses: it.SubmittedResponses, SpamResponses: it.SpamResponses, PartialResponses: it.PartialResponses, IsTemplate: it.IsTemplate, Deleted: it.Deleted,
		IsStopped: it.IsStopped, ExpirationDate: it.ExpirationDate, ClosedBySweep: it.ClosedBySweep,
		QuestionCount: it.QuestionCount, HasRespondents: it.Respondents,
	}
	created, err := time.Parse(survey.TimestampLayout, it.Created)
	if err != nil {
		return survey.Survey{}, fmt.Errorf("store: survey %d: created %q: %w", it.ID, it.Created, err)
	}
	sv.Created = created
	return sv, nil
}

func decodeSurvey(item dynamo.Item) (survey.Survey, error) {
	var it surveyItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return survey.Survey{}, fmt.Errorf("store: decode survey: %w", err)
	}
	return it.survey()
}

// folderMissing is the 400 of a folder_id that names no live folder of the
// account, in DRF's words for a primary-key field.
func folderMissing(fid int64) error {
	return survey.FieldError("folder_id", survey.InvalidPK(fid))
}

// slugAttempts bounds the retries of a create whose random slug was taken.
const slugAttempts = 5

// CreateSurvey stores a new survey of the account in a live folder, with a
// fresh id and random public slug and codes. It is one id allocation and
// one transaction: the survey, its slug (unique across the service), a
// check that the folder is live and the account's live survey count, one
// up (limits.go). A missing, deleting or foreign folder answers 400 on
// folder_id; an account at its limit 400. A taken slug draws another; a
// taken id takes a fresh one (idTaken); a retried transaction that had
// landed finds its own put token and succeeds (see puttoken.go).
func (s *Store) CreateSurvey(ctx context.Context, sv survey.Survey) (survey.Survey, error) {
	id, err := s.NewID(ctx, KindSurvey)
	if err != nil {
		return survey.Survey{}, err
	}
	sv.Created = s.Now().UTC().Truncate(time.Microsecond)
	sv.PreviewCode = survey.NewCode(survey.PreviewCodeLength)
	sv.ReportCode = survey.NewCode(survey.ReportCodeLength)
	token := newPutToken()
	limit := s.Limits.LiveSurveys
	started := time.Now()
	for slugs, ids, conflicts := 1, 1, 1; ; {
		sv.ID = id
		sv.URLSlug = survey.NewCode(survey.SlugLength)
		it, err := newSurveyItem(sv)
		if err != nil {
			return survey.Survey{}, err
		}
		it.PutToken = token
		lay, err := newLayoutItem(id, sv.AccountID, survey.Layout{})
		if err != nil {
			return survey.Survey{}, err
		}
		noteCreated(ctx, id, sv.Created)
		err = s.runTx(ctx, s.createResponsePages(s.createState(s.db.WriteTx().
			Check(s.table.Check(AttrPK, AccountPK(sv.AccountID)).Range(AttrSK, FolderSK(sv.FolderID)).If(folderLive)).
			Put(s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true)).
			Put(s.table.Put(slugItem{PK: SlugPK(sv.URLSlug), SK: slugSK, SurveyID: id}).If("attribute_not_exists(PK)")).
			Put(s.table.Put(lay)).
			Update(s.countUp(sv.AccountID, attrLiveSurveys, limit)).
			Put(s.table.Put(newReportItem(sv))).
			Put(s.table.Put(newPreviewItem(sv))), sv), sv))
		switch {
		case err == nil:
			return sv, nil
		case txFailedAt(err, 0):
			return survey.Survey{}, folderMissing(sv.FolderID)
		case txFailedAt(err, 1) && ownEarlierPut(txItemAt(err, 1), token):
			return sv, nil // an earlier attempt of this very transaction landed
		case txFailedAt(err, 4):
			return survey.Survey{}, limitRefusal(err, 4, attrLiveSurveys, limit)
		case txFailedAt(err, 1):
			if ids == idAttempts {
				return survey.Survey{}, errIDsTaken
			}
			if err := s.idTaken(ctx, KindSurvey, id); err != nil {
				return survey.Survey{}, err
			}
			if id, err = s.NewID(ctx, KindSurvey); err != nil {
				return survey.Survey{}, err
			}
			ids++
		case txFailedAt(err, 2):
			if slugs == slugAttempts {
				return survey.Survey{}, survey.Errorf(survey.EINTERNAL, "store: no free slug in %d attempts", slugAttempts)
			}
			slugs++ // the slug is taken: draw another
		case retryConflict(ctx, err, conflicts, started):
			conflicts++ // lost the account item to a concurrent transaction
		default:
			return survey.Survey{}, s.fail("create survey", err)
		}
	}
}

// Survey reads one survey of the account (its own item only).
func (s *Store) Survey(ctx context.Context, aid, sid int64) (survey.Survey, error) {
	var item dynamo.Item
	err := s.table.Get(AttrPK, SurveyPK(sid)).Range(AttrSK, dynamo.Equal, SurveySK).Consistent(true).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Survey{}, s.fail(fmt.Sprintf("get survey %d", sid), err)
	}
	sv, err := decodeSurvey(item)
	if err != nil {
		return survey.Survey{}, err
	}
	if sv.AccountID != aid {
		return survey.Survey{}, survey.ErrNotFound
	}
	return sv, nil
}

// SurveyIDBySlug resolves a public slug to its survey id in one read, or
// none when this container resolved it before, or ENOTFOUND.
func (s *Store) SurveyIDBySlug(ctx context.Context, slug string) (int64, error) {
	if !survey.ValidSlug(slug) {
		return 0, survey.ErrNotFound
	}
	if sid, ok := s.slugs.get(slug); ok {
		return sid, s.inHostScope(ctx, sid)
	}
	var it slugItem
	err := s.table.Get(AttrPK, SlugPK(slug)).Range(AttrSK, dynamo.Equal, slugSK).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return 0, survey.ErrNotFound
	}
	if err != nil {
		return 0, s.fail("get survey by slug", err)
	}
	s.slugs.put(slug, it.SurveyID)
	return it.SurveyID, s.inHostScope(ctx, it.SurveyID)
}

// SurveyUpdate is a change to a survey's own fields; nil fields stay.
type SurveyUpdate struct {
	Name     *string
	FolderID *int64
	Language *int64
}

// surveyWritable is the condition of every write under a survey: it is the
// account's and not in the trash.
const surveyWritable = "attribute_exists(PK) AND account_id = ? AND deleted = ?"

// UpdateSurvey writes the given fields of a live survey of the account.
// Only those fields are written, so concurrent updates of different fields
// both land. Moving to another folder checks, in the same transaction, that
// the folder is live. It answers ENOTFOUND, survey.ErrSurveyDeleted (409) or 400 on
// folder_id.
func (s *Store) UpdateSurvey(ctx context.Context, aid, sid int64, u SurveyUpdate) error {
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If(surveyWritable, aid, false)
	if u.Name != nil {
		up.Set("name", *u.Name)
	}
	if u.Language != nil {
		up.Set("language", *u.Language)
	}
	if u.FolderID == nil && u.Name == nil && u.Language == nil {
		return s.checkWritable(ctx, aid, sid)
	}
	// The public routes take the survey's name, language and folder from
	// the container's copy while the read copies of its state name its
	// collection version (surveystate.go): the change moves it, on the
	// item and on every copy.
	up.Add(attrCollectionVersion, 1)
	if u.FolderID != nil {
		up.Set("folder_id", *u.FolderID).Set(AttrGSI1SK, SurveyOwnerSK(*u.FolderID, sid))
	}
	// The survey item is also the tally's (its counts): a change lost to
	// one of its transactions is tried again for a while (retryOwnerConflict);
	// each try writes the same values.
	started := time.Now()
	for attempt := 1; ; attempt++ {
		var err error
		if u.FolderID == nil {
			err = s.runTx(ctx, s.mirrorState(s.db.WriteTx().Update(up), sid, addCV))
			if txFailedAt(err, 0) {
				return s.whyNotWritable(ctx, aid, sid)
			}
		} else {
			err = s.runTx(ctx, s.mirrorState(s.db.WriteTx().
				Check(s.table.Check(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(*u.FolderID)).If(folderLive)).
				Update(up).Update(s.viewsPlace(aid, *u.FolderID, sid)), sid, addCV))
			switch {
			case txFailedAt(err, 1):
				return s.whyNotWritable(ctx, aid, sid)
			case txFailedAt(err, 0):
				return folderMissing(*u.FolderID)
			}
		}
		switch {
		case err == nil:
			return nil
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("update survey %d", sid), err)
	}
}

// checkWritable answers nil when the survey is the account's and live.
func (s *Store) checkWritable(ctx context.Context, aid, sid int64) error {
	sv, err := s.Survey(ctx, aid, sid)
	if err != nil {
		return err
	}
	if sv.Deleted {
		return survey.ErrSurveyDeleted
	}
	return nil
}

// whyNotWritable tells, after a failed condition, whether the survey is
// missing or foreign (404) or in the trash (409).
func (s *Store) whyNotWritable(ctx context.Context, aid, sid int64) error {
	if err := s.checkWritable(ctx, aid, sid); err != nil {
		return err
	}
	// Live again by now (restored concurrently): the client may retry.
	return errBusy
}

// TrashSurvey moves a survey of the account to the trash: deleted, out of
// the folder lists, nothing erased. One transaction: the survey's update,
// conditional on it being live, and the account's live survey count, one
// down (limits.go). A survey already in the trash answers
// survey.ErrSurveyDeleted.
func (s *Store) TrashSurvey(ctx context.Context, aid, sid int64) error {
	now := s.timestamp()
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, s.mirrorState(s.db.WriteTx().
			Update(s.trashUpdate(sid, now).If(surveyWritable, aid, false)).
			Update(s.countAdd(aid, attrLiveSurveys, -1)), sid, trashed(true)))
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0):
			return s.whyNotWritable(ctx, aid, sid)
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("trash survey %d", sid), err)
	}
}

// trashed mirrors a survey moved into the trash or out of it on the read
// copies of its state (surveystate.go).
func trashed(deleted bool) func(*dynamo.Update) *dynamo.Update {
	return func(u *dynamo.Update) *dynamo.Update { return u.Set("deleted", deleted) }
}

// restored mirrors a survey brought back from the trash: its folder may
// be another, which moves the collection version (the public routes'
// copies name the folder a view is counted in).
func restored(u *dynamo.Update) *dynamo.Update { return addCV(trashed(false)(u)) }

// trashUpdate moves a survey to the trash, trashed at now; the caller adds
// the condition (and the read copies of its state, trashed(true)).
func (s *Store) trashUpdate(sid int64, now string) *dynamo.Update {
	return s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).
		Set("deleted", true).Set("trashed", now).Remove(AttrGSI1PK, AttrGSI1SK)
}

// RestoreSurvey brings a survey of the account back from the trash, into
// folderID when given, else into its own folder, counting it live again in
// the same transaction (limits.go: an account at its limit answers 400). A
// survey not in the trash is left as it is. Its folder gone and none given answers survey.ErrFolderGone;
// a given folder that is not a live folder of the account answers 400 on
// folder_id, whether or not the survey is in the trash (a client must not
// learn that a bad folder_id was ignored only because nothing was to move).
func (s *Store) RestoreSurvey(ctx context.Context, aid, sid int64, folderID *int64) error {
	sv, err := s.Survey(ctx, aid, sid)
	if err != nil {
		return err
	}
	if !sv.Deleted {
		if folderID == nil {
			return nil
		}
		_, err := s.Folder(ctx, aid, *folderID)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return folderMissing(*folderID)
		}
		return err
	}
	target := sv.FolderID
	if folderID != nil {
		target = *folderID
	}
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).
		Set("deleted", false).Set("folder_id", target).Remove("trashed").Add(attrCollectionVersion, 1).
		Set(AttrGSI1PK, OwnerKey(aid)).Set(AttrGSI1SK, SurveyOwnerSK(target, sid)).
		If("attribute_exists(PK) AND account_id = ? AND deleted = ?", aid, true)
	limit := s.Limits.LiveSurveys
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err = s.runTx(ctx, s.mirrorState(s.db.WriteTx().
			Check(s.table.Check(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(target)).If(folderLive)).
			Update(up).Update(s.viewsPlace(aid, target, sid)).
			Update(s.countUp(aid, attrLiveSurveys, limit)), sid, restored))
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0) && folderID == nil:
			return survey.ErrFolderGone
		case txFailedAt(err, 0):
			return folderMissing(target)
		case txFailedAt(err, 1):
			return nil // restored concurrently: nothing left to do
		case txFailedAt(err, 3):
			return limitRefusal(err, 3, attrLiveSurveys, limit)
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("restore survey %d", sid), err)
	}
}
