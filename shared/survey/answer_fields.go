package survey

import (
	"fmt"
	"slices"
)

// Limits of the answer fields (contract section 10).
const (
	MaxChoices        = 200
	MaxChoiceName     = 500
	MaxChoiceAltName  = 500
	MaxChoiceImageURL = 2000 // as image_path: the contract gives no bound of its own
	MaxMatrixItems    = 50
	MaxMatrixItemName = 500 // as a choice's name
	MaxScaleLabel     = 100
	MinScaleMax       = 2
	MaxScaleMax       = 10
	MinRatingMax      = 3
	MaxRatingMax      = 10
	MinMaxLength      = 1
	MaxMaxLength      = 5000
	MaxScaleMin       = 1 // scale_min is 0 or 1
)

// Messages of the answer fields.
const (
	MsgNameTaken     = "The names must be unique within the element."
	MsgIDRepeated    = "Each id may appear only once."
	MsgImageRequired = "This field is required." // also a link's target
)

// answerFieldTypes says which types take each answer field; every other
// field of an element is taken by every type.
var answerFieldTypes = map[string][]ElementType{
	"choices":                {TypeMultipleChoice, TypePictureChoice, TypeRanking, TypeDropdown},
	"allow_multiple_select":  {TypeMultipleChoice, TypePictureChoice},
	"min_selectable_choices": {TypeMultipleChoice, TypePictureChoice},
	"max_selectable_choices": {TypeMultipleChoice, TypePictureChoice},
	"correct_choice":         {TypeMultipleChoice, TypePictureChoice, TypeDropdown},
	"rows":                   {TypeMatrix},
	"columns":                {TypeMatrix},
	"scale_min":              {TypeOpinionScale},
	"scale_max":              {TypeOpinionScale},
	"left_label":             {TypeOpinionScale},
	"right_label":            {TypeOpinionScale},
	"rating_max":             {TypeRating},
	"steps":                  {TypeRating},
	"icon_type":              {TypeRating},
	"max_length":             {TypeText},
	"max_file_size_mb":       {TypeFileUpload},
	"allowed_file_types":     {TypeFileUpload},
}

// Takes reports whether elements of type t take the field (by its API
// name): an answer field only on the types of section 10's table, any other
// field on every type.
func (t ElementType) Takes(field string) bool {
	types, ok := answerFieldTypes[field]
	return !ok || slices.Contains(types, t)
}

// MsgFieldNotTaken is the refusal of an answer field on a type that does
// not take it.
func MsgFieldNotTaken(t ElementType) string {
	return fmt.Sprintf("This field does not apply to elements of type %d (%s).", t, t)
}

// ClearForeign resets every answer field that e's type does not take to
// its default, so that an element whose type changed keeps nothing the new
// type would not show or check.
func (e *Element) ClearForeign() {
	d := NewElement(e.Type)
	t := e.Type
	if !t.Takes("choices") {
		e.Choices = nil
	}
	if !t.Takes("allow_multiple_select") {
		e.AllowMultipleSelect, e.MinSelectableChoices, e.MaxSelectableChoices = false, 0, 0
	}
	if !t.Takes("correct_choice") {
		e.CorrectChoice = nil
	}
	if !t.Takes("rows") {
		e.Rows, e.Columns = nil, nil
	}
	if !t.Takes("scale_min") {
		e.ScaleMin, e.ScaleMax, e.LeftLabel, e.RightLabel = d.ScaleMin, d.ScaleMax, nil, nil
	}
	if !t.Takes("rating_max") {
		e.RatingMax, e.IconType = d.RatingMax, d.IconType
	}
	if !t.Takes("max_length") {
		e.MaxLength = d.MaxLength
	}
	if !t.Takes("max_file_size_mb") {
		e.MaxFileSizeMB, e.AllowedFileTypes = 0, nil
	}
}

// Validate checks the rules of section 10 that tie an element's answer
// fields together, on the element as it would be stored: names unique
// within the element's choices (rows, columns), an image on every choice of
// a picture choice element, min <= max when max > 0, max at most the number
// of choices, correct_choice one of the choices. Each item's own format
// (lengths, URLs) is the request reader's. It returns EINVALID with the
// errors of list items as DRF lists them (one object per item, {} for the
// valid ones), or nil.
func (e Element) Validate() error {
	errs := Fields{}
	// Only the rules of fields the type takes: an element stored before
	// these rules (a count set on a text element) stays editable.
	t := e.Type
	if t.Takes("choices") {
		choices := make([]namedRule, len(e.Choices))
		for i, c := range e.Choices {
			choices[i] = namedRule{name: c.Name, needImage: t == TypePictureChoice && c.ImageURL == nil}
		}
		itemErrors(errs, "choices", choices)
	}
	if t.Takes("rows") {
		itemErrors(errs, "rows", namedRules(e.Rows))
		itemErrors(errs, "columns", namedRules(e.Columns))
	}
	if t.Takes("max_selectable_choices") {
		if e.MaxSelectableChoices > 0 && e.MinSelectableChoices > e.MaxSelectableChoices {
			errs.Add("min_selectable_choices", fmt.Sprintf(
				"Ensure this value is less than or equal to max_selectable_choices (%d).", e.MaxSelectableChoices))
		}
		if n := int64(len(e.Choices)); e.MaxSelectableChoices > n {
			errs.Add("max_selectable_choices", fmt.Sprintf(
				"Ensure this value is less than or equal to the number of choices (%d).", n))
		}
	}
	if t == TypeAppreciation && e.LinkActive {
		// The button needs its target (contract section 16).
		switch {
		case e.LinkType == LinkTypeURL && e.LinkURL == nil:
			errs.Add("link_url", MsgImageRequired)
		case e.LinkType == LinkTypeSurvey && e.Link == nil:
			errs.Add("link", MsgImageRequired)
		}
	}
	if t.Takes("correct_choice") && e.CorrectChoice != nil {
		if _, ok := e.Choice(*e.CorrectChoice); !ok {
			errs.Add("correct_choice", InvalidPK(*e.CorrectChoice))
		}
	}
	return errs.Err()
}

type namedRule struct {
	name      string
	needImage bool
}

func namedRules(items []NamedItem) []namedRule {
	out := make([]namedRule, len(items))
	for i, it := range items {
		out[i] = namedRule{name: it.Name}
	}
	return out
}

// itemErrors records under field the list of item errors, when any: a
// repeated name (on its later uses) and a missing image.
func itemErrors(errs Fields, field string, items []namedRule) {
	out := make([]any, len(items))
	seen := make(map[string]bool, len(items))
	bad := false
	for i, it := range items {
		m := map[string]any{}
		if seen[it.name] {
			m["name"] = []string{MsgNameTaken}
		}
		seen[it.name] = true
		if it.needImage {
			m["image_url"] = []string{MsgImageRequired}
		}
		out[i] = m
		bad = bad || len(m) > 0
	}
	if bad {
		errs[field] = out
	}
}

// NewItemIDs counts the choices, rows and columns without an id yet: those
// a write must give new ids (see AssignItemIDs).
func (e Element) NewItemIDs() int {
	n := 0
	for _, c := range e.Choices {
		if c.ID == 0 {
			n++
		}
	}
	for _, items := range [][]NamedItem{e.Rows, e.Columns} {
		for _, it := range items {
			if it.ID == 0 {
				n++
			}
		}
	}
	return n
}

// AssignItemIDs gives each choice, row and column without an id the next
// of ids, in order; ids must hold at least NewItemIDs of them.
func (e *Element) AssignItemIDs(ids []int64) {
	next := func() int64 { id := ids[0]; ids = ids[1:]; return id }
	for i := range e.Choices {
		if e.Choices[i].ID == 0 {
			e.Choices[i].ID = next()
		}
	}
	for _, items := range [][]NamedItem{e.Rows, e.Columns} {
		for i := range items {
			if items[i].ID == 0 {
				items[i].ID = next()
			}
		}
	}
}
