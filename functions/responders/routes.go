// Package responders is what a survey's responders reach without an API
// key (contract section 11): the survey as they see it, sessions, the
// submission of responses, the authentication code check and the values
// of personalised links.
package responders

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	GuardedSurveyBySlug(ctx context.Context, slug, client string) (store.PublicSurvey, store.CodeGuard, error)
	RecordFailedGuess(ctx context.Context, g store.CodeGuard) error
	SurveyIDBySlug(ctx context.Context, slug string) (int64, error)
	PublicCollection(ctx context.Context, sid int64, consistent bool) (store.SurveyCollection, error)
	CountView(ctx context.Context, aid, fid, sid int64) error
	CheckCode(ctx context.Context, sid int64, code string, unique bool) (bool, error)
	LinkUsed(ctx context.Context, tokenID string) (bool, error)
	Submit(ctx context.Context, sub store.Submission) (store.Submitted, error)
	Replay(ctx context.Context, sid int64, keyHash, bodyHash string) (store.Submitted, bool, error)
	SpendChallenge(ctx context.Context, sid int64, salt string, expiresAt time.Time) error
	EditResponse(ctx context.Context, e store.ResponseEdit) (survey.Response, error)
	ResponseOfSurvey(ctx context.Context, sid, rid int64) (survey.Response, error)
}

// Sealer opens personalised links and seals and opens sessions;
// *links.Sealer implements it.
type Sealer interface {
	Open(ctx context.Context, surveyID int64, token string) (links.Payload, error)
	SealFor(ctx context.Context, purpose links.Purpose, surveyID int64, plain []byte) (string, error)
	OpenFor(ctx context.Context, purpose links.Purpose, surveyID int64, token string) ([]byte, error)
}

var _ Sealer = (*links.Sealer)(nil)

var _ Store = (*store.Store)(nil)

// New returns the group's routes; now is the clock of the survey's state
// and of the time to respond (the store's own clock in tests, so that the
// two agree).
func New(st Store, sealer Sealer, now func() time.Time, opts ...Option) *api.Router {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rt := api.NewRouter(nil)
	rt.Handle(api.Route{Method: "GET", Path: "/api/public/surveys/{url_slug}/", Name: "Public Survey", Public: true}, handleSurvey(st, now))
	rt.Handle(api.Route{Method: "GET", Path: "/api/public/surveys/{url_slug}/challenge/", Name: "Survey Challenge", Public: true}, handleChallenge(st, sealer, now))
	rt.Handle(api.Route{Method: "POST", Path: "/api/public/surveys/{url_slug}/sessions/", Name: "Survey Sessions", Public: true}, handleSession(st, sealer, now))
	rt.Handle(api.Route{Method: "POST", Path: "/api/public/surveys/{url_slug}/responses/", Name: "Survey Responses", Public: true}, handleSubmit(st, sealer, o.uploads, now))
	rt.Handle(api.Route{Method: "PUT", Path: "/api/public/surveys/{url_slug}/responses/{response_id}/", Name: "Survey Response Edit", Public: true}, handleEdit(st, sealer, o.uploads, now))
	if o.uploads != nil {
		rt.Handle(api.Route{Method: "POST", Path: "/api/public/surveys/{url_slug}/uploads/", Name: "Survey Uploads", Public: true}, handleUpload(st, sealer, o.uploads, now))
	}
	rt.Handle(api.Route{Method: "POST", Path: "/api/public/surveys/{url_slug}/authenticate/", Name: "Survey Authenticate", Public: true}, handleAuthenticate(st, sealer, now))
	rt.Handle(api.Route{Method: "GET", Path: "/api/public/surveys/{url_slug}/variables/", Name: "Survey Link Values", Public: true}, handleValues(st, sealer))
	return rt
}

var (
	errInvalidLink = responding.ErrInvalidLink
	errLinkUsed    = survey.ErrLinkUsed
)

// handleValues opens a personalised link (?qs=TOKEN) and answers its
// values. Every token that does not open for this survey (garbage,
// truncated, tampered, another survey's) is the same 400. Resolving a
// one-use link does not use it (the response that carries it does); once
// a response has, the link answers 410.
func handleValues(st Store, opener Sealer) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		qs, present := r.URL.Query()["qs"]
		if !present {
			return survey.FieldError("qs", api.MsgRequired)
		}
		sid, err := st.SurveyIDBySlug(r.Context(), r.PathValue("url_slug"))
		if err != nil {
			return err
		}
		p, err := opener.Open(r.Context(), sid, qs[0])
		if errors.Is(err, links.ErrInvalid) {
			return errInvalidLink
		}
		if err != nil {
			return err
		}
		if p.Unique {
			used, err := st.LinkUsed(r.Context(), links.TokenID(qs[0]))
			if err != nil {
				return err
			}
			if used {
				return errLinkUsed
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, map[string]any{"values": valuesJSON(p)})
		return nil
	})
}

// errRefused is the one answer to every refused code: it never tells an
// unknown code from a spent one, or from a survey without code_auth.
var errRefused = survey.ErrCodeRefused

// handleAuthenticate checks a responder's code: 200 when the survey's
// code_auth is on and the code exists (and, with code_auth_is_unique, no
// response has spent it yet); 403 otherwise. It spends nothing: the
// response that carries the code does. Failed checks are counted per survey
// and per client (survey.GuessLimits); while the client's count is at its
// limit its checks answer 429 with Retry-After, and while the survey's is
// (an attack) every check needs a solved challenge in "captcha", as a
// captcha_needed session does (responding.GuardCodeCheck), both before
// the code is looked at, so a right code tells nothing either.
func handleAuthenticate(st Store, sealer Sealer, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Required: true, NoTrim: true})
		var captcha any
		if raw, ok := form.Raw("captcha"); ok {
			if err := json.Unmarshal(raw, &captcha); err != nil {
				return err // checked JSON: never in practice
			}
		}
		if err := form.Err(); err != nil {
			return err
		}
		sv, guard, err := st.GuardedSurveyBySlug(r.Context(), r.PathValue("url_slug"), api.ClientIP(r))
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return errRefused // "403 otherwise": not even whether the survey exists
		}
		if err != nil {
			return err
		}
		if !sv.Settings.CodeAuth {
			return errRefused // no code can pass: nothing to guess
		}
		if err := responding.GuardCodeCheck(r.Context(), st, sealer, guard, sv.Survey.ID, captcha, false, now()); err != nil {
			return err
		}
		code = strings.TrimSpace(code)
		if code == "" || len(code) > 400 {
			return errRefused // no code is like this: not a guess
		}
		ok, err := st.CheckCode(r.Context(), sv.Survey.ID, code, sv.Settings.CodeAuthIsUnique)
		if err != nil {
			return err
		}
		if !ok {
			if err := st.RecordFailedGuess(r.Context(), guard); err != nil {
				return err
			}
			return errRefused
		}
		api.Respond(w, r, http.StatusOK, map[string]bool{"authenticated": true})
		return nil
	})
}
