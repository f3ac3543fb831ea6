package survey

import (
	"fmt"
	"slices"
)

// RuleUse is what one element's rules name of one other element: the
// element and the choice, row and column ids.
type RuleUse struct {
	Element int64   `json:"e"`
	Items   []int64 `json:"i,omitempty"`
}

// SetRules records what e's rules name (nothing, when it has none).
//
// What the display rules name, kept in the layout (Layout.Rules) so that a
// delete, a move or a change of choices, which read only the layout (and
// the element changed), can refuse what would break a rule (contract
// section 15's 409 guards). Every element change rewrites the layout under
// its version, so the index and the rules never disagree.
func (l *Layout) SetRules(e Element) {
	if len(e.Conditions) == 0 {
		delete(l.Rules, e.ID)
		return
	}
	var uses []RuleUse
	for _, c := range e.Conditions {
		i := slices.IndexFunc(uses, func(u RuleUse) bool { return u.Element == c.FirstOperand })
		if i < 0 {
			uses = append(uses, RuleUse{Element: c.FirstOperand})
			i = len(uses) - 1
		}
		for _, ref := range ItemsNamed(c.FirstOperand, []Element{{ID: e.ID, Conditions: []Condition{c}}}) {
			if !slices.Contains(uses[i].Items, ref.Item) {
				uses[i].Items = append(uses[i].Items, ref.Item)
			}
		}
	}
	if l.Rules == nil {
		l.Rules = map[int64][]RuleUse{}
	}
	l.Rules[e.ID] = uses
}

// DisplayOrder is the questions list in the order a responder meets them
// (the pages flattened: a group, then its questions).
func (l Layout) DisplayOrder() []int64 {
	out := make([]int64, 0, len(l.Questions))
	for _, page := range l.Pages() {
		out = append(out, page...)
	}
	return out
}

// ErrUsedByRule is the 409 of a change that would break element m's rules
// by removing or moving element n.
func ErrUsedByRule(n, m int64) error {
	return Errorf(ECONFLICT, "Element %d is used by the conditions of element %d.", n, m)
}

// SetQuotas gives the layout the survey's quotas (Layout.Quotas) before a
// change that could remove what they name. A condition naming an element
// the layout no longer has (written before deletes were guarded) is left
// out: it names nothing already, and must not refuse other changes.
func (l *Layout) SetQuotas(qs []Quota) {
	l.Quotas = nil
	for _, q := range qs {
		kept := q
		kept.Conditions = slices.DeleteFunc(slices.Clone(q.Conditions), func(c QuotaCondition) bool { _, ok := l.Find(c.Question); return !ok })
		l.Quotas = append(l.Quotas, kept)
	}
}

// ErrUsedByQuota is the 409 of a change that would leave quota q naming
// a removed element n (kind "Element") or choice n ("Choice"): a quota's
// condition that names nothing could never match again.
func ErrUsedByQuota(kind string, n, q int64) error {
	return Errorf(ECONFLICT, "%s %d is used by the conditions of quota %d.", kind, n, q)
}

// CheckRules answers ECONFLICT when a rule names an element that is gone
// or not placed before the rule's own element, as a delete or a move would
// leave it, or when a quota (l.Quotas) names an element that is gone; nil
// when every rule and quota still holds.
func (l Layout) CheckRules() error {
	for _, q := range l.Quotas {
		for _, c := range q.Conditions {
			if _, ok := l.Find(c.Question); !ok {
				return ErrUsedByQuota("Element", c.Question, q.ID)
			}
		}
	}
	if len(l.Rules) == 0 {
		return nil
	}
	order := l.DisplayOrder()
	pos := make(map[int64]int, len(order))
	for i, id := range order {
		pos[id] = i
	}
	users := make([]int64, 0, len(l.Rules))
	for m := range l.Rules {
		users = append(users, m)
	}
	slices.Sort(users) // one answer for one layout
	for _, m := range users {
		pm, mok := pos[m]
		for _, u := range l.Rules[m] {
			pn, nok := pos[u.Element]
			if !mok {
				continue // the rule's own element is gone: its rules with it
			}
			if !nok || pn >= pm {
				return ErrUsedByRule(u.Element, m)
			}
		}
	}
	return nil
}

// CheckItemsKept answers ECONFLICT when next (element old, changed) no
// longer has a choice, row or column that a rule names, or changed its
// type while a rule names it: "Choice N is used by the conditions of
// element M." (Row, Column); and the same of a quota (l.Quotas) and the
// choices it names: "... of quota Q.".
func (l Layout) CheckItemsKept(old, next Element) error {
	for _, q := range l.Quotas {
		for _, c := range q.Conditions {
			if c.Question != old.ID {
				continue
			}
			if old.Type != next.Type {
				return ErrUsedByQuota("Element", old.ID, q.ID)
			}
			for _, ch := range c.Choices {
				if hasChoice(old, ch) && !hasChoice(next, ch) {
					return ErrUsedByQuota("Choice", ch, q.ID)
				}
			}
		}
	}
	users := make([]int64, 0, len(l.Rules))
	for m := range l.Rules {
		users = append(users, m)
	}
	slices.Sort(users)
	for _, m := range users {
		for _, u := range l.Rules[m] {
			if u.Element != old.ID {
				continue
			}
			if old.Type != next.Type {
				return ErrUsedByRule(old.ID, m)
			}
			for _, item := range u.Items {
				kind := ""
				switch {
				case hasChoice(old, item) && !hasChoice(next, item):
					kind = "Choice"
				case hasNamed(old.Rows, item) && !hasNamed(next.Rows, item):
					kind = "Row"
				case hasNamed(old.Columns, item) && !hasNamed(next.Columns, item):
					kind = "Column"
				}
				if kind != "" {
					return &Error{Code: ECONFLICT, Detail: fmt.Sprintf("%s %d is used by the conditions of element %d.", kind, item, m)}
				}
			}
		}
	}
	return nil
}

func hasChoice(e Element, id int64) bool { _, ok := e.Choice(id); return ok }

func hasNamed(items []NamedItem, id int64) bool { _, ok := namedItem(items, id); return ok }

// RuleOperands are the elements e's rules name, each once.
func (e Element) RuleOperands() []int64 {
	var out []int64
	for _, c := range e.Conditions {
		if !slices.Contains(out, c.FirstOperand) {
			out = append(out, c.FirstOperand)
		}
	}
	return out
}
