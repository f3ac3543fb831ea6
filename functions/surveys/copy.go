package surveys

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Messages of the template field.
const (
	msgTemplateNoSurvey = "This template has no survey to start from."
	msgTemplateType     = "Incorrect type. Expected pk value or slug."
)

// copyDetail is the 201 answer of a start or a copy.
type copyDetail struct {
	survey.SurveyDetail
	DroppedSettings []string `json:"dropped_settings"`
}

// answerCopy answers 201 with the copy, built from what was written.
//
// Starting a survey from a template and copying a survey (contract section
// 17): both copy a survey whole or not at all (store.CopySurvey) and answer
// 201 with the copy's detail and the settings the owner's plan dropped.
func (h handlers) answerCopy(w http.ResponseWriter, r *http.Request, c store.CopyResult) error {
	acct, _ := api.AccountFrom(r.Context())
	api.NoteSurvey(r.Context(), c.Survey.ID, c.Survey.Created)
	d := c.Survey.Detail(h.now(), acct.Profile(), c.Layout, c.Elements)
	d.UpdatedBy, _ = api.Updated(r.Context(), c.Survey.Created)
	d.Settings = c.Settings.Summary(c.Layout)
	d.Variables = c.Variables
	if err := h.addresses(r.Context(), acct.ID, &d); err != nil {
		return err
	}
	api.Respond(w, r, http.StatusCreated, copyDetail{SurveyDetail: d, DroppedSettings: c.DroppedSettings})
	return nil
}

// templateRef reads the template field: a template id or its url_slug.
func templateRef(f *api.Form) (string, bool) {
	raw, ok := f.Raw("template")
	if !ok {
		return "", false
	}
	raw = bytes.TrimSpace(raw)
	var ref string
	switch {
	case f.IsNull("template"):
		f.Fail("template", api.MsgNull)
		return "", false
	case len(raw) > 0 && raw[0] == '"':
		if err := json.Unmarshal(raw, &ref); err != nil {
			f.Fail("template", msgTemplateType)
			return "", false
		}
		ref = strings.TrimSpace(ref)
	default:
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			f.Fail("template", msgTemplateType)
			return "", false
		}
		ref = n.String()
	}
	if ref == "" {
		f.Fail("template", api.MsgBlank)
		return "", false
	}
	return ref, true
}

// startFromTemplate is POST /api/v2/surveys/ with template: a copy of the
// template's survey into the owner's folder, named after the template
// unless name is given.
func (h handlers) startFromTemplate(w http.ResponseWriter, r *http.Request, form *api.Form) error {
	ctx := r.Context()
	acct, _ := api.AccountFrom(ctx)
	ref, _ := templateRef(form)
	name, folderID, language := surveyFields(form, false)
	if _, given := form.Raw("folder_id"); !given {
		form.Fail("folder_id", api.MsgRequired)
	}
	if err := form.Err(); err != nil {
		return err
	}
	if err := api.FolderWritable(ctx, *folderID); err != nil {
		return err
	}
	title, sid, err := h.st.TemplateSurvey(ctx, ref)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return survey.FieldError("template", `Invalid pk "`+ref+`" - object does not exist.`)
	}
	if err != nil {
		return err
	}
	if sid == 0 {
		return survey.FieldError("template", msgTemplateNoSurvey)
	}
	src, err := h.st.CopySource(ctx, 0, sid)
	if survey.ErrorCode(err) == survey.ENOTFOUND || survey.ErrorCode(err) == survey.ECONFLICT {
		return survey.FieldError("template", msgTemplateNoSurvey)
	}
	if err != nil {
		return err
	}
	spec := store.CopySpec{AccountID: acct.ID, FolderID: *folderID, Name: survey.TruncateName(title), Language: language, Plan: acct.Plan}
	if name != nil {
		spec.Name = *name
	}
	c, err := h.st.CopySurvey(ctx, src, spec)
	if err != nil {
		return err
	}
	return h.answerCopy(w, r, c)
}

// copy is POST /api/v2/surveys/{survey_id}/copy/: a copy of one's own
// survey, into folder_id (default: the same folder), named name (default:
// the name and " (copy)").
func (h handlers) copy() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		var name *string
		var folderID *int64
		if v, ok := form.String("name", api.Str{Max: survey.MaxSurveyName}); ok {
			name = &v
		}
		if v, ok := form.PK("folder_id", false); ok {
			folderID = &v
		}
		if err := form.Err(); err != nil {
			return err
		}
		src, err := h.st.CopySource(ctx, acct.ID, sid)
		if err != nil {
			return err
		}
		spec := store.CopySpec{AccountID: acct.ID, FolderID: src.Survey.FolderID, Name: survey.CopyName(src.Survey.Name), Plan: acct.Plan}
		if name != nil {
			spec.Name = *name
		}
		if folderID != nil {
			spec.FolderID = *folderID
		}
		if err := api.FolderWritable(ctx, spec.FolderID); err != nil {
			return err
		}
		c, err := h.st.CopySurvey(ctx, src, spec)
		if err != nil {
			return err
		}
		return h.answerCopy(w, r, c)
	})
}
