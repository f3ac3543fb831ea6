package elements

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// answerFieldNames are the fields of contract section 10, in the order
// their errors are checked.
var answerFieldNames = []string{
	"choices", "allow_multiple_select", "min_selectable_choices", "max_selectable_choices", "correct_choice",
	"rows", "columns", "scale_min", "scale_max", "left_label", "right_label", "rating_max", "steps", "icon_type",
	"max_length", "max_file_size_mb", "allowed_file_types",
}

// answerFields are the section-10 fields of a request body, each read and
// checked for its own format before anything is read from the store; apply
// sets them on the element once its type (and, on PATCH, its current
// choices) are known.
type answerFields struct {
	sent          map[string]bool
	choices       []survey.ChoiceItem
	rows, columns []survey.NamedItem
	correct       *int64 // nil with sent["correct_choice"]: null
	allowMultiple bool
	min, max      int64
	scaleMin      int64
	scaleMax      int64
	ratingMax     int64
	steps         int64
	iconType      int64
	maxLength     int64
	left, right   *string
	maxFileSizeMB int64
	fileTypes     []string
}

// readAnswerFields reads the section-10 fields of the body. On create the
// items' ids are ignored (as DRF ignores a read-only field): there is no
// choice yet whose id an item could keep.
func readAnswerFields(f *api.Form, create bool) answerFields {
	a := answerFields{sent: map[string]bool{}}
	mark := func(name string, ok bool) bool {
		if ok {
			a.sent[name] = true
		}
		return ok
	}
	if items, ok := readChoices(f, create); mark("choices", ok) {
		a.choices = items
	}
	if v, ok := f.Bool("allow_multiple_select", false); mark("allow_multiple_select", ok) {
		a.allowMultiple = v
	}
	selectable := api.Int{Min: api.Bound(0), Max: api.Bound(survey.MaxChoices)}
	if v, ok := f.Int("min_selectable_choices", selectable); mark("min_selectable_choices", ok) {
		a.min = v
	}
	if v, ok := f.Int("max_selectable_choices", selectable); mark("max_selectable_choices", ok) {
		a.max = v
	}
	if v, ok := readCorrectChoice(f); mark("correct_choice", ok) {
		a.correct = v
	}
	if items, ok := readNamed(f, "rows", create); mark("rows", ok) {
		a.rows = items
	}
	if items, ok := readNamed(f, "columns", create); mark("columns", ok) {
		a.columns = items
	}
	bounded := func(name string, lo, hi int64, dst *int64) {
		if v, ok := f.Int(name, api.Int{Min: api.Bound(lo), Max: api.Bound(hi)}); mark(name, ok) {
			*dst = v
		}
	}
	bounded("scale_min", 0, survey.MaxScaleMin, &a.scaleMin)
	bounded("scale_max", survey.MinScaleMax, survey.MaxScaleMax, &a.scaleMax)
	bounded("rating_max", survey.MinRatingMax, survey.MaxRatingMax, &a.ratingMax)
	// steps is rating_max under the name Porsline's clients send (contract
	// section 21); both at once must agree.
	bounded("steps", survey.MinRatingMax, survey.MaxRatingMax, &a.steps)
	if a.sent["steps"] && a.sent["rating_max"] && a.steps != a.ratingMax {
		f.Fail("steps", "Must equal rating_max when both are sent.")
	}
	bounded("icon_type", survey.IconStar, survey.IconNumber, &a.iconType)
	bounded("max_length", survey.MinMaxLength, survey.MaxMaxLength, &a.maxLength)
	bounded("max_file_size_mb", survey.MinFileSizeMB, survey.MaxFileSizeMB, &a.maxFileSizeMB)
	if types, ok := readFileTypes(f); mark("allowed_file_types", ok) {
		a.fileTypes = types
	}
	if v, ok := nullableString(f, "left_label", survey.MaxScaleLabel); mark("left_label", ok) {
		a.left = v
	}
	if v, ok := nullableString(f, "right_label", survey.MaxScaleLabel); mark("right_label", ok) {
		a.right = v
	}
	return a
}

// apply sets the fields read on e (whose type is final), recording in f
// a field the type does not take, an item id that is not one of e's, and
// the rules that tie the fields together (survey.Element.Validate).
//
// A field the type does not take is refused unless it carries the value a
// read of the element shows (its default: [], null, 10...): so a client
// may send back an element as it read it, as settings accept a gated field
// sent with its current value (contract section 7).
func (a answerFields) apply(f *api.Form, e *survey.Element) {
	if !e.Type.Valid() {
		return // the type's own error is recorded
	}
	take := map[string]bool{}
	for _, name := range answerFieldNames {
		switch {
		case !a.sent[name]:
		case !e.Type.Takes(name):
			if !a.unchanged(name, e) {
				f.Fail(name, survey.MsgFieldNotTaken(e.Type))
			}
		case name == "allowed_file_types" && len(a.fileTypes) == 0:
			f.Fail(name, "This list may not be empty.")
		case a.emptyList(name):
			f.FailNested(name, map[string]any{"non_field_errors": []string{"This list may not be empty."}})
		default:
			take[name] = true
		}
	}
	if f.Err() != nil {
		return
	}
	if take["choices"] {
		f.Merge(e.ReplaceChoices(a.choices))
	}
	if take["rows"] {
		f.Merge(e.ReplaceNamed("rows", a.rows))
	}
	if take["columns"] {
		f.Merge(e.ReplaceNamed("columns", a.columns))
	}
	set := func(name string, v int64, dst *int64) {
		if take[name] {
			*dst = v
		}
	}
	if take["allow_multiple_select"] {
		e.AllowMultipleSelect = a.allowMultiple
	}
	set("min_selectable_choices", a.min, &e.MinSelectableChoices)
	set("max_selectable_choices", a.max, &e.MaxSelectableChoices)
	if take["correct_choice"] {
		e.CorrectChoice = a.correct
	}
	set("scale_min", a.scaleMin, &e.ScaleMin)
	set("scale_max", a.scaleMax, &e.ScaleMax)
	set("rating_max", a.ratingMax, &e.RatingMax)
	set("steps", a.steps, &e.RatingMax)
	set("icon_type", a.iconType, &e.IconType)
	set("max_length", a.maxLength, &e.MaxLength)
	set("max_file_size_mb", a.maxFileSizeMB, &e.MaxFileSizeMB)
	if take["allowed_file_types"] {
		e.AllowedFileTypes = a.fileTypes
	}
	if take["left_label"] {
		e.LeftLabel = a.left
	}
	if take["right_label"] {
		e.RightLabel = a.right
	}
	if f.Err() != nil {
		return
	}
	f.Merge(e.Validate())
}

// emptyList reports whether name is a list field sent as []: valid only
// as the echo of a type that does not take it.
func (a answerFields) emptyList(name string) bool {
	switch name {
	case "choices":
		return len(a.choices) == 0
	case "rows":
		return len(a.rows) == 0
	case "columns":
		return len(a.columns) == 0
	}
	return false
}

// unchanged reports whether the body's value of name is e's own, as a read
// shows it.
func (a answerFields) unchanged(name string, e *survey.Element) bool {
	switch name {
	case "choices":
		return len(a.choices) == 0 && len(e.Choices) == 0
	case "rows":
		return len(a.rows) == 0 && len(e.Rows) == 0
	case "columns":
		return len(a.columns) == 0 && len(e.Columns) == 0
	case "allow_multiple_select":
		return a.allowMultiple == e.AllowMultipleSelect
	case "min_selectable_choices":
		return a.min == e.MinSelectableChoices
	case "max_selectable_choices":
		return a.max == e.MaxSelectableChoices
	case "correct_choice":
		return equalPtr(a.correct, e.CorrectChoice)
	case "scale_min":
		return a.scaleMin == e.ScaleMin
	case "scale_max":
		return a.scaleMax == e.ScaleMax
	case "rating_max":
		return a.ratingMax == e.RatingMax
	case "steps":
		return a.steps == e.RatingMax
	case "icon_type":
		return a.iconType == e.IconType
	case "max_length":
		return a.maxLength == e.MaxLength
	case "max_file_size_mb", "allowed_file_types":
		maxMB, types := e.FileRules()
		if name == "max_file_size_mb" {
			return a.maxFileSizeMB == maxMB
		}
		return slices.Equal(a.fileTypes, types)
	case "left_label":
		return equalPtr(a.left, e.LeftLabel)
	case "right_label":
		return equalPtr(a.right, e.RightLabel)
	}
	return false
}

// readFileTypes reads allowed_file_types: a list of 1 to
// survey.MaxFileTypes extensions, each 1-10 characters of [A-Za-z0-9]
// (a leading dot is taken off), stored lower case and once each.
func readFileTypes(f *api.Form) ([]string, bool) {
	const name = "allowed_file_types"
	raw, present := f.Raw(name)
	if !present {
		return nil, false
	}
	if f.IsNull(name) {
		f.Fail(name, api.MsgNull)
		return nil, false
	}
	var items []json.RawMessage
	if kind := api.JSONKind(raw); kind != "list" || json.Unmarshal(raw, &items) != nil {
		f.Fail(name, survey.MsgNotAList(kind))
		return nil, false
	}
	if len(items) > survey.MaxFileTypes {
		f.Fail(name, fmt.Sprintf("Ensure this field has no more than %d elements.", survey.MaxFileTypes))
		return nil, false
	}
	out := make([]string, 0, len(items))
	errs := map[string]any{}
	for i, it := range items {
		var s string
		if api.JSONKind(it) != "str" || json.Unmarshal(it, &s) != nil {
			errs[strconv.Itoa(i)] = []string{api.MsgNotString}
			continue
		}
		s = strings.ToLower(strings.TrimSpace(s))
		if !survey.ValidFileType(s) {
			errs[strconv.Itoa(i)] = []string{fmt.Sprintf("Enter an extension of 1 to %d letters or digits.", survey.MaxFileTypeLen)}
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(errs) > 0 {
		f.FailNested(name, errs)
		return nil, false
	}
	return out, true
}

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// readCorrectChoice reads correct_choice: a choice id, null, or the choice
// object a read shows (its id counts), so that an element read and sent
// back keeps its answer key.
func readCorrectChoice(f *api.Form) (*int64, bool) {
	const name = "correct_choice"
	raw, present := f.Raw(name)
	switch {
	case !present:
		return nil, false
	case f.IsNull(name):
		return nil, true
	case api.JSONKind(raw) == "dict":
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj) // a dict: the body was parsed already
		g := api.NewForm(obj)
		id, ok := g.PK("id", true)
		if !ok {
			f.FailNested(name, g.Fields())
			return nil, false
		}
		return &id, true
	}
	id, ok := f.PK(name, false)
	return &id, ok
}

// readChoices reads `choices`: 1-200 objects {"id"?, "name", "alt_name",
// "image_url"}.
func readChoices(f *api.Form, create bool) ([]survey.ChoiceItem, bool) {
	var out []survey.ChoiceItem
	ok := readList(f, "choices", survey.MaxChoices, func(g *api.Form) {
		c := survey.ChoiceItem{ID: readItemID(g, create)}
		if v, ok := g.String("name", api.Str{Required: true, Max: survey.MaxChoiceName}); ok {
			c.Name = v
		}
		if v, ok := nullableString(g, "alt_name", survey.MaxChoiceAltName); ok {
			c.AltName = v
		}
		if v, ok := nullableString(g, "image_url", survey.MaxChoiceImageURL); ok {
			if v != nil && !survey.ValidHTTPURL(*v) {
				g.Fail("image_url", "Enter a valid URL.")
			}
			c.ImageURL = v
		}
		out = append(out, c)
	})
	return out, ok
}

// readNamed reads a matrix's `rows` or `columns`: 1-50 objects {"id"?,
// "name"}.
func readNamed(f *api.Form, name string, create bool) ([]survey.NamedItem, bool) {
	var out []survey.NamedItem
	ok := readList(f, name, survey.MaxMatrixItems, func(g *api.Form) {
		it := survey.NamedItem{ID: readItemID(g, create)}
		if v, ok := g.String("name", api.Str{Required: true, Max: survey.MaxMatrixItemName}); ok {
			it.Name = v
		}
		out = append(out, it)
	})
	return out, ok
}

// readItemID reads an item's id on PATCH: absent or null is a new item.
func readItemID(g *api.Form, create bool) int64 {
	if create || g.IsNull("id") {
		return 0
	}
	id, _ := g.PK("id", false)
	return id
}

// readList reads a list of at most max objects under name, each by item on
// a form of its own, answering DRF's list-serializer shapes: a wrong type
// or a too long list under non_field_errors, the items' errors as a list
// aligned with the items. It reports whether the list was valid. An empty
// list is valid here: whether it may be empty depends on the element's
// type, which apply knows.
func readList(f *api.Form, name string, max int, item func(g *api.Form)) bool {
	raw, ok := f.Raw(name)
	if !ok {
		return false
	}
	if f.IsNull(name) {
		f.Fail(name, api.MsgNull)
		return false
	}
	listError := func(msg string) bool {
		f.FailNested(name, map[string]any{"non_field_errors": []string{msg}})
		return false
	}
	var items []json.RawMessage
	if kind := api.JSONKind(raw); kind != "list" || json.Unmarshal(raw, &items) != nil {
		return listError(survey.MsgNotAList(kind))
	}
	if len(items) > max {
		return listError(fmt.Sprintf("Ensure this field has no more than %d elements.", max))
	}
	errs := make([]any, len(items))
	bad := false
	for i, raw := range items {
		var obj map[string]json.RawMessage
		if kind := api.JSONKind(raw); kind != "dict" || json.Unmarshal(raw, &obj) != nil {
			errs[i] = map[string]any{"non_field_errors": []string{survey.MsgNotADict(kind)}}
			bad = true
			continue
		}
		g := api.NewForm(obj)
		item(g)
		if fe := g.Fields(); len(fe) > 0 {
			errs[i], bad = map[string]any(fe), true
		} else {
			errs[i] = map[string]any{}
		}
	}
	if bad {
		f.FailList(name, errs)
	}
	return !bad
}

// nullableString reads a string of at most max characters that may be
// null; "" is null too. ok is whether the field was present and valid.
func nullableString(f *api.Form, name string, max int) (*string, bool) {
	if f.IsNull(name) {
		return nil, true
	}
	v, ok := f.String(name, api.Str{Max: max, AllowBlank: true})
	if !ok {
		return nil, false
	}
	if v == "" {
		return nil, true
	}
	return &v, true
}
