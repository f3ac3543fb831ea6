package responding

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Refusals of an edit (contract section 16).
var (
	ErrInvalidEditToken = survey.Errorf(survey.EFORBIDDEN, "Invalid edit token.")
	ErrEditingDisabled  = survey.Errorf(survey.EFORBIDDEN, "Editing responses is not enabled for this survey.")
)

// EditToken seals a response's edit token: its id, bound to the survey
// (links.PurposeEdit). No AWS call while the data key is fresh.
func EditToken(ctx context.Context, sealer Sealer, sid, rid int64) (string, error) {
	return sealer.SealFor(ctx, links.PurposeEdit, sid, binary.BigEndian.AppendUint64(nil, uint64(rid)))
}

// editTokenResponse is the response an edit token opens to, or
// ErrInvalidEditToken.
func editTokenResponse(ctx context.Context, sealer Sealer, sid int64, token string) (int64, error) {
	plain, err := sealer.OpenFor(ctx, links.PurposeEdit, sid, token)
	if errors.Is(err, links.ErrInvalid) || err == nil && len(plain) != 8 {
		return 0, ErrInvalidEditToken
	}
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(plain)), nil
}

// EditRequest is an edit: the edit token, the new answers and,
// optionally (nil), the new query-string variables.
type EditRequest struct {
	Token     string
	Answers   map[string]json.RawMessage
	Variables map[string]any
	// Session is the page's session, which new uploads were made for
	// (section 16); Files checks the files and deletes those the edit
	// replaced (nil: upload answers refused).
	Session string
	Files   EditFiles
}

// EditFiles are Files that can also delete the files an edit replaced;
// *uploads.Bucket implements it.
type EditFiles interface {
	Files
	Delete(ctx context.Context, keys []string) error
}

// Edit replaces the answers of response rid of the survey of slug
// (contract section 16): a session, when sent, must be one of the
// survey's (400); the token must be that response's (403); the
// survey open (410) with edit_response_enabled (403); the answers and
// variables valid (400); then one transaction of the responder's own
// items (store.EditResponse: the response and its edit guard) replaces
// them and sets edited_at, and a strongly consistent read of the survey
// after it keeps "closed at the moment of the edit" exact (an edit the
// read finds closed is reverted: 410). The report's counts move from the
// old answers to the new through the tally, which reads the edit from the
// table's stream (old and new images), exactly once; the webhooks'
// response.updated follows from the same stream.
func (s Service) Edit(ctx context.Context, slug string, rid int64, req EditRequest) (survey.Response, error) {
	st, sealer, now := s.Store, s.Sealer, s.Now()
	sid, err := st.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return survey.Response{}, err
	}
	if req.Session != "" { // a session sent is this survey's (400 before the token's 403)
		_, err := sealer.OpenFor(ctx, links.PurposeSession, sid, req.Session)
		if errors.Is(err, links.ErrInvalid) {
			return survey.Response{}, ErrInvalidSession
		}
		if err != nil {
			return survey.Response{}, err
		}
	}
	tokenRID, err := editTokenResponse(ctx, sealer, sid, req.Token)
	if err != nil {
		return survey.Response{}, err
	}
	if tokenRID != rid {
		return survey.Response{}, ErrInvalidEditToken
	}
	c, err := st.PublicCollection(ctx, sid, true)
	if err != nil {
		return survey.Response{}, err
	}
	if c.Survey.Deleted || !c.Survey.Active(now) {
		return survey.Response{}, survey.ErrSurveyClosed
	}
	if !c.Settings.EditResponseEnabled {
		return survey.Response{}, ErrEditingDisabled
	}
	answers, aerr := survey.CheckAnswers(c.Layout.QuestionElements(c.Elements), c.Layout.Members, req.Answers)
	var vars map[string]any
	var verr error
	if req.Variables != nil {
		vars, verr = ResponseVariables(c.Variables, req.Variables, nil)
	}
	if aerr != nil || verr != nil {
		return survey.Response{}, MergeFieldErrors(aerr, verr)
	}
	var files Files
	if req.Files != nil {
		files = req.Files
	}
	keys, err := s.checkFiles(ctx, files, c, sid, req.Session, answers)
	if err != nil {
		return survey.Response{}, err
	}
	var old []string
	if req.Files != nil && hasFileQuestion(c) {
		// The files the edit replaces: deleted once it is written.
		prev, err := st.ResponseOfSurvey(ctx, sid, rid)
		if err != nil {
			return survey.Response{}, err
		}
		old = FileKeys(sid, c.Elements, prev.Answers)
	}
	resp, err := st.EditResponse(ctx, store.ResponseEdit{
		SurveyID: sid, ResponseID: rid, Answers: answers, Variables: vars, ReportAttrs: ReportAttrs(c.Elements, answers), Files: keys,
		Quotas: QuotaCaps(c, answers),
	})
	if err != nil {
		return survey.Response{}, err
	}
	kept := func(k string) bool {
		return slices.ContainsFunc(keys, func(f store.ResponseFile) bool { return f.Key == k })
	}
	if gone := slices.DeleteFunc(old, kept); len(gone) > 0 {
		// The edit is written: a file left behind is logged, not the
		// responder's error.
		if err := req.Files.Delete(ctx, gone); err != nil {
			slog.ErrorContext(ctx, "uploads: delete the files an edit replaced", "survey", sid, "response", rid, "err", err)
		}
	}
	return resp, nil
}

// hasFileQuestion reports whether the survey has a file-upload question.
func hasFileQuestion(c store.SurveyCollection) bool {
	for _, e := range c.Elements {
		if e.Type == survey.TypeFileUpload {
			return true
		}
	}
	return false
}

// FileKeys are the object keys of the files among a response's answers.
func FileKeys(sid int64, elements map[int64]survey.Element, answers map[int64]json.RawMessage) []string {
	var keys []string
	for eid, raw := range answers {
		if e, ok := elements[eid]; ok && e.Type != survey.TypeFileUpload {
			continue
		}
		if f, ok := survey.DecodeFileAnswer(raw); ok {
			keys = append(keys, uploads.FileKey(sid, f))
		}
	}
	return keys
}
