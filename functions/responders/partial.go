package responders

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// ResumeTokenHeader carries a session's resume token on the 204 of a
// partial's PUT (contract section 20, "Continue later"; docs/responding.md).
const ResumeTokenHeader = "Resume-Token"

// partialRequest is a partial's body, decoded.
type partialRequest struct {
	session   string
	answers   map[string]json.RawMessage
	variables map[string]any
	page      int64
}

// decodePartial reads {"session", "answers", "page", "variables"}: the
// session and page are required (page an integer), answers and variables
// objects, {} when left out. Every problem is reported at once.
func decodePartial(data []byte) (partialRequest, error) {
	body, err := api.ParseObject(data)
	if err != nil {
		return partialRequest{}, err
	}
	form := api.NewForm(body)
	var req partialRequest
	req.session, _ = form.String("session", api.Str{Required: true, NoTrim: true})
	req.page, _ = form.Int("page", api.Int{Required: true})
	req.answers = map[string]json.RawMessage{}
	if raw, ok := dictField(form, "answers"); ok {
		if err := json.Unmarshal(raw, &req.answers); err != nil {
			form.Fail("answers", "Not a valid object.")
		}
	}
	req.variables = map[string]any{}
	if raw, ok := dictField(form, "variables"); ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&req.variables); err != nil {
			form.Fail("variables", "Not a valid object.")
		}
	}
	return req, form.Err()
}

// handlePartial saves a session's partial response (contract section 20):
// 204 with the session's resume token in ResumeTokenHeader. One
// strongly consistent Query of the survey's collection, one GetItem of
// the owner's account (the plan), one GetItem and one PutItem of the
// session's own item.
func handlePartial(svc responding.Service, files responding.EditFiles) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		data, err := api.ReadBody(r, api.MaxBody)
		if err != nil {
			return err
		}
		req, err := decodePartial(data)
		if err != nil {
			return err
		}
		var checker responding.Files
		if files != nil {
			checker = files
		}
		saved, err := svc.SavePartial(r.Context(), r.PathValue("url_slug"), responding.PartialRequest{
			Session: req.session, Answers: req.answers, Variables: req.variables, Page: req.page, Files: checker,
		})
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set(ResumeTokenHeader, saved.ResumeToken)
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}

// resumedView is the answer of a resume: the session as a start answers
// it, and the partial's answers and page.
type resumedView struct {
	sessionView
	Answers map[string]json.RawMessage `json:"answers"`
	Page    int                        `json:"page"`
}

// handleResume opens a resume token for this device (contract section 20):
// the same session, bound to the request's responder cookie (set when it
// has none), with the partial's answers and page.
func handleResume(svc responding.Service) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		token, _ := form.String("token", api.Str{Required: true, NoTrim: true})
		if err := form.Err(); err != nil {
			return err
		}
		res, err := svc.Resume(r.Context(), r.PathValue("url_slug"), token, responding.EnsureResponder(w, r))
		if err != nil {
			return err
		}
		answers := make(map[string]json.RawMessage, len(res.Answers))
		for id, a := range res.Answers {
			answers[strconv.FormatInt(id, 10)] = a
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, resumedView{
			sessionView: sessionView{
				Session: res.Token, StartedAt: res.StartedAt.Format(survey.TimestampLayout), Values: valuesJSON(res.Link),
				ChoiceOrders: res.ChoiceOrders, Language: res.Language,
			},
			Answers: answers, Page: res.Page,
		})
		return nil
	})
}
