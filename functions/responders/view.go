package responders

import (
	"log/slog"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// handleSurvey answers the survey as its responders see it: one Query of
// the survey's item collection (the slug's survey id is cached by the
// store), and, for a GET, one view counted on the survey's views item,
// which no submission writes. A HEAD (a link checker, a preview) counts
// nothing. A trashed or unknown survey answers 404; a closed or stopped one
// is shown with its state, so that the form can say so.
func handleSurvey(st Store, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		sid, err := st.SurveyIDBySlug(ctx, r.PathValue("url_slug"))
		if err != nil {
			return err
		}
		c, err := st.PublicCollection(ctx, sid, false)
		if err == nil && c.Survey.Deleted {
			err = survey.ErrNotFound
		}
		if err != nil {
			return err
		}
		if r.Method == http.MethodGet && !c.Survey.IsTemplate { // a template's preview counts nothing
			// A view that could not be counted does not keep the survey
			// from its responder.
			if err := st.CountView(ctx, c.Survey.AccountID, c.Survey.FolderID, sid); err != nil {
				api.Logger(ctx).WarnContext(ctx, "view not counted", slog.Int64("survey", sid), slog.String("error", err.Error()))
			}
		}
		// Contract section 24 for API clients: the texts in ?lang= when it
		// is one of the survey's languages (else ignored, as on the page),
		// chosen and applied by the page's code. Accept-Language is not
		// read: a client that ignores languages keeps the default, which
		// its sessions record when they name none.
		def, _ := survey.LanguageCode(c.Survey.Language)
		all := c.Translations.All(def)
		lang, _ := survey.ChooseLanguage(all, r.URL.Query().Get("lang"), "")
		c.Survey.Name, c.Elements = c.Translations.Apply(lang, def, c.Survey.Name, c.Elements, nil)
		v := c.Survey.ResponderView(now(), c.Settings, c.Layout, c.Elements, c.Variables)
		v.Languages, v.ServedLanguage = all, lang
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, v)
		return nil
	})
}
