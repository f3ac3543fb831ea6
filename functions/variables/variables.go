package variables

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

func surveyID(r *http.Request) (aid, sid int64, err error) {
	acct, sid, err := api.AccountAndID(r, "survey_id")
	return acct.ID, sid, err
}

func (h handlers) list() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		_, vars, _, err := h.st.SurveyVariables(r.Context(), aid, sid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, vars)
		return nil
	})
}

// readVariable validates one variable object; taken holds the names of the
// survey and of the request's earlier items.
func readVariable(obj map[string]json.RawMessage, taken map[string]bool) (survey.Variable, survey.Fields) {
	f := api.NewForm(obj)
	v := survey.Variable{Type: survey.VariableString, VariableSource: survey.SourceQueryString}
	if name, ok := f.String("name", api.Str{Required: true, Max: survey.MaxVariableName}); ok {
		switch {
		case !survey.ValidVariableName(name):
			f.Fail("name", survey.MsgVariableNameRule)
		case name == survey.ReservedUniqueKey:
			f.Fail("name", fmt.Sprintf("%q is reserved for one-use links.", survey.ReservedUniqueKey))
		case taken[name]:
			f.Fail("name", "A variable with this name already exists in this survey.")
		default:
			v.Name = name
		}
	}
	if src, ok := f.Int("variable_source", api.Int{Required: true}); ok {
		if src != survey.SourceQueryString && src != survey.SourceLinks {
			f.Fail("variable_source", fmt.Sprintf("%q is not a valid choice.", strconv.FormatInt(src, 10)))
		} else {
			v.VariableSource = src
		}
	}
	if t, ok := f.Int("type", api.Int{}); ok {
		if t != survey.VariableString && t != survey.VariableInteger {
			f.Fail("type", fmt.Sprintf("%q is not a valid choice.", strconv.FormatInt(t, 10)))
		} else {
			v.Type = t
		}
	}
	if err := f.Err(); err != nil {
		return v, err.(*survey.Error).Fields
	}
	return v, nil
}

// wrapperKey is the key of the body {"variables": [...]}, as Porsline's
// clients send it (contract section 21).
const wrapperKey = "variables"

// unwrap is the list a body {"variables": [...]} wraps, and whether the
// body is such a wrapper: an object with a "variables" key (no variable
// has that field, so a single variable's object never is one). A
// "variables" that is not a list answers 400 on it, as DRF's list field.
func unwrap(raw json.RawMessage) (json.RawMessage, bool, error) {
	if api.JSONKind(raw) != "dict" {
		return raw, false, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return raw, false, nil
	}
	inner, ok := obj[wrapperKey]
	if !ok {
		return raw, false, nil
	}
	if kind := api.JSONKind(inner); kind != "list" {
		return nil, true, &survey.Error{Code: survey.EINVALID, Fields: survey.Fields{wrapperKey: map[string]any{
			"non_field_errors": []string{survey.MsgNotAList(kind)}}}}
	}
	return inner, true, nil
}

// create adds one variable (an object) or several (an array, or an array
// wrapped in {"variables": ...}: all or nothing; errors come back as a list
// aligned with the items, {} for the valid ones, under "variables" for the
// wrapper). 201 answers the list of the variables created, in the wrapper
// when the request used it.
func (h handlers) create() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		raw, err := api.ReadJSON(r, api.MaxBody)
		if err != nil {
			return err
		}
		raw, wrapped, err := unwrap(raw)
		if err != nil {
			return err
		}
		var objects []json.RawMessage
		many := api.JSONKind(raw) == "list"
		switch {
		case raw == nil:
			objects = []json.RawMessage{json.RawMessage(`{}`)}
		case many:
			if err := json.Unmarshal(raw, &objects); err != nil {
				return survey.Errorf(survey.EINVALID, "JSON parse error - %v", err)
			}
		case api.JSONKind(raw) == "dict":
			objects = []json.RawMessage{raw}
		default:
			return api.NotADict(api.JSONKind(raw))
		}
		// A survey holds at most MaxVariables: a longer array can never be
		// created, and its per-item errors (a 1 MiB body of {} made 29 MB
		// of them) would not fit an answer.
		if len(objects) > survey.MaxVariables {
			msg := fmt.Sprintf("Ensure this field has no more than %d elements.", survey.MaxVariables)
			if wrapped {
				return &survey.Error{Code: survey.EINVALID, Fields: survey.Fields{wrapperKey: map[string]any{"non_field_errors": []string{msg}}}}
			}
			return survey.FieldError("non_field_errors", msg)
		}
		// Validate the shapes before any read: a bad body is 400 whoever
		// owns the survey.
		errs, bad := validate(objects, map[string]bool{})
		if bad {
			return answerErrors(w, r, errs, many, wrapped)
		}
		// Checked against the variables as they are; when another
		// request's write lands first, the store reads them and checks
		// again (contract section 3, "Contention").
		var itemErrs []map[string]any
		created, err := h.st.AddVariables(r.Context(), aid, sid, func(sv survey.Survey, existing []survey.Variable) ([]survey.Variable, error) {
			if sv.Deleted {
				return nil, survey.Errorf(survey.ECONFLICT, "Survey is deleted.")
			}
			taken := make(map[string]bool, len(existing))
			for _, v := range existing {
				taken[v.Name] = true
			}
			if errs, bad := validate(objects, taken); bad {
				itemErrs = errs
				return nil, errItems
			}
			add := make([]survey.Variable, len(objects))
			for i, o := range objects {
				var obj map[string]json.RawMessage
				_ = json.Unmarshal(o, &obj)
				add[i], _ = readVariable(obj, nil)
			}
			if len(existing)+len(add) > survey.MaxVariables {
				return nil, survey.FieldError("non_field_errors", fmt.Sprintf("A survey holds at most %d variables.", survey.MaxVariables))
			}
			return add, nil
		})
		if errors.Is(err, errItems) {
			return answerErrors(w, r, itemErrs, many, wrapped)
		}
		if err != nil {
			return err
		}
		if created == nil {
			created = []survey.Variable{}
		}
		if wrapped {
			api.Respond(w, r, http.StatusCreated, map[string][]survey.Variable{wrapperKey: created})
			return nil
		}
		api.Respond(w, r, http.StatusCreated, created)
		return nil
	})
}

// errItems marks a body whose items' errors are answered (answerErrors).
var errItems = errors.New("variables: invalid items")

// validate checks every object; taken grows with each valid name, so that
// a name repeated within the request is refused too.
func validate(objects []json.RawMessage, taken map[string]bool) ([]map[string]any, bool) {
	out := make([]map[string]any, len(objects))
	bad := false
	for i, o := range objects {
		if kind := api.JSONKind(o); kind != "dict" {
			out[i] = map[string]any{"non_field_errors": []string{survey.MsgNotADict(kind)}}
			bad = true
			continue
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(o, &obj)
		v, fields := readVariable(obj, taken)
		if fields != nil {
			out[i] = fields
			bad = true
			continue
		}
		out[i] = map[string]any{}
		taken[v.Name] = true
	}
	return out, bad
}

// answerErrors answers 400: the item's errors for an object body, the list
// aligned with the items for an array, that list under "variables" for the
// wrapper.
func answerErrors(w http.ResponseWriter, r *http.Request, errs []map[string]any, many, wrapped bool) error {
	if wrapped {
		items := make([]any, len(errs))
		for i, e := range errs {
			items[i] = e
		}
		return &survey.Error{Code: survey.EINVALID, Fields: survey.Fields{wrapperKey: items}}
	}
	if !many {
		return &survey.Error{Code: survey.EINVALID, Fields: errs[0]}
	}
	api.RespondErrorList(w, r, errs)
	return nil
}

func (h handlers) delete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		vid, ok := api.PathID(r, "variable_id")
		if !ok {
			return survey.ErrNotFound
		}
		if err := h.st.DeleteVariable(r.Context(), aid, sid, vid); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
