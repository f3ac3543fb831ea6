package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"surveyservice/shared/survey"
)

// Access says how a route's method is authorized beyond its key, where
// deriving it from the method and path would be wrong. The zero value
// derives it: GET, HEAD and OPTIONS read, every other method writes; a
// path with {survey_id} is decided on the survey's folder, a path with
// {folder_id} on the folder (where every write manages the folder: the
// owner's alone), any other path on the account (reads for everyone,
// writes the owner's alone).
type Access int

// The accesses a route may declare.
const (
	// AccessDerived decides from the method and path (the zero value).
	AccessDerived Access = iota
	// AccessRead is a method that writes nothing (whoami's POST): decided,
	// and left out of the activity log, as a read.
	AccessRead
	// AccessOwner is the owner's alone whatever the method (members,
	// activity, a folder's sharing): a member meets 403 where they reach
	// the target, 404 elsewhere.
	AccessOwner
	// AccessFolderInBody is a write on the account whose folder is in the
	// body (creating a survey): a member passes, and the handler checks
	// the folder with FolderWritable.
	AccessFolderInBody
	// AccessEditor is a write on the account that an editor of any folder
	// may do (the account's themes, contract section 22): a member passes,
	// and the handler checks with EditsAnyFolder.
	AccessEditor
)

// EditsAnyFolder answers nil when the request's principal is the owner or
// an editor of at least one folder, else ErrNoPermission (403).
func EditsAnyFolder(ctx context.Context) error {
	p, _ := PrincipalFrom(ctx)
	if p.Member == nil {
		return nil
	}
	for _, role := range p.Shares {
		if role == survey.RoleEditor {
			return nil
		}
	}
	return survey.ErrNoPermission
}

// ThemeReader reads one of an account's themes (the store does).
type ThemeReader interface {
	Theme(ctx context.Context, aid, tid int64) (survey.Theme, error)
}

// OwnTheme is the account's theme a write names by the path's theme_id
// (contract section 22): a public one 403, a missing or foreign one 404,
// a member who edits no folder 403. The surveys and theme-images
// functions both decide it here.
func OwnTheme(r *http.Request, st ThemeReader) (survey.Account, survey.Theme, error) {
	acct, tid, err := AccountAndID(r, "theme_id")
	if err != nil {
		return acct, survey.Theme{}, err
	}
	t, err := st.Theme(r.Context(), acct.ID, tid)
	if err != nil {
		return acct, t, err
	}
	if t.IsPublic {
		return acct, t, survey.ErrNoPermission
	}
	return acct, t, EditsAnyFolder(r.Context())
}

// SurveyPlacer finds the folder a survey of the account is in, so that a
// member's request under a survey is decided before its handler runs. It
// is read for members only: an owner's request reads nothing more.
type SurveyPlacer interface {
	// SurveyFolder answers the survey's folder id, or ENOTFOUND when the
	// survey is missing or another account's.
	SurveyFolder(ctx context.Context, aid, sid int64) (int64, error)
}

// ActivityLog records the account's successful writes (contract section
// 19): one item per write, never a shared one (store/activity.go).
type ActivityLog interface {
	// RecordActivity puts the entry (when entry is true: put again
	// under its key, it is replaced) and the survey's last writer.
	RecordActivity(ctx context.Context, e survey.Activity, entry bool) error
}

// action is what a request with this method does under this access.
func action(method string, access Access, scope scope) survey.Action {
	switch {
	case access == AccessOwner:
		return survey.ActManage
	case !writes(method, access):
		return survey.ActRead
	case scope == scopeFolder:
		return survey.ActManage
	case scope == scopeAccount && access != AccessFolderInBody && access != AccessEditor:
		return survey.ActManage
	}
	return survey.ActWrite
}

// writes reports whether a request with this method writes (and so is
// logged): every method but GET, HEAD and OPTIONS, unless the route says
// it reads.
func writes(method string, access Access) bool {
	read := method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
	return !read && access != AccessRead
}

// scope is what a path's access is decided on.
type scope int

const (
	scopeAccount scope = iota
	scopeFolder
	scopeSurvey
)

func scopeOf(path string) scope {
	switch {
	case strings.Contains(path, "{survey_id}"):
		return scopeSurvey
	case strings.Contains(path, "{folder_id}"):
		return scopeFolder
	}
	return scopeAccount
}

// decide is the one access decision of a request with a key, before its
// handler reads the body: nil lets it through; ErrNotFound and
// ErrNoPermission answer. The owner reads nothing here (the store checks
// the account as it always did); a member's request under a survey reads
// the survey's folder (one GetItem).
//
// It answers the folder it decided a member's request on (0 where none):
// a member's write under a survey relies on that share, which the write's
// own transaction checks again (survey.Write).
func (a *Authenticator) decide(r *http.Request, p survey.Principal, act survey.Action, sc scope) (int64, error) {
	if p.Member == nil {
		return 0, nil
	}
	switch sc {
	case scopeSurvey:
		sid, ok := PathID(r, "survey_id")
		if !ok {
			return 0, survey.ErrNotFound
		}
		if a.places == nil {
			return 0, survey.Errorf(survey.EINTERNAL, "no survey placer for a member's request")
		}
		fid, err := a.places.SurveyFolder(r.Context(), p.Account.ID, sid)
		if err != nil {
			return 0, err
		}
		return fid, p.MayFolder(act, fid)
	case scopeFolder:
		fid, ok := PathID(r, "folder_id")
		if !ok {
			return 0, survey.ErrNotFound
		}
		return fid, p.MayFolder(act, fid)
	}
	if act == survey.ActWrite {
		return 0, nil // AccessFolderInBody, AccessEditor: the handler decides (FolderWritable, EditsAnyFolder)
	}
	return 0, p.MayAccount(act)
}

// FolderWritable answers nil when the request's principal may write into
// the folder (create, move, copy or restore a survey there); for a
// member without an editor's share of it, the 400 on folder_id that
// another account's folder answers (contract section 19).
func FolderWritable(ctx context.Context, fid int64) error {
	p, _ := PrincipalFrom(ctx)
	if p.MayFolder(survey.ActWrite, fid) != nil {
		return survey.FieldError("folder_id", survey.InvalidPK(fid))
	}
	if w, ok := survey.WriteFrom(ctx); ok && p.Member != nil {
		w.RelyInBody(fid) // checked again when the write commits
	}
	return nil
}

// Reaches reports whether the request's principal reads the folder: the
// owner every folder of the account, a member those shared with them
// (lists leave the others out).
func Reaches(ctx context.Context, fid int64) bool {
	p, _ := PrincipalFrom(ctx)
	return p.MayFolder(survey.ActRead, fid) == nil
}

// activityNote is where a handler names the survey its write made (a
// create or a copy), for the activity log and updated_by.
type activityNote struct {
	surveyID int64
	at       time.Time
}

type activityKey struct{}

// NoteSurvey tells the activity log which survey a write without one in
// its path made (a created or copied survey) and when (its created_date,
// so that updated_at starts equal to it).
func NoteSurvey(ctx context.Context, sid int64, at time.Time) {
	if n, ok := ctx.Value(activityKey{}).(*activityNote); ok {
		n.surveyID, n.at = sid, at
	}
}

// Updated is the updated_by and updated_at a write's own answer shows:
// the request's principal, now.
func Updated(ctx context.Context, now time.Time) (*survey.UpdatedBy, string) {
	p, _ := PrincipalFrom(ctx)
	return updatedBy(p.SubUser()), now.UTC().Format(survey.TimestampLayout)
}

func updatedBy(sub *int64) *survey.UpdatedBy {
	if sub == nil {
		return nil
	}
	return &survey.UpdatedBy{SubUser: *sub}
}

// authorize authenticates the request, decides its access and, for a
// write, hands the store the write's activity entry and the member's
// shares it was decided on (survey.Write): the store's transaction commits
// the entry with the write and checks the shares again, so a write that
// succeeded is never missing from the log and an unshare committed first
// refuses it. After a success the entry is completed where the handler
// knew more than the store (the status answered, a created survey), and
// the survey's last writer is put (updatedItem: outside the transaction,
// last writer wins). A write path whose store call carries no entry yet
// is recorded here, after it, as before.
func (a *Authenticator) authorize(access Access, sc scope, route, name string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Principal(r.Context(), r.Header.Values("Authorization"))
		if err != nil {
			Error(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "private, no-cache")
		ctx := WithPrincipal(r.Context(), p)
		r = r.WithContext(ctx)
		act := action(r.Method, access, sc)
		fid, err := a.decide(r, p, act, sc)
		if err != nil {
			Error(w, r, err)
			return
		}
		if !writes(r.Method, access) || a.activity == nil {
			next.ServeHTTP(w, r)
			return
		}
		note := &activityNote{}
		wr := &survey.Write{Entry: survey.Activity{AccountID: p.Account.ID, SubUser: p.SubUser(), Method: r.Method, Path: r.URL.Path,
			Status: usualStatus(r.Method), EditsSurvey: sc == scopeSurvey && !notAnEdit(route)}}
		if sid, ok := PathID(r, "survey_id"); ok && sc == scopeSurvey {
			wr.Entry.SurveyID = sid
		}
		if p.Member != nil && act == survey.ActWrite && fid != 0 {
			wr.Rely(fid)
		}
		r = r.WithContext(survey.WithWrite(context.WithValue(ctx, activityKey{}, note), wr))
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status < 200 || sw.status > 299 {
			return
		}
		e := wr.Entry
		committed := wr.Recorded()
		if !committed {
			e.At = a.Now().UTC()
		}
		e.Status = sw.status
		if note.surveyID != 0 {
			e.SurveyID, e.At, e.EditsSurvey = note.surveyID, note.at.UTC(), true
		}
		entry := !committed || e.Status != wr.Entry.Status || e.SurveyID != wr.Entry.SurveyID || !e.At.Equal(wr.Entry.At)
		if !entry && !e.EditsSurvey {
			return // the entry committed with the write as it is
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := a.activity.RecordActivity(ctx, e, entry); err != nil {
			logger(ctx).ErrorContext(ctx, "activity not completed", "route", name, "committed_with_write", committed, "error", err)
		}
	})
}

// usualStatus is the status a successful write with this method usually
// answers, which the entry committed with the write carries; a handler
// that answers another has its entry replaced after it.
func usualStatus(method string) int {
	switch method {
	case http.MethodPost:
		return http.StatusCreated
	case http.MethodDelete:
		return http.StatusNoContent
	}
	return http.StatusOK
}

// notAnEdit are the writes under a survey that change nothing of the
// survey itself (contract section 19 lists what moves updated_by: the
// survey, its elements, settings, codes, phone numbers, variables,
// webhooks): responses and their exports, minted links, a delivery's
// retry and a copy (which changes the copy, noted by its handler).
func notAnEdit(route string) bool {
	for _, part := range []string{"/responses/", "/hashes/", "/deliveries/", "/copy/"} {
		if strings.Contains(route, part) {
			return true
		}
	}
	return false
}

// NotFoundAsField turns ENOTFOUND of a referenced object into DRF's 400 on
// the field that named it; other errors stay.
func NotFoundAsField(err error, field string, id int64) error {
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return survey.FieldError(field, survey.InvalidPK(id))
	}
	return err
}
