package survey

import "slices"

// ChoiceItem is one choice of a multiple choice, picture choice, ranking or
// dropdown element (contract section 10). Its id is unique in the survey
// and kept across edits; Order is its 1-based place in the element's list.
type ChoiceItem struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	AltName  *string `json:"alt_name"`
	ImageURL *string `json:"image_url"`
	Order    int     `json:"order"`
}

// NamedItem is one row or column of a matrix element; its id is unique in
// the survey, as a choice's is.
type NamedItem struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Choice returns the element's choice with the id.
func (e Element) Choice(id int64) (ChoiceItem, bool) {
	for _, c := range e.Choices {
		if c.ID == id {
			return c, true
		}
	}
	return ChoiceItem{}, false
}

// choiceName is the name of the choice id, or its number when the element
// has no such choice (any more).
func (e Element) choiceName(id int64) string {
	if c, ok := e.Choice(id); ok {
		return c.Name
	}
	return itoa(id)
}

// namedItem finds id among items.
func namedItem(items []NamedItem, id int64) (NamedItem, bool) {
	for _, it := range items {
		if it.ID == id {
			return it, true
		}
	}
	return NamedItem{}, false
}

// nonNil answers an empty list for nil, so that a view shows [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ReplaceChoices sets e's choices to items, as a PATCH of `choices` does:
// an item whose ID is one of e's choices keeps it, an item with ID 0 is new
// (AssignItemIDs gives it an id), ids left out are removed, and Order
// follows the list. Any other id is refused on that item's id. A
// correct_choice whose choice is removed becomes nil. It returns EINVALID
// in DRF's list shape and leaves e unchanged then.
func (e *Element) ReplaceChoices(items []ChoiceItem) error {
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	have := make(map[int64]bool, len(e.Choices))
	for _, c := range e.Choices {
		have[c.ID] = true
	}
	if err := keptIDs("choices", ids, have); err != nil {
		return err
	}
	out := make([]ChoiceItem, len(items))
	for i, it := range items {
		it.Order = i + 1
		out[i] = it
	}
	e.Choices = out
	if e.CorrectChoice != nil {
		if _, ok := e.Choice(*e.CorrectChoice); !ok {
			e.CorrectChoice = nil
		}
	}
	return nil
}

// ReplaceNamed sets a matrix's rows (field "rows") or columns ("columns")
// to items, keeping ids as ReplaceChoices does.
func (e *Element) ReplaceNamed(field string, items []NamedItem) error {
	dst := &e.Rows
	if field == "columns" {
		dst = &e.Columns
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	have := make(map[int64]bool, len(*dst))
	for _, it := range *dst {
		have[it.ID] = true
	}
	if err := keptIDs(field, ids, have); err != nil {
		return err
	}
	*dst = slices.Clone(items)
	return nil
}

// keptIDs checks the ids a replacement list carries: each 0 (new) or one
// of have, none twice.
func keptIDs(field string, ids []int64, have map[int64]bool) error {
	out := make([]any, len(ids))
	seen := make(map[int64]bool, len(ids))
	bad := false
	for i, id := range ids {
		m := map[string]any{}
		switch {
		case id == 0:
		case !have[id]:
			m["id"] = []string{InvalidPK(id)}
		case seen[id]:
			m["id"] = []string{MsgIDRepeated}
		}
		seen[id] = true
		out[i] = m
		bad = bad || len(m) > 0
	}
	if bad {
		return &Error{Code: EINVALID, Fields: map[string]any{field: out}}
	}
	return nil
}
