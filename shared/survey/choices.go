package survey

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
