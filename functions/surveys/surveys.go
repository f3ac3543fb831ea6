package surveys

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

type handlers struct {
	st       Store
	now      func() time.Time
	mediaURL string
	files    Files
}

// surveyFields reads name, folder_id and language: required on create,
// each optional on PATCH.
func surveyFields(f *api.Form, create bool) (name *string, folderID, language *int64) {
	if v, ok := f.String("name", api.Str{Required: create, Max: survey.MaxSurveyName}); ok {
		name = &v
	}
	if v, ok := f.PK("folder_id", create); ok {
		folderID = &v
	}
	if v, ok := f.Int("language", api.Int{}); ok {
		if _, known := survey.LanguageCode(v); known {
			language = &v
		} else {
			f.Fail("language", fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(v)))
		}
	}
	return name, folderID, language
}

// addresses sets where the survey lives (contract section 23): the
// account's subdomain and the survey's custom_urls, one read.
func (h handlers) addresses(ctx context.Context, aid int64, d *survey.SurveyDetail) error {
	sub, domains, err := h.st.AccountAddresses(ctx, aid)
	if err != nil {
		return err
	}
	d.Subdomain, d.CustomURLs = sub, survey.CustomURLs(domains, d.URLSlug)
	return nil
}

// detail reads the survey's whole collection (one Query) and answers it.
func (h handlers) detail(w http.ResponseWriter, r *http.Request, status int, aid, sid int64) error {
	acct, _ := api.AccountFrom(r.Context())
	c, err := h.st.SurveyCollection(r.Context(), aid, sid)
	if err != nil {
		return err
	}
	d := c.Survey.Detail(h.now(), acct.Profile(), c.Layout, c.Elements)
	d.Settings = c.Settings.Summary(c.Layout)
	d.Variables = c.Variables
	if err := h.addresses(r.Context(), aid, &d); err != nil {
		return err
	}
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		d.UpdatedBy, d.UpdatedAt = api.Updated(r.Context(), h.now()) // this write's own
	case c.UpdatedAt != "":
		d.UpdatedAt = c.UpdatedAt
		if c.UpdatedBy != 0 {
			d.UpdatedBy = &survey.UpdatedBy{SubUser: c.UpdatedBy}
		}
	}
	api.Respond(w, r, status, d)
	return nil
}

// create answers 201 with the new survey's detail, built from what was
// written: no read after the write.
func (h handlers) create() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		if _, fromTemplate := form.Raw("template"); fromTemplate {
			return h.startFromTemplate(w, r, form)
		}
		name, folderID, language := surveyFields(form, true)
		if err := form.Err(); err != nil {
			return err
		}
		if err := api.FolderWritable(r.Context(), *folderID); err != nil {
			return err
		}
		sv := survey.Survey{AccountID: acct.ID, FolderID: *folderID, Name: *name, Language: survey.DefaultLanguage, Theme: survey.DefaultTheme()}
		if language != nil {
			sv.Language = *language
		}
		sv, err = h.st.CreateSurvey(r.Context(), sv)
		if err != nil {
			return err
		}
		api.NoteSurvey(r.Context(), sv.ID, sv.Created)
		d := sv.Detail(h.now(), acct.Profile(), survey.Layout{}, nil)
		d.Theme = d.Theme.WithMedia(h.mediaURL) // as every read answers it (section 22)
		if err := h.addresses(r.Context(), acct.ID, &d); err != nil {
			return err
		}
		d.UpdatedBy, _ = api.Updated(r.Context(), sv.Created)
		d.Settings = survey.Settings{}.Summary(survey.Layout{}) // a new survey's: nothing set, no questions
		api.Respond(w, r, http.StatusCreated, d)
		return nil
	})
}

func (h handlers) get() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		return h.detail(w, r, http.StatusOK, acct.ID, sid)
	})
}

// update writes only the fields given, then answers the detail.
func (h handlers) update() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		name, folderID, language := surveyFields(form, false)
		themeID, setTheme := form.PK("theme_id", false)
		if err := form.Err(); err != nil {
			return err
		}
		if folderID != nil {
			if err := api.FolderWritable(r.Context(), *folderID); err != nil {
				return err
			}
		}
		if setTheme { // a bad theme_id changes nothing
			if _, err := h.st.Theme(r.Context(), acct.ID, themeID); err != nil {
				return api.NotFoundAsField(err, "theme_id", themeID)
			}
		}
		err = h.st.UpdateSurvey(r.Context(), acct.ID, sid, store.SurveyUpdate{Name: name, FolderID: folderID, Language: language})
		if err != nil {
			return err
		}
		if setTheme {
			if err := h.st.SetSurveyTheme(r.Context(), acct.ID, sid, themeID); err != nil {
				return err
			}
		}
		return h.detail(w, r, http.StatusOK, acct.ID, sid)
	})
}

// trash moves the survey to the trash: 204; its detail still answers.
func (h handlers) trash() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		if err := h.st.TrashSurvey(r.Context(), acct.ID, sid); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}

// restore brings a survey back from the trash, optionally into another
// folder ({"folder_id": N}); a survey not in the trash is left as it is.
func (h handlers) restore() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		var folderID *int64
		if v, ok := form.PK("folder_id", false); ok {
			folderID = &v
		}
		if err := form.Err(); err != nil {
			return err
		}
		if folderID != nil {
			if err := api.FolderWritable(r.Context(), *folderID); err != nil {
				return err
			}
		}
		if err := h.st.RestoreSurvey(r.Context(), acct.ID, sid, folderID); err != nil {
			return err
		}
		return h.detail(w, r, http.StatusOK, acct.ID, sid)
	})
}
