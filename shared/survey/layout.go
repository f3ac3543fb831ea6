package survey

import (
	"fmt"
	"slices"
)

// Layout is where a survey's elements stand: its three ordered lists of
// element ids, which elements are question groups, and which group each
// grouped question belongs to. An element's order is its position in its
// list (1..n, dense by construction), derived on read; a change of place is
// one rewrite of the layout, however long the survey, never a write per
// element. It is stored as one item beside the survey's and changed only
// under a condition on Version.
type Layout struct {
	Welcome       []int64         `json:"w"`
	Questions     []int64         `json:"q"`
	Appreciations []int64         `json:"a"`
	Groups        []int64         `json:"g"`
	Members       map[int64]int64 `json:"m"` // question id -> its group's id
	// Sizes holds each element's stored size in bytes, so that a write
	// can keep the survey within MaxSurveyContent reading the layout
	// only. Elements written before sizes were kept are absent (counted 0
	// until their next write).
	Sizes map[int64]int64 `json:"s,omitempty"`
	// Rules holds what each element's display rules name (see SetRules),
	// so that the changes that would break a rule are refused.
	Rules map[int64][]RuleUse `json:"r,omitempty"`
	// Shuffled holds the choice ids of the elements that randomize them
	// (see SetShuffle), for the sessions' choice orders.
	Shuffled map[int64][]int64 `json:"x,omitempty"`
	// Seconds holds the questions' own responding durations (SetTiming).
	Seconds map[int64]int64 `json:"t,omitempty"`
	Version int64           `json:"-"`
	// Quotas are the survey's quotas, which name questions and choices
	// as rules do (contract section 25): not kept in the layout, but read
	// beside it by a change that could remove what one names (a delete, a
	// change of choices or type), so that CheckRules and CheckItemsKept
	// refuse it as they refuse breaking a rule.
	Quotas []Quota `json:"-"`
}

func (l *Layout) list(which List) *[]int64 {
	switch which {
	case ListWelcome:
		return &l.Welcome
	case ListAppreciations:
		return &l.Appreciations
	}
	return &l.Questions
}

// Find returns the list holding id.
func (l Layout) Find(id int64) (List, bool) {
	for _, which := range []List{ListWelcome, ListQuestions, ListAppreciations} {
		if slices.Contains(*l.list(which), id) {
			return which, true
		}
	}
	return 0, false
}

// Len is the number of elements.
func (l Layout) Len() int { return len(l.Welcome) + len(l.Questions) + len(l.Appreciations) }

// Order is id's 1-based position in its list, or 0 when it has none.
func (l Layout) Order(id int64) int {
	if which, ok := l.Find(id); ok {
		return slices.Index(*l.list(which), id) + 1
	}
	return 0
}

// IsGroup reports whether id is a question group.
func (l Layout) IsGroup(id int64) bool { return slices.Contains(l.Groups, id) }

// GroupOf is the group id belongs to, or nil.
func (l Layout) GroupOf(id int64) *int64 {
	if g, ok := l.Members[id]; ok {
		return &g
	}
	return nil
}

// QuestionCount counts the questions, groups excepted: they only hold
// others.
func (l Layout) QuestionCount() int { return len(l.Questions) - len(l.Groups) }

// Pages returns the questions as the survey detail shows them: a question
// not in a group is a page of its own; a group and the questions that name
// it form one page, the group first, the rest in their order.
func (l Layout) Pages() [][]int64 {
	pages := [][]int64{}
	for _, id := range l.Questions {
		if _, grouped := l.Members[id]; grouped {
			continue
		}
		page := []int64{id}
		if l.IsGroup(id) {
			for _, q := range l.Questions {
				if g, ok := l.Members[q]; ok && g == id {
					page = append(page, q)
				}
			}
		}
		pages = append(pages, page)
	}
	return pages
}

// Placement is where an element goes: after Prior (an element of the same
// list) when set, else last; Group sets the question group it belongs to.
type Placement struct {
	Prior *int64
	Group *int64
	// Ungroup takes the element out of its group (related_group: null).
	Ungroup bool
}

// Messages of placement errors, on the fields prior_question and
// related_group.
const (
	MsgPriorOtherList  = "The prior question must be in the same list as this element (welcome pages, questions or appreciation pages)."
	MsgPriorSelf       = "An element cannot be placed after itself."
	MsgGroupNotGroup   = "The related group must be a question group (type 8)."
	MsgGroupSelf       = "An element cannot be its own group."
	MsgGroupNotAllowed = "Only questions can belong to a question group."
	MsgGroupOfGroup    = "A question group cannot belong to another group."
	MsgGroupHasMembers = "A question group that holds questions cannot change its type; delete or move its questions first."
	MsgTypeOtherList   = "The type cannot move an element to another list (welcome pages, questions or appreciation pages)."
	MsgTooManyElements = "A survey holds at most 1000 elements."
)

// check validates a placement of element id of type t against the layout,
// adding errors to errs.
func (l Layout) check(id int64, t ElementType, p Placement, errs Fields) {
	if p.Prior != nil {
		which, ok := l.Find(*p.Prior)
		switch {
		case *p.Prior == id:
			errs.Add("prior_question", MsgPriorSelf)
		case !ok:
			errs.Add("prior_question", InvalidPK(*p.Prior))
		case which != t.List():
			errs.Add("prior_question", MsgPriorOtherList)
		}
	}
	if p.Group != nil {
		which, ok := l.Find(*p.Group)
		switch {
		case *p.Group == id:
			errs.Add("related_group", MsgGroupSelf)
		case !ok:
			errs.Add("related_group", InvalidPK(*p.Group))
		case which != ListQuestions || !l.IsGroup(*p.Group):
			errs.Add("related_group", MsgGroupNotGroup)
		case t.List() != ListQuestions:
			errs.Add("related_group", MsgGroupNotAllowed)
		case t == TypeGroup:
			errs.Add("related_group", MsgGroupOfGroup)
		}
	}
}

// Insert places a new element id of type t. It returns EINVALID on
// prior_question or related_group when the placement is impossible, and
// leaves the layout unchanged then.
func (l *Layout) Insert(id int64, t ElementType, p Placement) error {
	errs := Fields{}
	if l.Len() >= MaxElements {
		errs.Add("non_field_errors", MsgTooManyElements)
	}
	l.check(id, t, p, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	if t == TypeGroup {
		l.Groups = append(l.Groups, id)
	}
	if p.Group != nil {
		if l.Members == nil {
			l.Members = map[int64]int64{}
		}
		l.Members[id] = *p.Group
	}
	l.place(id, t.List(), p)
	return nil
}

// place puts id into its list: after Prior, else (in a group) after the
// group's last member, else last.
func (l *Layout) place(id int64, which List, p Placement) {
	list := l.list(which)
	at := len(*list)
	switch {
	case p.Prior != nil:
		at = slices.Index(*list, *p.Prior) + 1
	case p.Group != nil:
		at = slices.Index(*list, *p.Group) + 1
		for i, q := range *list {
			if g, ok := l.Members[q]; ok && g == *p.Group && q != id && i+1 > at {
				at = i + 1
			}
		}
	}
	*list = slices.Insert(*list, at, id)
}

// Update changes the type and the place of an existing element: a new type
// (newType, or the same), a move after Prior, a new group or none. Moving
// into a group without Prior places it after the group's last member. It
// returns EINVALID, leaving the layout unchanged, when the change is
// impossible.
func (l *Layout) Update(id int64, oldType, newType ElementType, p Placement) error {
	if p.Group != nil && l.GroupOf(id) != nil && *l.GroupOf(id) == *p.Group {
		// The group it is in already (a GET-then-PATCH round trip): no move.
		p.Group = nil
	}
	errs := Fields{}
	if newType.List() != oldType.List() {
		errs.Add("type", MsgTypeOtherList)
	}
	members := 0
	for _, g := range l.Members {
		if g == id {
			members++
		}
	}
	if oldType == TypeGroup && newType != TypeGroup && members > 0 {
		errs.Add("type", MsgGroupHasMembers)
	}
	if newType == TypeGroup && oldType != TypeGroup && p.Group == nil && !p.Ungroup && l.GroupOf(id) != nil {
		errs.Add("type", MsgGroupOfGroup)
	}
	l.check(id, newType, p, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	switch {
	case oldType != TypeGroup && newType == TypeGroup:
		l.Groups = append(l.Groups, id)
	case oldType == TypeGroup && newType != TypeGroup:
		l.Groups = slices.DeleteFunc(l.Groups, func(g int64) bool { return g == id })
	}
	if p.Ungroup {
		delete(l.Members, id)
	}
	if p.Group != nil {
		if l.Members == nil {
			l.Members = map[int64]int64{}
		}
		l.Members[id] = *p.Group
	}
	if p.Prior != nil || p.Group != nil {
		list := l.list(newType.List())
		*list = slices.DeleteFunc(*list, func(x int64) bool { return x == id })
		l.place(id, newType.List(), p)
	}
	return nil
}

// Remove takes id out of the layout. A removed group leaves its questions
// in place, ungrouped.
func (l *Layout) Remove(id int64) {
	for _, which := range []List{ListWelcome, ListQuestions, ListAppreciations} {
		list := l.list(which)
		*list = slices.DeleteFunc(*list, func(x int64) bool { return x == id })
	}
	if l.IsGroup(id) {
		l.Groups = slices.DeleteFunc(l.Groups, func(g int64) bool { return g == id })
		for q, g := range l.Members {
			if g == id {
				delete(l.Members, q)
			}
		}
	}
	delete(l.Members, id)
	delete(l.Sizes, id)
	delete(l.Rules, id)
	delete(l.Shuffled, id)
	delete(l.Seconds, id)
}

// Clone returns a deep copy, so that a failed change can be retried from
// the original.
func (l Layout) Clone() Layout {
	c := Layout{
		Welcome: slices.Clone(l.Welcome), Questions: slices.Clone(l.Questions),
		Appreciations: slices.Clone(l.Appreciations), Groups: slices.Clone(l.Groups),
		Members: make(map[int64]int64, len(l.Members)), Version: l.Version, Quotas: l.Quotas, // read, never edited
	}
	for k, v := range l.Members {
		c.Members[k] = v
	}
	if l.Rules != nil {
		c.Rules = make(map[int64][]RuleUse, len(l.Rules))
		for k, v := range l.Rules {
			c.Rules[k] = slices.Clone(v) // SetRules replaces, never edits, an element's uses
		}
	}
	if l.Shuffled != nil {
		c.Shuffled = make(map[int64][]int64, len(l.Shuffled))
		for k, v := range l.Shuffled {
			c.Shuffled[k] = v // SetShuffle replaces, never edits, a list
		}
	}
	if l.Seconds != nil {
		c.Seconds = make(map[int64]int64, len(l.Seconds))
		for k, v := range l.Seconds {
			c.Seconds[k] = v
		}
	}
	if l.Sizes != nil {
		c.Sizes = make(map[int64]int64, len(l.Sizes))
		for k, v := range l.Sizes {
			c.Sizes[k] = v
		}
	}
	return c
}

// Size bounds of stored elements. One element is one DynamoDB item (at
// most 400 KB, keys and attribute names included); a survey's detail is
// one Lambda response (at most 6 MB), and its elements are most of it.
const (
	MaxElementBytes  = 256 << 10
	MaxSurveyContent = 3 << 20
)

// Messages of the size bounds.
var (
	MsgElementTooLarge = fmt.Sprintf("The element would take more than %d KiB; shorten its choices or texts.", MaxElementBytes>>10)
	MsgSurveyTooLarge  = fmt.Sprintf("The survey's elements would take more than %d MiB; shorten or remove some.", MaxSurveyContent>>20)
)

// SetSize records that element id now takes n bytes. It returns EINVALID
// (non_field_errors), leaving the layout unchanged, when the element or the
// survey's elements together would exceed their bound.
func (l *Layout) SetSize(id int64, n int) error {
	if n > MaxElementBytes {
		return FieldError("non_field_errors", MsgElementTooLarge)
	}
	total := int64(n)
	for k, v := range l.Sizes {
		if k != id {
			total += v
		}
	}
	if total > MaxSurveyContent && int64(n) > l.Sizes[id] { // shrinking is always allowed
		return FieldError("non_field_errors", MsgSurveyTooLarge)
	}
	if l.Sizes == nil {
		l.Sizes = map[int64]int64{}
	}
	l.Sizes[id] = int64(n)
	return nil
}
