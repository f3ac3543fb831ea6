package responders

import (
	"errors"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

var (
	errInvalidLink = responding.ErrInvalidLink
	errLinkUsed    = survey.ErrLinkUsed
)

// handleValues opens a personalised link (?qs=TOKEN) and answers its
// values. Every token that does not open for this survey (garbage,
// truncated, tampered, another survey's) is the same 400. Resolving a
// one-use link does not use it (the response that carries it does); once
// a response has, the link answers 410.
func handleValues(st Store, opener responding.Sealer) http.Handler {
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
