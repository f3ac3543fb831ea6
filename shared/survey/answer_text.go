package survey

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// AnswerText renders a canonical answer of e for people (CSV cells, the
// results table): text as is, choices by name joined by "; ", a ranking by
// name in the responder's order joined by "; ", a scale or rating as its
// number, a matrix as "row: column; row: column" in the element's row order.
// An id that no longer exists (the owner edited the element since) renders
// as its number. It reads the answer by its JSON shape rather than trusting
// the element's current type, so an answer recorded before a type change
// still renders; what it cannot read it renders as the JSON itself.
func (e Element) AnswerText(a json.RawMessage) string {
	a = bytes.TrimSpace(a)
	if len(a) == 0 || string(a) == "null" {
		return ""
	}
	switch a[0] {
	case '"':
		if s, ok := decodeString(a); ok {
			return s
		}
	case '[':
		if ids, ok := plainInts(a); ok {
			names := make([]string, len(ids))
			for i, id := range ids {
				names[i] = e.choiceName(id)
			}
			return strings.Join(names, "; ")
		}
		var items []json.RawMessage
		if json.Unmarshal(a, &items) == nil {
			names := make([]string, len(items))
			for i, it := range items {
				names[i] = e.idText(bytes.TrimSpace(it), e.choiceName)
			}
			return strings.Join(names, "; ")
		}
	case '{':
		if f, ok := DecodeFileAnswer(a); ok && e.Type == TypeFileUpload {
			return f.Cell()
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(a, &m) == nil {
			return e.matrixText(m)
		}
	default:
		if e.Type.hasChoices() {
			return e.idText(a, e.choiceName)
		}
		return string(a)
	}
	return string(a)
}

// idText names the id in raw with name; what is not an id stays as it is.
func (e Element) idText(raw []byte, name func(int64) string) string {
	if id, ok := parseAnswerInt(raw); ok {
		return name(id)
	}
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// matrixText renders "row: column; ..." in the element's row order; rows
// since removed follow, by number.
func (e Element) matrixText(m map[string]json.RawMessage) string {
	column := func(id int64) string {
		if c, ok := namedItem(e.Columns, id); ok {
			return c.Name
		}
		return itoa(id)
	}
	parts := make([]string, 0, len(m))
	done := make(map[string]bool, len(m))
	for _, r := range e.Rows {
		k := strconv.FormatInt(r.ID, 10)
		if v, ok := m[k]; ok {
			parts = append(parts, r.Name+": "+e.idText(bytes.TrimSpace(v), column))
			done[k] = true
		}
	}
	rest := make([]string, 0, len(m)-len(done))
	for k := range m {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(rest, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b) // numeric order for decimal keys
		}
		return strings.Compare(a, b)
	})
	for _, k := range rest {
		parts = append(parts, k+": "+e.idText(bytes.TrimSpace(m[k]), column))
	}
	return strings.Join(parts, "; ")
}

// hasChoices reports whether elements of type t answer with choice ids.
func (t ElementType) hasChoices() bool {
	switch t {
	case TypeMultipleChoice, TypePictureChoice, TypeRanking, TypeDropdown:
		return true
	}
	return false
}
