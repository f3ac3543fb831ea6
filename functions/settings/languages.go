package settings

import (
	"net/http"
	"slices"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Contract section 24: a survey's languages and each language's texts.

// languagesPlan is the plan PUT languages needs.
const languagesPlan = survey.PlanPro

// languagesBody is GET's body: the default first, then the others.
func languagesBody(c store.SurveyCollection) map[string]any {
	def, _ := survey.LanguageCode(c.Survey.Language)
	return map[string]any{"default": def, "languages": c.Translations.All(def)}
}

func (h handlers) getLanguages() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, languagesBody(c))
		return nil
	})
}

// putLanguages validates the body before any read (400 whoever owns the
// id), refuses a change without Pro (403 naming languages; the list as
// it is passes), and writes the list in one transaction with the survey.
func (h handlers) putLanguages() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		if _, err := survey.DecodeLanguages(body, ""); err != nil {
			return err
		}
		c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		if c.Survey.Deleted {
			return survey.ErrSurveyDeleted
		}
		def, _ := survey.LanguageCode(c.Survey.Language)
		langs, err := survey.DecodeLanguages(body, def)
		if err != nil {
			return err
		}
		if !slices.Equal(langs, c.Translations.All(def)[1:]) {
			if !acct.Plan.Includes(languagesPlan) {
				return survey.Errorf(survey.EFORBIDDEN, "Your %s plan does not include these settings: languages (needs the %s plan).", acct.Plan, languagesPlan)
			}
			if err := h.st.SetLanguages(r.Context(), acct.ID, sid, langs); err != nil {
				return err
			}
			c.Translations.Languages = langs
		}
		api.Respond(w, r, http.StatusOK, languagesBody(c))
		return nil
	})
}

// translationOf reads the survey and checks {lang}: one of the survey's
// other languages, 404 otherwise.
func (h handlers) translationOf(r *http.Request) (survey.Account, store.SurveyCollection, string, error) {
	acct, sid, err := api.AccountAndID(r, "survey_id")
	if err != nil {
		return acct, store.SurveyCollection{}, "", err
	}
	lang := r.PathValue("lang")
	if _, ok := survey.LanguageID(lang); !ok {
		return acct, store.SurveyCollection{}, "", survey.ErrNotFound
	}
	c, err := h.st.SurveyCollection(r.Context(), acct.ID, sid)
	if err != nil {
		return acct, c, "", err
	}
	def, _ := survey.LanguageCode(c.Survey.Language)
	if !c.Translations.Has(lang, def) {
		return acct, c, "", survey.ErrNotFound
	}
	return acct, c, lang, nil
}

func (h handlers) getTranslation() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, c, lang, err := h.translationOf(r)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, survey.TranslationView(c.Translations.Texts[lang], c.Survey.Name, c.Elements))
		return nil
	})
}

// putTranslation replaces the language's texts: every id must be the
// survey's (400 naming the unknown ones, nothing written).
func (h handlers) putTranslation() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		acct, c, lang, err := h.translationOf(r)
		if err != nil {
			return err
		}
		if c.Survey.Deleted {
			return survey.ErrSurveyDeleted
		}
		t, err := survey.DecodeTranslation(body, c.Survey.Name, c.Elements)
		if err != nil {
			return err
		}
		if err := h.st.PutTranslation(r.Context(), acct.ID, c.Survey.ID, lang, t); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, survey.TranslationView(t, c.Survey.Name, c.Elements))
		return nil
	})
}
