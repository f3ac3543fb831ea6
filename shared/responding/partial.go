package responding

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// PartialStore is what partial responses read and write (contract
// section 20); *store.Store implements it.
type PartialStore interface {
	PartialCollection(ctx context.Context, sid int64, key string) (store.SurveyCollection, error)
	SavePartial(ctx context.Context, w store.PartialWrite) (store.Partial, bool, error)
	SessionPartial(ctx context.Context, sid int64, session string, legacy bool) (store.Partial, bool, error)
	Account(ctx context.Context, id int64) (survey.Account, error)
	OwnerAccount(ctx context.Context, id int64) (survey.Account, error)
	PhoneListed(ctx context.Context, sid int64, e164 string) (bool, error)
	CheckCode(ctx context.Context, sid int64, code string, unique bool) (bool, error)
}

var _ PartialStore = (*store.Store)(nil)

// Refusals of partial responses (contract section 20).
var (
	ErrNoPartials     = survey.Errorf(survey.EFORBIDDEN, "This survey does not keep partial responses.")
	ErrResumeExpired  = survey.FieldError("token", "This link to continue has expired.")
	msgPageOutOfRange = "Not a page of the survey."
)

// PartialRequest is a PUT of a partial: the session token, the answers so
// far, the page the responder is on and the query-string variables.
type PartialRequest struct {
	Session   string
	Answers   map[string]json.RawMessage
	Variables map[string]any
	Page      int64
	// Files checks the files of upload answers; nil refuses them.
	Files Files
}

// PartialSaved is a saved partial and the resume token of its session.
type PartialSaved struct {
	Partial     store.Partial
	ResumeToken string
}

// partialSession opens a session for the partial routes: the survey known
// and not trashed (404), keeping partials (403), the session its own
// (400), the survey open (410) and the time to respond not over (410).
func (s Service) partialSession(ctx context.Context, slug, token string, purpose links.Purpose) (store.SurveyCollection, Session, error) {
	sid, err := s.Store.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return store.SurveyCollection{}, Session{}, err
	}
	ps, ok := s.Store.(PartialStore)
	if !ok {
		return store.SurveyCollection{}, Session{}, survey.Errorf(survey.EINTERNAL, "responding: the store keeps no partials")
	}
	// A read copy of the survey's state, picked by the token, not the
	// survey item that every route reads (store.PartialCollection): as
	// exact, since a close writes every copy in its transaction.
	c, err := ps.PartialCollection(ctx, sid, token)
	if err != nil {
		return store.SurveyCollection{}, Session{}, err
	}
	if c.Survey.Deleted {
		return store.SurveyCollection{}, Session{}, survey.ErrNotFound
	}
	if !c.Settings.PartialResponses {
		return store.SurveyCollection{}, Session{}, ErrNoPartials
	}
	// The setting is Pro's (survey.PlanNeeded): an owner whose plan lost
	// it keeps the setting stored, and no new partials (one GetItem, at
	// most one a second per container: store.OwnerAccount).
	owner, err := ps.OwnerAccount(ctx, c.Survey.AccountID)
	if err != nil {
		return store.SurveyCollection{}, Session{}, err
	}
	if !owner.Plan.Includes(survey.PlanNeeded["partial_responses"]) {
		return store.SurveyCollection{}, Session{}, ErrNoPartials
	}
	invalid := ErrInvalidSession
	if purpose == links.PurposeResume {
		invalid = ErrResumeExpired
	}
	plain, err := s.Sealer.OpenFor(ctx, purpose, sid, token)
	if errors.Is(err, links.ErrInvalid) {
		return store.SurveyCollection{}, Session{}, invalid
	}
	if err != nil {
		return store.SurveyCollection{}, Session{}, err
	}
	sess, err := DecodeSession(plain)
	if err != nil {
		return store.SurveyCollection{}, Session{}, invalid
	}
	now := s.Now()
	if !c.Survey.Active(now) {
		return store.SurveyCollection{}, Session{}, survey.ErrSurveyClosed
	}
	if deadline, ok := survey.ResponseDeadline(sess.StartedAt, c.Settings.RespondingDuration); ok && now.After(deadline) {
		if purpose == links.PurposeResume {
			return store.SurveyCollection{}, Session{}, ErrResumeExpired
		}
		return store.SurveyCollection{}, Session{}, ErrTimeIsUp
	}
	return c, sess, nil
}

// SavePartial saves a session's partial response (contract section 20):
// the answers checked as a submission's, except that required questions
// may be missing and answers to questions hidden by rules are dropped;
// uploads checked; page an index of the survey's pages; the variables the
// session's (the link's values win over the query-string's). It spends
// nothing. Refusals: as partialSession's, then page and answers (400, all
// at once), then the session's response recorded (409, nothing written).
// The answer carries the session's resume token.
func (s Service) SavePartial(ctx context.Context, slug string, req PartialRequest) (PartialSaved, error) {
	c, sess, err := s.partialSession(ctx, slug, req.Session, links.PurposeSession)
	if err != nil {
		return PartialSaved{}, err
	}
	if err := s.admitPartial(ctx, c, sess); err != nil {
		return PartialSaved{}, s.respondedFirst(ctx, c.Survey.ID, req.Session, sess, err)
	}
	var perr error
	if req.Page < 0 || req.Page >= int64(len(c.Layout.Pages())) {
		perr = survey.FieldError("page", msgPageOutOfRange)
	}
	questions := c.Layout.QuestionElements(c.Elements)
	answers, _, aerr := survey.CheckAsked(questions, c.Layout.Members, req.Answers, map[int64]bool{})
	vars, verr := ResponseVariables(c.Variables, req.Variables, sess.Link)
	if perr != nil || aerr != nil || verr != nil {
		return PartialSaved{}, MergeFieldErrors(perr, aerr, verr)
	}
	sid := c.Survey.ID
	if _, err := s.checkFiles(ctx, req.Files, c, sid, req.Session, answers); err != nil {
		return PartialSaved{}, err
	}
	ps, ok := s.Store.(PartialStore)
	if !ok {
		return PartialSaved{}, survey.Errorf(survey.EINTERNAL, "responding: the store keeps no partials")
	}
	claim := sess.Claim(req.Session)
	p, _, err := ps.SavePartial(ctx, store.PartialWrite{
		SurveyID: sid, Session: claim, Answers: answers, Variables: vars, Page: int(req.Page), StartedAt: sess.StartedAt,
		LegacySession: !sess.OwnPartition,
	})
	if err != nil {
		return PartialSaved{}, err
	}
	token, err := s.resumeToken(ctx, sid, sess, claim)
	if err != nil {
		return PartialSaved{}, err
	}
	return PartialSaved{Partial: p, ResumeToken: token}, nil
}

// admitPartial refuses a partial whose session a submission would refuse
// for who it is (contract section 18 as amended: sign-in before anything
// is kept): Admit's decision, then what the submission's transaction
// checks of the store, read here since a partial spends nothing: the
// number still on the survey's list (403), the code still the survey's
// and, when unique, unspent (403), and a one-use link unused (410). At
// most three GetItems, only on a survey with phone_numbers_limited or
// code_auth and a session of a one-use link.
func (s Service) admitPartial(ctx context.Context, c store.SurveyCollection, sess Session) error {
	a, err := Admit(c.Settings, sess)
	if err != nil {
		return err
	}
	ps, ok := s.Store.(PartialStore)
	if !ok {
		return survey.Errorf(survey.EINTERNAL, "responding: the store keeps no partials")
	}
	sid := c.Survey.ID
	if a.ListedPhone != "" {
		listed, err := ps.PhoneListed(ctx, sid, a.ListedPhone)
		if err != nil {
			return err
		}
		if !listed {
			return survey.ErrNumberRefused
		}
	}
	if a.Code != "" {
		ok, err := ps.CheckCode(ctx, sid, a.Code, c.Settings.CodeAuthIsUnique)
		if err != nil {
			return err
		}
		if !ok {
			return survey.ErrCodeRefused
		}
	}
	if sess.Link != nil && sess.Link.Values.Unique {
		used, err := s.Store.LinkUsed(ctx, sess.Link.TokenID())
		if err != nil {
			return err
		}
		if used {
			return survey.ErrLinkUsed
		}
	}
	return nil
}

// respondedFirst is a partial's answer to a refusal of admitPartial: a
// session whose response is recorded answers 409 (section 20), whatever
// that response spent since (its unique code, its one-use link), so the
// page's last PUT racing its own submission is told the session responded,
// not that its code failed. One Query of the session's items, on the
// refusal's path only.
func (s Service) respondedFirst(ctx context.Context, sid int64, token string, sess Session, refusal error) error {
	ps, ok := s.Store.(PartialStore)
	if !ok || survey.ErrorCode(refusal) == survey.EINTERNAL {
		return refusal
	}
	_, _, err := ps.SessionPartial(ctx, sid, sess.Claim(token), !sess.OwnPartition)
	if errors.Is(err, survey.ErrSessionResponded) {
		return err
	}
	return refusal
}

// resumeToken seals the session as its resume token: the session without
// its responder cookie, naming its claim as its origin, under the resume
// purpose (so it never opens as a session, nor a session as it).
func (s Service) resumeToken(ctx context.Context, sid int64, sess Session, claim string) (string, error) {
	sess.Responder = [16]byte{}
	b, err := hex.DecodeString(claim)
	if err != nil || len(b) != len(sess.Origin) {
		return "", survey.Errorf(survey.EINTERNAL, "responding: a session's claim %q", claim)
	}
	copy(sess.Origin[:], b)
	return s.Sealer.SealFor(ctx, links.PurposeResume, sid, sess.Encode())
}

// Resumed is a session resumed on another device: its new token (the same
// session, bound to this device's responder cookie) and the partial's
// answers and page.
type Resumed struct {
	Started
	Answers map[int64]json.RawMessage
	Page    int
}

// Resume opens a resume token (contract section 20, "Continue later"):
// while its session may still respond (the survey open, the time to
// respond not over, no response recorded) it answers a session token of
// the same session bound to the responder cookie (responder, the
// cookie's value) with the partial's answers and page. A bad, foreign or
// expired token answers ErrResumeExpired (400); a closed survey 410, a
// trashed or unknown one 404, one that keeps no partials 403.
func (s Service) Resume(ctx context.Context, slug, token, responder string) (Resumed, error) {
	c, sess, err := s.partialSession(ctx, slug, token, links.PurposeResume)
	if err != nil {
		return Resumed{}, err
	}
	if sess.Origin == ([32]byte{}) {
		return Resumed{}, ErrResumeExpired
	}
	ps, ok := s.Store.(PartialStore)
	if !ok {
		return Resumed{}, survey.Errorf(survey.EINTERNAL, "responding: the store keeps no partials")
	}
	sid := c.Survey.ID
	p, found, err := ps.SessionPartial(ctx, sid, sess.Claim(""), !sess.OwnPartition)
	if errors.Is(err, survey.ErrSessionResponded) {
		return Resumed{}, ErrResumeExpired
	}
	if err != nil {
		return Resumed{}, err
	}
	if responder != "" {
		sess.Responder = ResponderHash(responder)
	}
	next, err := s.Sealer.SealFor(ctx, links.PurposeSession, sid, sess.Encode())
	if err != nil {
		return Resumed{}, err
	}
	out := Resumed{Started: Started{Token: next, StartedAt: sess.StartedAt, ChoiceOrders: c.Layout.ChoiceOrders(next), Language: responseLanguage(sess, c.Survey)},
		Answers: map[int64]json.RawMessage{}}
	if sess.Link != nil {
		out.Link = sess.Link.Values
	}
	if found {
		out.Answers, out.Page = p.Answers, p.LastPage
	}
	return out, nil
}
