package responders

import (
	"bytes"
	"encoding/json"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// handleEdit replaces a response's answers (contract section 16):
// {"edit_token", "answers", "variables"}; 200 with the submission's
// answer plus edited_at. The Idempotency-Key is optional: an edit sent
// twice leaves the same answers.
func handleEdit(svc responding.Service, files responding.EditFiles) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		rid, ok := api.PathID(r, "response_id")
		if !ok {
			return survey.ErrNotFound
		}
		data, err := api.ReadBody(r, api.MaxBody)
		if err != nil {
			return err
		}
		body, err := api.ParseObject(data)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		token, _ := form.String("edit_token", api.Str{Required: true, NoTrim: true})
		// session: the page's, which new uploads were made for (optional).
		session, _ := form.String("session", api.Str{Nullable: true, AllowBlank: true, NoTrim: true})
		req := responding.EditRequest{Token: token, Answers: map[string]json.RawMessage{}, Session: session, Files: files}
		if raw, ok := dictField(form, "answers"); ok {
			if err := json.Unmarshal(raw, &req.Answers); err != nil {
				form.Fail("answers", "Not a valid object.")
			}
		}
		if raw, ok := dictField(form, "variables"); ok {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&req.Variables); err != nil {
				form.Fail("variables", "Not a valid object.")
			}
		}
		if err := form.Err(); err != nil {
			return err
		}
		resp, err := svc.Edit(ctx, r.PathValue("url_slug"), rid, req)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, submittedView{
			ID: resp.ID, SubmittedAt: resp.SubmittedAt.UTC().Format(survey.TimestampLayout), EditToken: token,
			EditedAt: resp.EditedAt.UTC().Format(survey.TimestampLayout),
		})
		return nil
	})
}
