package survey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
)

// IDMap maps the old ids of a copied survey to the new ones.
//
// Copies of surveys (contract section 17): a template start and a copy
// give every element, choice, row, column and variable a new id, and
// every reference to an old id is remapped to the new one. The element
// documents are remapped as JSON, not through Element, so that fields this
// package does not know (the conditions of section 15 among them) are
// copied as they are.
type IDMap struct {
	Elements map[int64]int64 // element ids
	Items    map[int64]int64 // choice, row and column ids
}

// CopyName is the default name of a copy: the name followed by " (copy)",
// cut to MaxSurveyName code points.
func CopyName(name string) string {
	r := []rune(name + " (copy)")
	if len(r) > MaxSurveyName {
		r = r[:MaxSurveyName]
	}
	return string(r)
}

// TruncateName cuts a name to MaxSurveyName code points: a template's
// title names the survey started from it.
func TruncateName(name string) string {
	if r := []rune(name); len(r) > MaxSurveyName {
		return string(r[:MaxSurveyName])
	}
	return name
}

// ItemIDs lists the ids of the choices, rows and columns of an element
// document, in order.
func ItemIDs(doc []byte) ([]int64, error) {
	var e struct {
		Choices []struct {
			ID int64 `json:"id"`
		} `json:"choices"`
		Rows    []struct{ ID int64 } `json:"rows"`
		Columns []struct{ ID int64 } `json:"columns"`
	}
	if err := json.Unmarshal(doc, &e); err != nil {
		return nil, fmt.Errorf("survey: element items: %w", err)
	}
	var ids []int64
	for _, c := range e.Choices {
		ids = append(ids, c.ID)
	}
	for _, r := range e.Rows {
		ids = append(ids, r.ID)
	}
	for _, c := range e.Columns {
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// RemapElement returns an element document with its id, its choices',
// rows' and columns' ids, its correct_choice and its conditions remapped
// by m; matrixes tells which old element ids are matrixes (whose rules
// name a column id in second_operand.value). An id that m does not hold
// (a dangling reference) is kept as it is. Every other field is copied
// byte for byte.
func RemapElement(doc []byte, m IDMap, matrixes map[int64]bool) ([]byte, error) {
	var e map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("survey: remap element: %w", err)
	}
	var err error
	set := func(key string, f func(any) any) {
		raw, ok := e[key]
		if !ok || err != nil {
			return
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err = d.Decode(&v); err != nil {
			return
		}
		e[key], err = json.Marshal(f(v))
	}
	set("id", func(v any) any { return remapID(v, m.Elements) })
	for _, key := range []string{"choices", "rows", "columns"} {
		set(key, func(v any) any {
			list, _ := v.([]any)
			for _, it := range list {
				if obj, ok := it.(map[string]any); ok {
					obj["id"] = remapID(obj["id"], m.Items)
				}
			}
			return v
		})
	}
	set("correct_choice", func(v any) any { return remapID(v, m.Items) })
	set("conditions", func(v any) any {
		list, _ := v.([]any)
		for _, it := range list {
			if rule, ok := it.(map[string]any); ok {
				remapRule(rule, m, matrixes)
			}
		}
		return v
	})
	// The first rule's parts, where a document holds them beside the list.
	set("second_operand", func(v any) any {
		if op, ok := v.(map[string]any); ok {
			op["id"] = remapID(op["id"], m.Items)
		}
		return v
	})
	if err != nil {
		return nil, fmt.Errorf("survey: remap element: %w", err)
	}
	return json.Marshal(e)
}

// remapRule remaps one display rule: its first operand (an element), its
// second operand's id (a choice, row or column) and, when the first operand
// is a matrix, the column id its value holds as a decimal string.
func remapRule(rule map[string]any, m IDMap, matrixes map[int64]bool) {
	first := rule["first_operand"]
	matrix := false
	if n, ok := first.(json.Number); ok {
		if id, err := n.Int64(); err == nil {
			matrix = matrixes[id]
		}
	}
	rule["first_operand"] = remapID(first, m.Elements)
	op, ok := rule["second_operand"].(map[string]any)
	if !ok {
		return
	}
	op["id"] = remapID(op["id"], m.Items)
	if s, ok := op["value"].(string); ok && matrix {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			if to, ok := m.Items[id]; ok {
				op["value"] = strconv.FormatInt(to, 10)
			}
		}
	}
}

func remapID(v any, m map[int64]int64) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	id, err := n.Int64()
	if err != nil {
		return v
	}
	if to, ok := m[id]; ok {
		return json.Number(strconv.FormatInt(to, 10))
	}
	return v
}

// Remap returns the layout with every element id mapped by m, version 0.
func (l Layout) Remap(m map[int64]int64) Layout {
	ids := func(in []int64) []int64 {
		out := make([]int64, len(in))
		for i, id := range in {
			out[i] = mapped(id, m)
		}
		return out
	}
	out := Layout{Welcome: ids(l.Welcome), Questions: ids(l.Questions), Appreciations: ids(l.Appreciations),
		Groups: ids(l.Groups), Members: make(map[int64]int64, len(l.Members))}
	for q, g := range l.Members {
		out.Members[mapped(q, m)] = mapped(g, m)
	}
	if l.Sizes != nil {
		out.Sizes = make(map[int64]int64, len(l.Sizes))
		for id, n := range l.Sizes {
			out.Sizes[mapped(id, m)] = n
		}
	}
	return out
}

func mapped(id int64, m map[int64]int64) int64 {
	if to, ok := m[id]; ok {
		return to
	}
	return id
}

// DroppedSettings lists, sorted, the plan-gated settings that s holds at a
// value other than their default and that plan does not include: a copy
// for an account on that plan starts them at their defaults.
func DroppedSettings(plan Plan, s Settings) []string {
	cur, def := settingsMap(s), settingsMap(Settings{})
	out := []string{}
	for field, need := range PlanNeeded {
		if plan.Includes(need) {
			continue
		}
		if !reflect.DeepEqual(emptyIsNull(cur[field]), emptyIsNull(def[field])) {
			out = append(out, field)
		}
	}
	sort.Strings(out)
	return out
}

func settingsMap(s Settings) map[string]any {
	m := map[string]any{}
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &m)
	return m
}

// emptyIsNull makes null and [] the same list (service_auth_domains).
func emptyIsNull(v any) any {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil
	}
	return v
}
