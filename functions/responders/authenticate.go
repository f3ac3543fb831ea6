package responders

import (
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

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
func handleAuthenticate(st Store, svc responding.Service) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Required: true, NoTrim: true})
		captcha, err := captchaField(form)
		if err != nil {
			return err
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
		if err := svc.GuardCodeCheck(r.Context(), guard, sv.Survey.ID, captcha, false); err != nil {
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
