package responders

import (
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// sessionView is the 201 answer of a new session.
type sessionView struct {
	Session   string         `json:"session"`
	StartedAt string         `json:"started_at"`
	Values    map[string]any `json:"values"`
}

// handleSession starts a response: {"code", "qs"}, both optional. The
// survey must be open; under code_auth the code must admit the responder
// (it is checked, not spent, and guessing is held back as on
// authenticate/: store.CodeGuard); a personalised link must open for the
// survey and, if it is a one-use link, not be used yet. The answer seals
// the start time, the code and the link in a session token, under the
// container's data key: one read of the survey, its settings and the
// guard's counts, one of the code or the link when there is one, no KMS
// call while the key is fresh.
func handleSession(st Store, sealer Sealer, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		qs, hasQS := form.String("qs", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		if err := form.Err(); err != nil {
			api.Error(w, r, err)
			return
		}
		ps, guard, err := st.GuardedSurveyBySlug(ctx, r.PathValue("url_slug"), api.ClientIP(r))
		if err == nil && ps.Survey.Deleted {
			err = survey.ErrNotFound
		}
		if err != nil {
			api.Error(w, r, err)
			return
		}
		sv, set := ps.Survey, ps.Settings
		started := now().UTC().Truncate(time.Microsecond)
		if !sv.Active(started) {
			api.Error(w, r, store.ErrSurveyClosed)
			return
		}
		s := Session{StartedAt: started}
		var link links.Payload
		if hasQS {
			if link, err = sealer.Open(ctx, sv.ID, qs); errors.Is(err, links.ErrInvalid) {
				err = errInvalidLink
			}
			if err != nil {
				api.Error(w, r, err)
				return
			}
		}
		if set.CodeAuth {
			// The code check of authenticate/, under the same guard: while
			// the survey's or this client's failed checks are at their
			// limit, 429 before the code is looked at.
			if err := guard.Check(); err != nil {
				api.Error(w, r, err)
				return
			}
			code = strings.TrimSpace(code)
			if code == "" || len(code) > MaxCode {
				api.Error(w, r, errRefused) // no code is like this: not a guess
				return
			}
			ok, err := st.CheckCode(ctx, sv.ID, code, set.CodeAuthIsUnique)
			if err != nil {
				api.Error(w, r, err)
				return
			}
			if !ok {
				if err := st.RecordFailedGuess(ctx, guard); err != nil {
					api.Error(w, r, err)
					return
				}
				api.Error(w, r, errRefused)
				return
			}
			s.Code = code
		}
		if hasQS {
			s.Link = &SessionLink{Values: link}
			id, err := linkID(qs)
			if err != nil {
				api.Error(w, r, err)
				return
			}
			s.Link.ID = id
			if link.Unique {
				used, err := st.LinkUsed(ctx, s.Link.TokenID())
				if err != nil {
					api.Error(w, r, err)
					return
				}
				if used {
					api.Error(w, r, errLinkUsed)
					return
				}
			}
		}
		token, err := sealer.SealFor(ctx, links.PurposeSession, sv.ID, s.Encode())
		if err != nil {
			api.Error(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusCreated, sessionView{
			Session: token, StartedAt: started.Format(survey.TimestampLayout), Values: valuesJSON(link),
		})
	})
}

// linkID is the token id of a link that opened, as bytes.
func linkID(token string) ([12]byte, error) {
	var id [12]byte
	b, err := hex.DecodeString(links.TokenID(token))
	if err != nil || len(b) != len(id) {
		return id, errInvalidLink
	}
	copy(id[:], b)
	return id, nil
}

// valuesJSON is a link's values as the API answers them.
func valuesJSON(p links.Payload) map[string]any {
	values := make(map[string]any, len(p.Values))
	for _, v := range p.Values {
		values[v.Name] = v.JSON()
	}
	return values
}
