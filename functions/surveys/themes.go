package surveys

import (
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/survey"
)

// themeFields reads a theme body into t (create: t is the default theme's
// values; update: the stored theme). Read-only fields are ignored, as
// DRF's; each bad field is a 400 on it. hasOrder tells whether order came.
func themeFields(f *api.Form, t *survey.Theme) (hasOrder bool) {
	for _, name := range survey.ThemeColorFields {
		if v, ok := f.String(name, api.Str{}); ok {
			if !survey.ValidColor(v) {
				f.Fail(name, survey.ColorMessage)
				continue
			}
			t.SetColor(name, strings.ToUpper(v))
		}
	}
	if v, ok := f.Int("order", api.Int{}); ok {
		t.SetInt("order", v)
		hasOrder = true
	}
	if v, ok := f.Int("font_family", api.Int{}); ok {
		if _, known := survey.FontByID(v); known {
			t.SetInt("font_family", v)
		} else {
			f.Fail("font_family", survey.FontMessage(v))
		}
	}
	for _, rg := range survey.ThemeRanges {
		if v, ok := f.Int(rg.Field, api.Int{Min: api.Bound(rg.Min), Max: api.Bound(rg.Max)}); ok {
			t.SetInt(rg.Field, v)
		}
	}
	return hasOrder
}

// themeList answers the public themes, then the account's, in order.
func (h handlers) themeList() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		own, err := h.st.Themes(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		out := make([]survey.Theme, 0, len(own)+10)
		for _, t := range append(survey.PublicThemes(), own...) {
			out = append(out, t.WithMedia(h.mediaURL))
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// themeCreate makes a theme of the account: 201.
func (h handlers) themeCreate() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		if err := api.EditsAnyFolder(r.Context()); err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		f := api.NewForm(body)
		t := survey.DefaultTheme()
		t.IsPublic, t.ID = false, 0
		hasOrder := themeFields(f, &t)
		if err := f.Err(); err != nil {
			return err
		}
		t, err = h.st.CreateTheme(r.Context(), acct.ID, t, hasOrder)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, t.WithMedia(h.mediaURL))
		return nil
	})
}

// themeGet answers a public theme or one of the account's.
func (h handlers) themeGet() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, tid, err := api.AccountAndID(r, "theme_id")
		if err != nil {
			return err
		}
		t, err := h.st.Theme(r.Context(), acct.ID, tid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, t.WithMedia(h.mediaURL))
		return nil
	})
}

// ownTheme is the account's theme a write names (api.OwnTheme decides).
func (h handlers) ownTheme(r *http.Request) (survey.Account, survey.Theme, error) {
	return api.OwnTheme(r, h.st)
}

// themeUpdate changes the account's theme; its surveys show it at once
// (the owner's reads) or within a minute (the hosted pages).
func (h handlers) themeUpdate() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, t, err := h.ownTheme(r)
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		f := api.NewForm(body)
		themeFields(f, &t)
		if err := f.Err(); err != nil {
			return err
		}
		if err := h.st.UpdateTheme(r.Context(), acct.ID, t); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, t.WithMedia(h.mediaURL))
		return nil
	})
}

// themeDelete deletes the account's theme unless a survey uses it (409),
// and its background image's files.
func (h handlers) themeDelete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, t, err := h.ownTheme(r)
		if err != nil {
			return err
		}
		if err := h.st.DeleteTheme(r.Context(), acct.ID, t.ID); err != nil {
			return err
		}
		if bi := t.BackgroundImage; bi != nil && h.files != nil {
			// The theme is gone: a failure leaves unreachable files only.
			if err := h.files.Delete(r.Context(), backgrounds.MediaKeys(t.ID, bi.ID)); err != nil {
				api.Logger(r.Context()).Error("theme image files left", "theme", t.ID, "err", err.Error())
			}
		}
		api.NoContent(w, r)
		return nil
	})
}

// fontList answers the service's fonts.
func fontList() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		api.Respond(w, r, http.StatusOK, survey.Fonts)
		return nil
	})
}
