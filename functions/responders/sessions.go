package responders

import (
	"net/http"
	"time"

	"surveyservice/shared/api"
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
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		code, _ := form.String("code", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		qs, hasQS := form.String("qs", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		if err := form.Err(); err != nil {
			return err
		}
		started, err := responding.Start(ctx, st, sealer, r.PathValue("url_slug"), api.ClientIP(r), code, qs, hasQS, now())
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusCreated, sessionView{
			Session: started.Token, StartedAt: started.StartedAt.Format(survey.TimestampLayout), Values: valuesJSON(started.Link),
			ChoiceOrders: started.ChoiceOrders,
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
