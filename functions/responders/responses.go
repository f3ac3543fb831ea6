package responders

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// IdempotencyHeader names the submission's idempotency key.
const IdempotencyHeader = "Idempotency-Key"

// submittedView is the 201 answer of a recorded response; with
// show_answer_sheet_to_responder, the responder's sheet and its token
// (contract section 15).
type submittedView struct {
	ID          int64  `json:"id"`
	SubmittedAt string `json:"submitted_at"`
	// EditToken is sent on a survey with edit_response_enabled (section 16).
	EditToken string `json:"edit_token,omitempty"`
	// EditedAt answers an edit.
	EditedAt   string        `json:"edited_at,omitempty"`
	Sheet      *survey.Sheet `json:"sheet,omitempty"`
	SheetToken string        `json:"sheet_token,omitempty"`
}

// idempotencyKey reads the request's Idempotency-Key: 1 to 255 visible
// ASCII characters, once.
func idempotencyKey(r *http.Request) (string, error) {
	vals := r.Header.Values(IdempotencyHeader)
	if len(vals) == 0 || vals[0] == "" {
		return "", survey.FieldError(IdempotencyHeader, "This header is required.")
	}
	if len(vals) != 1 || !responding.ValidKey(vals[0]) {
		return "", survey.FieldError(IdempotencyHeader, responding.MsgKey)
	}
	return vals[0], nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// submitRequest is a submission's body, decoded.
type submitRequest struct {
	session   string
	answers   map[string]json.RawMessage
	variables map[string]any
	location  json.RawMessage
}

// decodeSubmit reads {"session", "answers", "variables"}: the session is
// required; answers and variables are objects, {} when left out.
func decodeSubmit(data []byte) (submitRequest, error) {
	body, err := api.ParseObject(data)
	if err != nil {
		return submitRequest{}, err
	}
	form := api.NewForm(body)
	var req submitRequest
	req.session, _ = form.String("session", api.Str{Required: true, NoTrim: true})
	req.answers = map[string]json.RawMessage{}
	if raw, ok := dictField(form, "answers"); ok {
		if err := json.Unmarshal(raw, &req.answers); err != nil {
			form.Fail("answers", "Not a valid object.") // checked JSON and a dict: never in practice
		}
	}
	req.variables = map[string]any{}
	if raw, ok := dictField(form, "variables"); ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&req.variables); err != nil {
			form.Fail("variables", "Not a valid object.") // checked JSON and a dict: never in practice
		}
	}
	req.location, _ = form.Raw("location")
	return req, form.Err()
}

// dictField reads an optional object field, as DRF's DictField words its
// refusals; ok is false when it is absent or refused.
func dictField(form *api.Form, name string) (json.RawMessage, bool) {
	raw, present := form.Raw(name)
	switch {
	case !present:
		return nil, false
	case form.IsNull(name):
		form.Fail(name, api.MsgNull)
		return nil, false
	case api.JSONKind(raw) != "dict":
		form.Fail(name, survey.MsgNotAMap(api.JSONKind(raw)))
		return nil, false
	}
	return raw, true
}

// handleSubmit records one response (contract section 11) exactly once:
// one strongly consistent Query of the survey's item collection, then one
// transaction (store.Submit) that writes the response with everything it
// spends; a warm container makes no other call (the slug's survey id and
// the data key are cached, response ids leased).
//
// Refusals, in order: the Idempotency-Key and the body (400, 413, 415), an
// unknown survey (404), a session that does not open for the survey (400),
// the survey closed, stopped or trashed (410), the time to respond over
// (410), the code no longer admitting the responder (403), the answers and
// variables (400, all reported at once), and, inside the transaction, the
// survey closing, the code or the link spent by a racing response (410,
// 403, 410). A refusal after the session opened first asks whether the
// key recorded a response already: a retry of a success answers that
// success, however the survey changed since.
func handleSubmit(svc responding.Service, files responding.EditFiles) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		key, err := idempotencyKey(r)
		if err != nil {
			return err
		}
		data, err := api.ReadBody(r, api.MaxBody)
		if err != nil {
			return err
		}
		req, err := decodeSubmit(data)
		if err != nil {
			return err
		}
		done, err := svc.Submit(ctx, r.PathValue("url_slug"), key, sha256Hex(data),
			responding.Request{
				Session: req.session, Answers: req.answers, Variables: req.variables, Location: req.location,
				Responder: responding.ResponderValue(r), IP: api.ClientIP(r), UserAgent: r.UserAgent(),
				Files: files,
			})
		if err != nil {
			return err
		}
		answerSubmitted(w, r, done)
		return nil
	})
}

// answerSubmitted answers 201 with the response recorded, marked when it is
// an earlier request's.
func answerSubmitted(w http.ResponseWriter, r *http.Request, done responding.Submitted) {
	if done.Preview {
		// A template survey's preview (contract section 17): nothing stored.
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusOK, map[string]bool{"preview": true})
		return
	}
	if done.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Cache-Control", "no-store")
	api.Respond(w, r, http.StatusCreated, submittedView{
		ID: done.ID, SubmittedAt: done.SubmittedAt.UTC().Format(survey.TimestampLayout), EditToken: done.EditToken,
		Sheet: done.Sheet, SheetToken: done.SheetToken,
	})
}

// filesOf is the bucket as the submission uses it; nil (no interface
// holding a nil pointer) without one.
func filesOf(b Uploads) responding.EditFiles {
	if b == nil {
		return nil
	}
	return b
}
