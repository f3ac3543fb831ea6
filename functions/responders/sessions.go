package responders

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/challenge"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// sessionView is the 201 answer of a new session.
type sessionView struct {
	Session   string         `json:"session"`
	StartedAt string         `json:"started_at"`
	Values    map[string]any `json:"values"`
	// ChoiceOrders: each randomized element's choices in this session's
	// order (contract section 15).
	ChoiceOrders map[string][]int64 `json:"choice_orders"`
	// Language is the code of the language the session answers in, which
	// its response records (contract section 24): the one its start named,
	// else the survey's. A resumed session says it too, so that a client
	// continuing on another device shows the texts in it.
	Language string `json:"language"`
}

// handleSession starts a response: {"code", "qs", "captcha", "language"}, all
// optional but the captcha of a captcha_needed survey (contract section
// 16), which must be a solved challenge; the session spends it. Every
// session is bound to the responder cookie, which this route sets when
// the request has none. The
// survey must be open; under code_auth the code must admit the responder
// (it is checked, not spent, and guessing is held back as on
// authenticate/: store.CodeGuard); a personalised link must open for the
// survey and, if it is a one-use link, not be used yet. The answer seals
// the start time, the code and the link in a session token, under the
// container's data key: one read of the survey, its settings and the
// guard's counts, one of the code or the link when there is one, no KMS
// call while the key is fresh.
func handleSession(svc responding.Service) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		qs, hasQS := form.String("qs", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		lang, _ := form.String("language", api.Str{Nullable: true, AllowBlank: true})
		captcha, err := captchaField(form)
		if err != nil {
			return err
		}
		if err := form.Err(); err != nil {
			return err
		}
		started, err := svc.Start(ctx, responding.StartRequest{
			Slug: r.PathValue("url_slug"), Client: api.ClientIP(r), Code: code, QS: qs, HasQS: hasQS,
			Captcha: captcha, Responder: responding.EnsureResponder(w, r), Language: lang,
		})
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusCreated, sessionView{
			Session: started.Token, StartedAt: started.StartedAt.Format(survey.TimestampLayout), Values: valuesJSON(started.Link),
			ChoiceOrders: started.ChoiceOrders, Language: started.Language,
		})
		return nil
	})
}

// valuesJSON is a link's values as the API answers them.
func valuesJSON(p links.Payload) map[string]any {
	values := make(map[string]any, len(p.Values))
	for _, v := range p.Values {
		values[v.Name] = v.JSON()
	}
	return values
}

// handleChallenge answers a proof-of-work challenge for a live survey
// (contract section 16), whether or not it needs one: the code-guess guard
// may ask for one too; a trashed survey answers 404. Sealing is local
// while the data key is fresh: the slug (cached) and a read copy of the
// survey's state are read (store.PublicCollection: one strongly
// consistent GetItem of one of 8 items, not of the survey item, so a
// trash shows at once) and no other call is made.
func handleChallenge(st Store, sealer responding.Sealer, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		sid, err := st.SurveyIDBySlug(r.Context(), r.PathValue("url_slug"))
		if err != nil {
			return err
		}
		c, err := st.PublicCollection(r.Context(), sid, false)
		if err != nil {
			return err
		}
		if c.Survey.Deleted { // a trashed survey has no page, so no challenge
			return survey.ErrNotFound
		}
		is, err := challenge.Issue(r.Context(), sealer, sid, now())
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, is)
		return nil
	})
}

// captchaField is the request's optional "captcha" member as decoded JSON
// (nil when absent), as challenge.Parse reads it.
func captchaField(form *api.Form) (any, error) {
	var captcha any
	if raw, ok := form.Raw("captcha"); ok {
		if err := json.Unmarshal(raw, &captcha); err != nil {
			return nil, fmt.Errorf("responders: decode captcha: %w", err) // checked JSON: never in practice
		}
	}
	return captcha, nil
}
