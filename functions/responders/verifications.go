package responders

import (
	"fmt"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// verificationView is the 202 answer of a code sent.
type verificationView struct {
	Verification string `json:"verification"`
	ExpiresAt    string `json:"expires_at"`
}

// handleSendCode sends a one-time code (contract section 18): {"session",
// "channel", "address", "captcha"}, every field required, each send
// spending a solved challenge of its own whatever captcha_needed says. It
// answers 202 with the sealed verification; the code is only in the
// message (responding.Verifier.Send has the refusals).
func handleSendCode(v responding.Verifier) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		session, _ := form.String("session", api.Str{Required: true, NoTrim: true})
		channel, ok := form.String("channel", api.Str{Required: true, NoTrim: true})
		if ok && channel != responding.ChannelEmail && channel != responding.ChannelSMS {
			form.Fail("channel", fmt.Sprintf("%q is not a valid choice.", channel))
		}
		address, _ := form.String("address", api.Str{Required: true, Max: 4 * responding.MaxEmail})
		captcha, err := captchaField(form)
		if err != nil {
			return err
		}
		if captcha == nil {
			form.Fail("captcha", api.MsgRequired)
		}
		if err := form.Err(); err != nil {
			return err
		}
		sent, err := v.Send(r.Context(), responding.SendRequest{
			Slug: r.PathValue("url_slug"), Client: api.ClientIP(r), Session: session, Channel: channel, Address: address, Captcha: captcha,
		})
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusAccepted, verificationView{Verification: sent.Token, ExpiresAt: sent.ExpiresAt.Format(survey.TimestampLayout)})
		return nil
	})
}

// confirmView is the 200 answer of a confirmed code: the new session.
type confirmView struct {
	Session string `json:"session"`
}

// handleConfirmCode confirms a code (contract section 18): {"session",
// "verification", "code"}, answering a new session that carries the
// proven address or number besides everything the session carried.
func handleConfirmCode(v responding.Verifier) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		session, _ := form.String("session", api.Str{Required: true, NoTrim: true})
		verification, _ := form.String("verification", api.Str{Required: true, NoTrim: true})
		code, _ := form.String("code", api.Str{Required: true, Max: 64})
		if err := form.Err(); err != nil {
			return err
		}
		token, err := v.Confirm(r.Context(), responding.ConfirmRequest{
			Slug: r.PathValue("url_slug"), Session: session, Verification: verification, Code: code,
		})
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, confirmView{Session: token})
		return nil
	})
}
