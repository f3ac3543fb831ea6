package variables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// Limits of a personalised links request.
const maxLinks = 5000

// DecodeValues validates the values of a personalised links request
// against the survey's variables: 1 to 5000 objects, each key a variable
// of the survey or is_unique (a boolean), each value a string, number or
// boolean, an integer for a type 2 variable. Errors point at the item:
// {"values": {"3": {"city": ["Unknown variable."]}}}.
func DecodeValues(raw json.RawMessage, present bool, vars []survey.Variable) ([]links.Payload, error) {
	if !present {
		return nil, survey.FieldError("values", api.MsgRequired)
	}
	kind := api.JSONKind(raw)
	if kind == "NoneType" {
		return nil, survey.FieldError("values", api.MsgNull)
	}
	// One decoding pass over the whole list (this is the hot path: 5,000
	// items a request), numbers kept as their text.
	var items []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if kind != "list" || dec.Decode(&items) != nil {
		return nil, survey.FieldError("values", fmt.Sprintf("Expected a list of items but got type %q.", kind))
	}
	switch {
	case len(items) == 0:
		return nil, survey.FieldError("values", "This list may not be empty.")
	case len(items) > maxLinks:
		return nil, survey.FieldError("values", fmt.Sprintf("Ensure this field has no more than %d elements.", maxLinks))
	}
	types := make(map[string]int64, len(vars))
	for _, v := range vars {
		types[v.Name] = v.Type
	}
	payloads := make([]links.Payload, len(items))
	errs := map[string]any{}
	for i, item := range items {
		p, fields := links.DecodeItem(item, types, true)
		if fields != nil {
			errs[strconv.Itoa(i)] = fields
			continue
		}
		payloads[i] = p
	}
	if len(errs) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"values": errs}}
	}
	return payloads, nil
}

// hashes seals one personalised link per values object, in request order:
// {"urls": ["{survey_url}/s/{slug}/?qs=TOKEN", ...]}. One read of the
// survey and its variables, at most one KMS call (none while the
// container's data key is fresh), then only local AES-GCM.
func (h handlers) hashes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		aid, sid, ok := surveyID(w, r)
		if !ok {
			return
		}
		body, err := api.ReadBody(r, api.MaxBulkBody)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		sv, vars, _, err := h.st.SurveyVariables(r.Context(), aid, sid)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		// The fast path parses (and so validates) the common body in one
		// pass; anything else is checked and worded by the general path.
		payloads, fast := fastValues(body, vars)
		if !fast {
			raw, err := api.ParseJSON(body)
			if err != nil {
				api.Error(w, r, err)
				return
			}
			if raw == nil {
				raw = json.RawMessage(`{}`)
			}
			if kind := api.JSONKind(raw); kind != "dict" {
				api.Error(w, r, api.NotADict(kind))
				return
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(raw, &body); err != nil {
				api.Error(w, r, err)
				return
			}
			values, present := body["values"]
			if payloads, err = DecodeValues(values, present, vars); err != nil {
				api.Error(w, r, err)
				return
			}
		}
		if sv.Deleted {
			api.Error(w, r, survey.Errorf(survey.ECONFLICT, "Survey is deleted."))
			return
		}
		tokens, err := h.sealer.Seal(r.Context(), sid, payloads)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		base := strings.TrimRight(h.cfg.SurveyURL, "/") + "/s/" + url.PathEscape(sv.URLSlug) + "/?qs="
		api.Respond(w, r, http.StatusOK, urlsJSON(base, tokens))
	})
}
