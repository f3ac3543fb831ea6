package variables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// Limits of a personalised links request.
const (
	maxLinks       = 5000
	maxValueChars  = 500
	maxNumberChars = 400
)

const (
	msgUnknownVariable = "Unknown variable."
	msgScalar          = "Values must be strings, numbers or booleans."
)

// DecodeValues validates the values of a personalised links request
// against the survey's variables: 1 to 5000 objects, each key a variable
// of the survey or is_unique (a boolean), each value a string, number or
// boolean, an integer for a type 2 variable. Errors point at the item:
// {"values": {"3": {"city": ["Unknown variable."]}}}.
func DecodeValues(raw json.RawMessage, present bool, vars []survey.Variable) ([]links.Payload, error) {
	return decodeValues(raw, present, vars, true)
}

// decodeValues is DecodeValues; with known false it checks only what needs
// no variables (the shape of the list and its items, is_unique), as the
// pass before the survey is read does.
func decodeValues(raw json.RawMessage, present bool, vars []survey.Variable, known bool) ([]links.Payload, error) {
	if !present {
		return nil, survey.FieldError("values", api.MsgRequired)
	}
	if api.JSONKind(raw) == "NoneType" {
		return nil, survey.FieldError("values", api.MsgNull)
	}
	var items []json.RawMessage
	if api.JSONKind(raw) != "list" || json.Unmarshal(raw, &items) != nil {
		return nil, survey.FieldError("values", fmt.Sprintf("Expected a list of items but got type %q.", api.JSONKind(raw)))
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
		p, fields := decodeItem(item, types, known)
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

func decodeItem(item json.RawMessage, types map[string]int64, known bool) (links.Payload, map[string]any) {
	if kind := api.JSONKind(item); kind != "dict" {
		return links.Payload{}, map[string]any{"non_field_errors": []string{"Invalid data. Expected a dictionary, but got " + kind + "."}}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(item, &obj); err != nil {
		return links.Payload{}, map[string]any{"non_field_errors": []string{"Invalid data."}}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	errs := survey.Fields{}
	var p links.Payload
	for _, name := range names {
		raw := bytes.TrimSpace(obj[name])
		if name == survey.ReservedUniqueKey {
			if err := json.Unmarshal(raw, &p.Unique); err != nil || api.JSONKind(raw) != "bool" {
				errs.Add(name, api.MsgNotBool)
			}
			continue
		}
		t, ok := types[name]
		if !known {
			continue // the pass before the survey is read
		}
		if !ok {
			errs.Add(name, msgUnknownVariable)
			continue
		}
		v, msg := decodeValue(name, raw, t)
		if msg != "" {
			errs.Add(name, msg)
			continue
		}
		p.Values = append(p.Values, v)
	}
	if len(errs) > 0 {
		return links.Payload{}, errs
	}
	if p.Values == nil {
		p.Values = []links.Value{}
	}
	return p, nil
}

// decodeValue reads one value for a variable of type t.
func decodeValue(name string, raw json.RawMessage, t int64) (links.Value, string) {
	v := links.Value{Name: name}
	switch api.JSONKind(raw) {
	case "str":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return v, api.MsgNotString
		}
		if t == survey.VariableInteger {
			return v, api.MsgNotInteger
		}
		if utf8.RuneCountInString(s) > maxValueChars {
			return v, fmt.Sprintf("Ensure this field has no more than %d characters.", maxValueChars)
		}
		v.Kind, v.Str = links.KindString, s
	case "bool":
		if t == survey.VariableInteger {
			return v, api.MsgNotInteger
		}
		v.Kind = links.KindFalse
		if string(raw) == "true" {
			v.Kind = links.KindTrue
		}
	case "int", "float":
		n := json.Number(raw)
		if i, err := n.Int64(); err == nil {
			v.Kind, v.Int = links.KindInt, i
			return v, ""
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || len(raw) > maxNumberChars {
			return v, "A valid number is required."
		}
		if t == survey.VariableInteger {
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return v, api.MsgNotInteger
			}
			v.Kind, v.Int = links.KindInt, int64(f)
			return v, ""
		}
		v.Kind, v.Str = links.KindNumber, string(raw)
	default:
		return v, msgScalar
	}
	return v, ""
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
		body, err := api.DecodeObject(r, api.MaxBulkBody)
		if err != nil {
			api.Error(w, r, err)
			return
		}
		raw, present := body["values"]
		_, shapeErr := decodeValues(raw, present, nil, false)
		sv, vars, _, err := h.st.SurveyVariables(r.Context(), aid, sid)
		if err != nil {
			if shapeErr != nil {
				err = shapeErr // a bad body is 400 whoever owns the survey
			}
			api.Error(w, r, err)
			return
		}
		payloads, err := DecodeValues(raw, present, vars)
		if err != nil {
			api.Error(w, r, err)
			return
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
		urls := make([]string, len(tokens))
		for i, t := range tokens {
			urls[i] = base + t
		}
		api.Respond(w, r, http.StatusOK, map[string][]string{"urls": urls})
	})
}
