package responding

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what responding reads and writes; *store.Store implements it.
type Store interface {
	GuardedSurveyBySlug(ctx context.Context, slug, client string) (store.PublicSurvey, store.CodeGuard, error)
	RecordFailedGuess(ctx context.Context, g store.CodeGuard) error
	SurveyIDBySlug(ctx context.Context, slug string) (int64, error)
	PublicCollection(ctx context.Context, sid int64, consistent bool) (store.SurveyCollection, error)
	CheckCode(ctx context.Context, sid int64, code string, unique bool) (bool, error)
	LinkUsed(ctx context.Context, tokenID string) (bool, error)
	Submit(ctx context.Context, sub store.Submission) (store.Submitted, error)
	Replay(ctx context.Context, sid int64, sub store.Submission) (store.Submitted, bool, error)
	SpendChallenge(ctx context.Context, sid int64, salt string, expiresAt time.Time) error
	ResponseOfSurvey(ctx context.Context, sid, rid int64) (survey.Response, error)
	EditResponse(ctx context.Context, e store.ResponseEdit) (survey.Response, error)
	Responded(ctx context.Context, sid int64, hash string) (bool, error)
}

// Sealer opens personalised links and seals and opens sessions;
// *links.Sealer implements it.
type Sealer interface {
	Open(ctx context.Context, surveyID int64, token string) (links.Payload, error)
	SealFor(ctx context.Context, purpose links.Purpose, surveyID int64, plain []byte) (string, error)
	OpenFor(ctx context.Context, purpose links.Purpose, surveyID int64, token string) ([]byte, error)
}

var (
	_ Store  = (*store.Store)(nil)
	_ Sealer = (*links.Sealer)(nil)
)

// Service is responding's dependencies, named once: its methods take the
// request's values only. Now is the clock of the survey's state and of
// the time to respond (the store's own clock in tests, so that the two
// agree).
type Service struct {
	Store  Store
	Sealer Sealer
	Now    func() time.Time
}

// Refusals of starting and submitting a response (contract section 11).
var (
	ErrInvalidLink    = survey.FieldError("qs", "Invalid link.")
	ErrInvalidSession = survey.FieldError("session", "Invalid session.")
	ErrTimeIsUp       = survey.Errorf(survey.EGONE, "The time to respond has ended.")
)

// Started is a session started: its sealed token, its start and the
// link's values.
type Started struct {
	Token     string
	StartedAt time.Time
	Link      links.Payload
	// ChoiceOrders are the session's orders of randomized choices
	// (contract section 15), seeded by its token.
	ChoiceOrders map[string][]int64
	// Language is the code of the language the session answers in, the
	// one its response records (contract section 24: responseLanguage).
	Language string
}

// StartRequest is a session's start as a request asks for it.
type StartRequest struct {
	// Slug names the survey; Client is the request's IP.
	Slug, Client string
	// Code is the authentication code (code_auth); QS the personalised
	// link's token, when HasQS.
	Code, QS string
	HasQS    bool
	// Captcha is the request's "captcha" member as decoded JSON (nil when
	// absent): a captcha_needed survey needs a solved challenge, and so
	// does a code_auth survey under attack (GuardCodeCheck).
	Captcha any
	// Responder is the responder cookie's value (EnsureResponder): the
	// session is bound to it (contract section 16).
	Responder string
	// At is when the session starts; zero for the Service's Now (the plain
	// form starts it when its page was served).
	At time.Time
	// Language is the language the responder answers in (contract section
	// 24): "" for the survey's own, else one of its languages (a 400 on
	// `language` otherwise).
	Language string
}

// Start starts a response to the survey of req.Slug for req.Client: the
// survey must be open; on a captcha_needed survey the captcha must be a
// solved challenge of the survey, which the session spends
// (challenge.Check); under code_auth the code must admit the responder
// (checked, not spent, and guessing held back by store.CodeGuard); a
// personalised link (HasQS) must open for the survey and, if it is a
// one-use link, not be used yet; on a no_spam survey without tag_spam the
// responder cookie must have no response yet (403, one read). The start
// time, the code, the link and the responder cookie's hash are sealed in
// the session token.
func (s Service) Start(ctx context.Context, req StartRequest) (Started, error) {
	st, sealer, now := s.Store, s.Sealer, req.At
	if now.IsZero() {
		now = s.Now()
	}
	ps, guard, err := st.GuardedSurveyBySlug(ctx, req.Slug, req.Client)
	if err == nil && ps.Survey.Deleted {
		// Once the slug is known, a survey in the trash is closed: a new
		// session answers as a submission on an older one does (410).
		err = survey.ErrSurveyClosed
	}
	if err != nil {
		return Started{}, err
	}
	sv, set := ps.Survey, ps.Settings
	started := now.UTC().Truncate(time.Microsecond)
	if !sv.Active(started) {
		return Started{}, survey.ErrSurveyClosed
	}
	if set.Full(sv) {
		return Started{}, survey.ErrSurveyFull
	}
	sess := Session{StartedAt: started, OwnPartition: true}
	lang, err := sessionLanguage(req.Language, sv, ps.Translations)
	if err != nil {
		return Started{}, err
	}
	sess.Language = lang
	if req.Responder != "" {
		sess.Responder = ResponderHash(req.Responder)
		if set.NoSpam && !set.TagSpam {
			// Refused now, not after every page (contract section 16);
			// the submission's transaction still decides a race.
			h := sess.Responder
			responded, err := st.Responded(ctx, sv.ID, hex.EncodeToString(h[:]))
			if err != nil {
				return Started{}, err
			}
			if responded {
				return Started{}, survey.ErrAlreadyResponded
			}
		}
	}
	if set.CaptchaNeeded {
		sol, err := challenge.Parse(req.Captcha)
		if err == nil {
			err = challenge.Check(ctx, sealer, st, sv.ID, sol, now)
		}
		if err != nil {
			return Started{}, err
		}
	}
	var link links.Payload
	if req.HasQS {
		if link, err = sealer.Open(ctx, sv.ID, req.QS); errors.Is(err, links.ErrInvalid) {
			err = ErrInvalidLink
		}
		if err != nil {
			return Started{}, err
		}
	}
	if set.CodeAuth {
		// The code check of authenticate/, under the same guard: while
		// this client's failed checks are at their limit, 429; while the
		// survey's are, a solved challenge; both before the code is
		// looked at.
		if err := s.guardCodeCheck(ctx, guard, sv.ID, req.Captcha, set.CaptchaNeeded, now); err != nil {
			return Started{}, err
		}
		code := strings.TrimSpace(req.Code)
		if code == "" || len(code) > MaxCode {
			return Started{}, survey.ErrCodeRefused // no code is like this: not a guess
		}
		ok, err := st.CheckCode(ctx, sv.ID, code, set.CodeAuthIsUnique)
		if err != nil {
			return Started{}, err
		}
		if !ok {
			if err := st.RecordFailedGuess(ctx, guard); err != nil {
				return Started{}, err
			}
			return Started{}, survey.ErrCodeRefused
		}
		sess.Code = code
	}
	if req.HasQS {
		sess.Link = &SessionLink{Values: link}
		id, err := linkID(req.QS)
		if err != nil {
			return Started{}, err
		}
		sess.Link.ID = id
		if link.Unique {
			used, err := st.LinkUsed(ctx, sess.Link.TokenID())
			if err != nil {
				return Started{}, err
			}
			if used {
				return Started{}, survey.ErrLinkUsed
			}
		}
	}
	token, err := sealer.SealFor(ctx, links.PurposeSession, sv.ID, sess.Encode())
	if err != nil {
		return Started{}, err
	}
	return Started{Token: token, StartedAt: started, Link: link, ChoiceOrders: ps.Layout.ChoiceOrders(token), Language: responseLanguage(sess, sv)}, nil
}

// sessionHash names a session's claim on its response (store.SessionSK):
// the hex SHA-256 of its token.
// sessionKeyPrefix and sessionKeyTail make a session's own
// Idempotency-Key (SessionKey).
const (
	sessionKeyPrefix = "session:"
	sessionKeyTail   = 32
)

// SessionKey is the Idempotency-Key that is the session token's own, as
// the hosted page sends it: "session:" and the token's last 32
// characters (base64url: the end of its sealed bytes, GCM tag included,
// which no two sessions share). Only that session can use it, so its use
// is recorded on the session's claim, which the submission writes anyway,
// and not in an item of its own (store.Submission.KeyOnClaim): 2 write
// units a response less (docs/scale.md). "" for a string too short to be
// a token.
func SessionKey(token string) string {
	if len(token) < sessionKeyTail {
		return ""
	}
	return sessionKeyPrefix + token[len(token)-sessionKeyTail:]
}

// MsgKey refuses an Idempotency-Key of another shape than ValidKey's,
// whichever way it came (the header, the plain form's field).
var MsgKey = "Send one key of 1 to " + strconv.Itoa(survey.MaxIdempotencyKey) + " visible ASCII characters."

// ValidKey reports whether key has the shape of an Idempotency-Key
// (contract section 11): 1 to survey.MaxIdempotencyKey visible ASCII
// characters. A session's own key (SessionKey) is one, and so is any
// key of a client's; the shape is all that is checked, and a key of
// SessionKey's form naming another session is Submit's 422.
func ValidKey(key string) bool {
	if key == "" || len(key) > survey.MaxIdempotencyKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] >= 0x7f {
			return false
		}
	}
	return true
}

// namesSession reports whether key has SessionKey's form: it belongs to
// the session whose token ends so, whatever request sends it.
func namesSession(key string) bool {
	tail, ok := strings.CutPrefix(key, sessionKeyPrefix)
	return ok && len(tail) == sessionKeyTail && !strings.ContainsFunc(tail, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	})
}

func sessionHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// linkID is the token id of a link that opened, as bytes.
func linkID(token string) ([12]byte, error) {
	var id [12]byte
	b, err := hex.DecodeString(links.TokenID(token))
	if err != nil || len(b) != len(id) {
		return id, ErrInvalidLink
	}
	copy(id[:], b)
	return id, nil
}

// Request is a submission: the session token, the answers by element id
// and the query-string variables.
type Request struct {
	Session   string
	Answers   map[string]json.RawMessage
	Variables map[string]any
	// Section 16: the request's location member (nil when absent), its
	// responder cookie's value, and where it came from (API Gateway's
	// source IP, the User-Agent).
	Location  json.RawMessage
	Responder string
	IP        string
	UserAgent string
	// Files checks the files of upload answers (section 16); nil where
	// uploads are not taken (upload answers are refused).
	Files Files
}

// Submit records one response exactly once: one strongly consistent Query
// of the survey's item collection, then one transaction (store.Submit).
// key is the request's Idempotency-Key and bodyHash the hex SHA-256 of
// the request as sent, which decide a replay. A key that is its session's
// own (SessionKey: the hosted page's) is recorded on the session's claim;
// one of that form naming another session is refused as a reused key
// (422), since its own session may send it.
//
// Refusals, in order: an unknown survey (404), a session that does not
// open for the survey (400), the survey closed, stopped or trashed (410),
// the time to respond over (410), the code no longer admitting the
// responder (403), the answers and variables (400, all reported at once),
// the files of upload answers (400, one HeadObject each, checkFiles),
// and, inside the transaction, the survey closing, the code or the link
// spent by a racing response (410, 403, 410). A refusal after the session
// opened first asks whether the key recorded a response already: a retry
// of a success answers that success, however the survey changed since.
//
// With show_answer_sheet_to_responder on, the result carries the
// responder's answer sheet and its sealed token (contract section 15).
func (s Service) Submit(ctx context.Context, slug, key, bodyHash string, req Request) (Submitted, error) {
	st, sealer, now := s.Store, s.Sealer, s.Now
	sid, err := st.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return Submitted{}, err
	}
	sess, err := openSession(ctx, sealer, sid, req.Session)
	if err != nil {
		return Submitted{}, err
	}
	own := key == SessionKey(req.Session)
	if !own && namesSession(key) {
		return Submitted{}, survey.ErrReusedKey
	}
	keyed := store.Submission{KeyHash: sessionHash(key), BodyHash: bodyHash, KeyOnClaim: own,
		Session: sess.Claim(req.Session), LegacySession: !sess.OwnPartition}
	c, err := st.PublicCollection(ctx, sid, true)
	if err != nil {
		return Submitted{}, err
	}
	sub, err := Build(c, sess, req, now())
	var files []store.ResponseFile
	if err == nil {
		files, err = s.checkFiles(ctx, req.Files, c, sid, req.Session, sub.Response.Answers)
	}
	if err != nil {
		if survey.ErrorCode(err) == survey.EINTERNAL {
			return Submitted{}, err
		}
		done, found, rerr := st.Replay(ctx, sid, keyed)
		switch {
		case rerr != nil:
			return Submitted{}, rerr
		case found:
			return s.finish(ctx, c, sid, done, nil)
		}
		return Submitted{}, err
	}
	if c.Survey.IsTemplate {
		// A template's page is a preview: the answers were checked as
		// any survey's, and nothing is stored or counted.
		return Submitted{Submitted: store.Submitted{Preview: true}}, nil
	}
	sub.KeyHash, sub.BodyHash, sub.KeyOnClaim, sub.Session, sub.LegacySession = keyed.KeyHash, keyed.BodyHash, keyed.KeyOnClaim, keyed.Session, keyed.LegacySession
	sub.Files = files
	done, err := st.Submit(ctx, sub)
	if err != nil {
		return Submitted{}, err
	}
	return s.finish(ctx, c, sid, done, &sub.Response)
}

// Replayed is what a retry refused before it has a session answers (the
// plain form sent again without one, whose session's start refuses it: the
// survey closed since, its code or link spent by that very response):
// found, the response its key recorded with the same body, as Submit
// answers a retry of a success however the survey changed since;
// survey.ErrReusedKey for another body. A session's own key is its
// session's and is never found without it.
func (s Service) Replayed(ctx context.Context, slug, key, bodyHash string) (Submitted, bool, error) {
	if namesSession(key) {
		return Submitted{}, false, nil
	}
	sid, err := s.Store.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return Submitted{}, false, err
	}
	done, found, err := s.Store.Replay(ctx, sid, store.Submission{KeyHash: sessionHash(key), BodyHash: bodyHash})
	if err != nil || !found {
		return Submitted{}, false, err
	}
	c, err := s.Store.PublicCollection(ctx, sid, true)
	if err != nil {
		return Submitted{}, false, err
	}
	out, err := s.finish(ctx, c, sid, done, nil)
	return out, err == nil, err
}

// finish gives a recorded response what its 201 carries beyond the
// store's answer: the edit token when the survey lets responders edit
// (section 16), the answer sheet when it shows one (section 15).
func (s Service) finish(ctx context.Context, c store.SurveyCollection, sid int64, done store.Submitted, resp *survey.Response) (Submitted, error) {
	now := s.Now()
	if c.Settings.EditResponseEnabled {
		token, err := EditToken(ctx, s.Sealer, sid, done.ID)
		if err != nil {
			return Submitted{}, err
		}
		done.EditToken = token
	}
	return s.withSheet(ctx, c, done, resp, now)
}

// Build checks a response against the survey as read at now and
// builds what the store writes: the survey open, the time to respond not
// over, the session's code still required and given, the answers and the
// variables valid. The store's transaction checks the survey's state, the
// code and the link again, as of its write.
func Build(c store.SurveyCollection, sess Session, req Request, now time.Time) (store.Submission, error) {
	sv, set := c.Survey, c.Settings
	if !sv.Active(now) {
		return store.Submission{}, survey.ErrSurveyClosed
	}
	if set.Full(sv) {
		return store.Submission{}, survey.ErrSurveyFull
	}
	perQuestion := set.RespondingDurationType == survey.DurationPerQuestion
	if deadline, ok := survey.ResponseDeadline(sess.StartedAt, set.RespondingDuration); ok && !perQuestion && now.After(deadline) {
		return store.Submission{}, ErrTimeIsUp
	}
	admitted, err := Admit(set, sess)
	if err != nil {
		return store.Submission{}, err
	}
	if set.NoSpam && (req.Responder == "" || ResponderHash(req.Responder) != sess.Responder) {
		return store.Submission{}, survey.ErrNeedsCookies
	}
	questions := c.Layout.QuestionElements(c.Elements)
	answers, aerr := survey.CheckAnswers(questions, c.Layout.Members, req.Answers)
	vars, verr := ResponseVariables(c.Variables, req.Variables, sess.Link)
	loc, lerr := survey.CheckLocation(set, req.Location)
	if aerr != nil || verr != nil || lerr != nil {
		return store.Submission{}, MergeFieldErrors(aerr, verr, lerr)
	}
	var shown map[int64]bool
	if perQuestion || set.ShowAnswerSheetEnabled {
		shown = survey.Shown(questions, c.Layout.Members, answers)
	}
	if deadline, ok := survey.QuestionsDeadline(sess.StartedAt, questions, shown); ok && perQuestion && now.After(deadline) {
		return store.Submission{}, ErrTimeIsUp
	}
	sub := store.Submission{
		Response: survey.Response{
			SurveyID: sv.ID, StartedAt: sess.StartedAt, Answers: answers, Variables: vars, Code: sess.Code, Language: responseLanguage(sess, sv),
			Location: loc, Responder: survey.DetailsOf(set, req.IP, req.UserAgent), Respondent: admitted.Respondent,
		},
		Identities:  admitted.Identities,
		ListedPhone: admitted.ListedPhone,
		CheckCode:   set.CodeAuth, CodeUnique: set.CodeAuthIsUnique,
		ReportAttrs: ReportAttrs(c.Elements, answers),
	}
	if set.ShowAnswerSheetEnabled {
		score := survey.ScoreOf(questions, shown, answers)
		sub.Response.Score = &score
	}
	if sess.Link != nil && sess.Link.Values.Unique {
		sub.LinkID = sess.Link.TokenID()
	}
	if (set.NoSpam || set.TagSpam) && sess.Responder != ([16]byte{}) && req.Responder != "" && ResponderHash(req.Responder) == sess.Responder {
		h := sess.Responder
		sub.Responder, sub.TagSpam = hex.EncodeToString(h[:]), set.TagSpam
	}
	sub.Caps = Caps(c, answers)
	for _, v := range c.Variables {
		if _, carried := vars[v.Name]; carried && !v.HasResponse {
			sub.NewlyRespondedVariables = append(sub.NewlyRespondedVariables, v.ID)
		}
	}
	return sub, nil
}

// ResponseVariables are the query-string variables a response carries:
// the submitted ones (section 8 rules: each a variable of the survey, a
// string, number or boolean, an integer for a type 2 variable; never one
// whose values come from personalised links only, section 21), and the
// link's values, which win over them.
func ResponseVariables(vars []survey.Variable, submitted map[string]any, link *SessionLink) (map[string]any, error) {
	types := make(map[string]int64, len(vars))
	linksOnly := survey.Fields{}
	for _, v := range vars {
		if v.VariableSource == survey.SourceLinks {
			if _, sent := submitted[v.Name]; sent {
				linksOnly.Add(v.Name, MsgLinksOnly)
			}
			continue
		}
		types[v.Name] = v.Type
	}
	// The others are checked all the same: every problem in one answer.
	rest := submitted
	if len(linksOnly) > 0 {
		rest = make(map[string]any, len(submitted))
		for name, v := range submitted {
			if _, refused := linksOnly[name]; !refused {
				rest[name] = v
			}
		}
	}
	p, fields := links.DecodeItem(rest, types, false)
	if fields != nil || len(linksOnly) > 0 {
		if fields == nil {
			fields = map[string]any{}
		}
		for name, msgs := range linksOnly {
			fields[name] = msgs
		}
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"variables": fields}}
	}
	out := make(map[string]any, len(p.Values))
	for _, v := range p.Values {
		out[v.Name] = v.JSON()
	}
	if link != nil {
		for _, v := range link.Values.Values {
			out[v.Name] = v.JSON()
		}
	}
	return out, nil
}

// MsgLinksOnly refuses a submitted value of a variable whose values come
// from personalised links only (variable_source 1).
const MsgLinksOnly = "This variable takes its value from personalised links only."

// MergeFieldErrors reports the answers' and the variables' field errors in
// one 400; anything else passes as it is.
func MergeFieldErrors(errs ...error) error {
	merged := map[string]any{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID || len(e.Fields) == 0 {
			return err
		}
		for k, v := range e.Fields {
			merged[k] = v
		}
	}
	return &survey.Error{Code: survey.EINVALID, Fields: merged}
}

// sessionLanguage is the language a session is started in: "" (the
// survey's own) when the request names none or names the default, else
// one of the survey's other languages; anything else is a 400 on
// `language`, before anything is spent.
func sessionLanguage(lang string, sv survey.Survey, t survey.Translations) (string, error) {
	def, _ := survey.LanguageCode(sv.Language)
	switch {
	case lang == "" || lang == def:
		return "", nil
	case t.Has(lang, def):
		return lang, nil
	}
	return "", survey.FieldError("language", survey.MsgUnknownLanguage)
}

// responseLanguage is the code a response records (contract section 24):
// its session's language, else the survey's.
func responseLanguage(sess Session, sv survey.Survey) string {
	if sess.Language != "" {
		return sess.Language
	}
	code, _ := survey.LanguageCode(sv.Language)
	return code
}
