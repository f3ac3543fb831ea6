package survey_test

import (
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

func TestLayoutInsert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		id    int64
		typ   survey.ElementType
		p     survey.Placement
		w     []int64 // lists after a successful insert
		q     []int64
		a     []int64
		g     []int64
		m     map[int64]int64
		errs  map[string][]string // or the refusal
		order int
	}{
		{name: "question last", id: 30, typ: survey.TypeText, q: []int64{10, 11, 12, 13, 14, 30}, order: 6},
		{name: "welcome last", id: 2, typ: survey.TypeWelcome, w: []int64{1, 2}, order: 2},
		{name: "appreciation last", id: 21, typ: survey.TypeAppreciation, a: []int64{20, 21}, order: 2},
		{name: "group last", id: 30, typ: survey.TypeGroup, q: []int64{10, 11, 12, 13, 14, 30}, g: []int64{11, 30}, order: 6},
		{name: "after the first question", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(10)}, q: []int64{10, 30, 11, 12, 13, 14}, order: 2},
		{name: "after the last question", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(14)}, q: []int64{10, 11, 12, 13, 14, 30}, order: 6},
		{name: "after a member, not joining", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(12)}, q: []int64{10, 11, 12, 30, 13, 14}, order: 4},
		{name: "after a welcome page", id: 2, typ: survey.TypeWelcome, p: survey.Placement{Prior: pid(1)}, w: []int64{1, 2}, order: 2},
		{name: "after an appreciation page", id: 21, typ: survey.TypeAppreciation, p: survey.Placement{Prior: pid(20)}, a: []int64{20, 21}, order: 2},
		{name: "member without prior goes after the last member", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(11)},
			q: []int64{10, 11, 12, 13, 30, 14}, m: members(12, 11, 13, 11, 30, 11), order: 5},
		{name: "member with prior goes after prior", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(11), Prior: pid(12)},
			q: []int64{10, 11, 12, 30, 13, 14}, m: members(12, 11, 13, 11, 30, 11), order: 4},
		{name: "member with prior outside the group", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(11), Prior: pid(10)},
			q: []int64{10, 30, 11, 12, 13, 14}, m: members(12, 11, 13, 11, 30, 11), order: 2},
		{name: "statement joins a group", id: 30, typ: survey.TypeStatement, p: survey.Placement{Group: pid(11)},
			q: []int64{10, 11, 12, 13, 30, 14}, m: members(12, 11, 13, 11, 30, 11), order: 5},
		{name: "question after a welcome page", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(1)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}}},
		{name: "question after an appreciation page", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(20)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}}},
		{name: "welcome page after a question", id: 2, typ: survey.TypeWelcome, p: survey.Placement{Prior: pid(10)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}}},
		{name: "appreciation page after a welcome page", id: 21, typ: survey.TypeAppreciation, p: survey.Placement{Prior: pid(1)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}}},
		{name: "prior missing", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(999)},
			errs: map[string][]string{"prior_question": {`Invalid pk "999" - object does not exist.`}}},
		{name: "prior itself", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(30)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorSelf}}},
		{name: "group a text question", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(10)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotGroup}}},
		{name: "group a welcome page", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(1)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotGroup}}},
		{name: "group an appreciation page", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(20)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotGroup}}},
		{name: "group missing", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(999)},
			errs: map[string][]string{"related_group": {`Invalid pk "999" - object does not exist.`}}},
		{name: "group itself", id: 30, typ: survey.TypeText, p: survey.Placement{Group: pid(30)},
			errs: map[string][]string{"related_group": {survey.MsgGroupSelf}}},
		{name: "welcome page in a group", id: 2, typ: survey.TypeWelcome, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotAllowed}}},
		{name: "appreciation page in a group", id: 21, typ: survey.TypeAppreciation, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotAllowed}}},
		{name: "group in a group", id: 30, typ: survey.TypeGroup, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupOfGroup}}},
		{name: "both wrong", id: 30, typ: survey.TypeText, p: survey.Placement{Prior: pid(1), Group: pid(998)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}, "related_group": {`Invalid pk "998" - object does not exist.`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := buildLayout(t, layBase)
			before := l.Clone()
			err := l.Insert(tt.id, tt.typ, tt.p)
			if tt.errs != nil {
				wantFieldErrors(t, err, tt.errs)
				if !sameLayout(l, before) {
					t.Errorf("a refused insert changed the layout:\n got %+v\nwant %+v", l, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("Insert: %v", err)
			}
			w, q, a, g, m := tt.w, tt.q, tt.a, tt.g, tt.m
			if w == nil {
				w = []int64{1}
			}
			if q == nil {
				q = []int64{10, 11, 12, 13, 14}
			}
			if a == nil {
				a = []int64{20}
			}
			if g == nil {
				g = []int64{11}
			}
			if m == nil {
				m = members(12, 11, 13, 11)
			}
			wantLists(t, l, w, q, a, g, m)
			if got := l.Order(tt.id); got != tt.order {
				t.Errorf("Order(%d) = %d, want %d", tt.id, got, tt.order)
			}
		})
	}
}

// TestLayoutInsertIntoEmptyGroup: the first member goes right after its
// group, the next after it, even when questions follow the group.
func TestLayoutInsertIntoEmptyGroup(t *testing.T) {
	t.Parallel()
	l := buildLayout(t, []layStep{{1, survey.TypeGroup, 0}, {2, survey.TypeText, 0}, {3, survey.TypeText, 0}})
	for _, id := range []int64{4, 5} {
		if err := l.Insert(id, survey.TypeText, survey.Placement{Group: pid(1)}); err != nil {
			t.Fatal(err)
		}
	}
	wantLists(t, l, nil, []int64{1, 4, 5, 2, 3}, nil, []int64{1}, members(4, 1, 5, 1))
	// A member placed far away, then a new member without prior: after the
	// last member in list order.
	if err := l.Insert(6, survey.TypeText, survey.Placement{Group: pid(1), Prior: pid(3)}); err != nil {
		t.Fatal(err)
	}
	if err := l.Insert(7, survey.TypeText, survey.Placement{Group: pid(1)}); err != nil {
		t.Fatal(err)
	}
	wantLists(t, l, nil, []int64{1, 4, 5, 2, 3, 6, 7}, nil, []int64{1}, members(4, 1, 5, 1, 6, 1, 7, 1))
}

func TestLayoutMaxElements(t *testing.T) {
	t.Parallel()
	var l survey.Layout
	for i := range survey.MaxElements - 1 {
		typ := []survey.ElementType{survey.TypeWelcome, survey.TypeText, survey.TypeAppreciation}[i%3]
		if err := l.Insert(int64(i+1), typ, survey.Placement{}); err != nil {
			t.Fatalf("insert %d: %v", i+1, err)
		}
	}
	if err := l.Insert(survey.MaxElements, survey.TypeText, survey.Placement{}); err != nil {
		t.Fatalf("insert the %dth element: %v", survey.MaxElements, err)
	}
	if l.Len() != survey.MaxElements {
		t.Fatalf("Len() = %d", l.Len())
	}
	before := l.Clone()
	for _, typ := range []survey.ElementType{survey.TypeWelcome, survey.TypeText, survey.TypeAppreciation} {
		err := l.Insert(survey.MaxElements+1, typ, survey.Placement{})
		wantFieldErrors(t, err, map[string][]string{"non_field_errors": {survey.MsgTooManyElements}})
	}
	// Every error at once.
	err := l.Insert(survey.MaxElements+1, survey.TypeText, survey.Placement{Prior: pid(1)})
	wantFieldErrors(t, err, map[string][]string{"non_field_errors": {survey.MsgTooManyElements}, "prior_question": {survey.MsgPriorOtherList}})
	if !sameLayout(l, before) {
		t.Error("a refused insert changed the layout")
	}
	checkLayoutInvariants(t, l, nil)
	// Room again after a removal.
	l.Remove(2)
	if err := l.Insert(survey.MaxElements+1, survey.TypeText, survey.Placement{}); err != nil {
		t.Errorf("insert after a removal: %v", err)
	}
}

func TestLayoutUpdate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		id       int64
		old, new survey.ElementType
		p        survey.Placement
		q        []int64
		g        []int64
		m        map[int64]int64
		errs     map[string][]string
	}{
		{name: "fields only", id: 14, old: survey.TypeText, new: survey.TypeText},
		{name: "type within the questions", id: 14, old: survey.TypeText, new: survey.TypeRating},
		{name: "move after the first", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(10)},
			q: []int64{10, 14, 11, 12, 13}},
		{name: "move down", id: 10, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(14)},
			q: []int64{11, 12, 13, 14, 10}},
		{name: "move a group, members stay", id: 11, old: survey.TypeGroup, new: survey.TypeGroup, p: survey.Placement{Prior: pid(14)},
			q: []int64{10, 12, 13, 14, 11}},
		{name: "move a member within its group", id: 13, old: survey.TypeMultipleChoice, new: survey.TypeMultipleChoice, p: survey.Placement{Prior: pid(11)},
			q: []int64{10, 11, 13, 12, 14}},
		{name: "move a member out of place, still a member", id: 12, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(14)},
			q: []int64{10, 11, 13, 14, 12}},
		{name: "move after itself", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(14)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorSelf}}},
		{name: "move after a welcome page", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(1)},
			errs: map[string][]string{"prior_question": {survey.MsgPriorOtherList}}},
		{name: "move after a missing one", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Prior: pid(999)},
			errs: map[string][]string{"prior_question": {`Invalid pk "999" - object does not exist.`}}},
		{name: "type to welcome", id: 14, old: survey.TypeText, new: survey.TypeWelcome,
			errs: map[string][]string{"type": {survey.MsgTypeOtherList}}},
		{name: "type to appreciation", id: 10, old: survey.TypeText, new: survey.TypeAppreciation,
			errs: map[string][]string{"type": {survey.MsgTypeOtherList}}},
		{name: "welcome to question", id: 1, old: survey.TypeWelcome, new: survey.TypeText,
			errs: map[string][]string{"type": {survey.MsgTypeOtherList}}},
		{name: "appreciation to welcome", id: 20, old: survey.TypeAppreciation, new: survey.TypeWelcome,
			errs: map[string][]string{"type": {survey.MsgTypeOtherList}}},
		{name: "group with members keeps its type", id: 11, old: survey.TypeGroup, new: survey.TypeText,
			errs: map[string][]string{"type": {survey.MsgGroupHasMembers}}},
		{name: "member becomes a group", id: 12, old: survey.TypeText, new: survey.TypeGroup,
			errs: map[string][]string{"type": {survey.MsgGroupOfGroup}}},
		{name: "member becomes a group while leaving", id: 12, old: survey.TypeText, new: survey.TypeGroup, p: survey.Placement{Ungroup: true},
			g: []int64{11, 12}, m: members(13, 11)},
		{name: "question becomes a group", id: 14, old: survey.TypeText, new: survey.TypeGroup, g: []int64{11, 14}},
		{name: "join a group", id: 10, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Group: pid(11)},
			q: []int64{11, 12, 13, 10, 14}, m: members(12, 11, 13, 11, 10, 11)},
		{name: "join a group after a prior", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Group: pid(11), Prior: pid(11)},
			q: []int64{10, 11, 14, 12, 13}, m: members(12, 11, 13, 11, 14, 11)},
		{name: "ungroup stays in place", id: 12, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Ungroup: true},
			m: members(13, 11)},
		{name: "ungroup an ungrouped question", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Ungroup: true}},
		{name: "ungroup and move", id: 13, old: survey.TypeMultipleChoice, new: survey.TypeMultipleChoice, p: survey.Placement{Ungroup: true, Prior: pid(14)},
			q: []int64{10, 11, 12, 14, 13}, m: members(12, 11)},
		{name: "own group", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Group: pid(14)},
			errs: map[string][]string{"related_group": {survey.MsgGroupSelf}}},
		{name: "group its own group", id: 11, old: survey.TypeGroup, new: survey.TypeGroup, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupSelf}}},
		{name: "group into a text question", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Group: pid(10)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotGroup}}},
		{name: "group into a missing one", id: 14, old: survey.TypeText, new: survey.TypeText, p: survey.Placement{Group: pid(999)},
			errs: map[string][]string{"related_group": {`Invalid pk "999" - object does not exist.`}}},
		{name: "welcome page into a group", id: 1, old: survey.TypeWelcome, new: survey.TypeWelcome, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotAllowed}}},
		{name: "appreciation page into a group", id: 20, old: survey.TypeAppreciation, new: survey.TypeAppreciation, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupNotAllowed}}},
		{name: "new group into a group", id: 14, old: survey.TypeText, new: survey.TypeGroup, p: survey.Placement{Group: pid(11)},
			errs: map[string][]string{"related_group": {survey.MsgGroupOfGroup}}},
		{name: "type and place both wrong", id: 14, old: survey.TypeText, new: survey.TypeWelcome, p: survey.Placement{Prior: pid(999)},
			errs: map[string][]string{"type": {survey.MsgTypeOtherList}, "prior_question": {`Invalid pk "999" - object does not exist.`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := buildLayout(t, layBase)
			before := l.Clone()
			err := l.Update(tt.id, tt.old, tt.new, tt.p)
			if tt.errs != nil {
				wantFieldErrors(t, err, tt.errs)
				if !sameLayout(l, before) {
					t.Errorf("a refused update changed the layout:\n got %+v\nwant %+v", l, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			q, g, m := tt.q, tt.g, tt.m
			if q == nil {
				q = []int64{10, 11, 12, 13, 14}
			}
			if g == nil {
				g = []int64{11}
			}
			if m == nil {
				m = members(12, 11, 13, 11)
			}
			wantLists(t, l, []int64{1}, q, []int64{20}, g, m)
		})
	}
}

// TestLayoutUpdateGroupWithoutMembers: an empty group may become a
// question and leaves Groups.
func TestLayoutUpdateGroupWithoutMembers(t *testing.T) {
	t.Parallel()
	l := buildLayout(t, layBase)
	l.Remove(12)
	l.Remove(13)
	if err := l.Update(11, survey.TypeGroup, survey.TypeText, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	wantLists(t, l, []int64{1}, []int64{10, 11, 14}, []int64{20}, nil, nil)
	if l.IsGroup(11) {
		t.Error("IsGroup(11) after it became a text question")
	}
	if err := l.Insert(30, survey.TypeText, survey.Placement{Group: pid(11)}); err == nil {
		t.Error("joined a former group")
	}
}

func TestLayoutRemove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		id      int64
		w, q, a []int64
		g       []int64
		m       map[int64]int64
		pages   [][]int64
	}{
		{"first question", 10, []int64{1}, []int64{11, 12, 13, 14}, []int64{20}, []int64{11}, members(12, 11, 13, 11), [][]int64{{11, 12, 13}, {14}}},
		{"last question", 14, []int64{1}, []int64{10, 11, 12, 13}, []int64{20}, []int64{11}, members(12, 11, 13, 11), [][]int64{{10}, {11, 12, 13}}},
		{"a member", 12, []int64{1}, []int64{10, 11, 13, 14}, []int64{20}, []int64{11}, members(13, 11), [][]int64{{10}, {11, 13}, {14}}},
		{"the group ungroups its members in place", 11, []int64{1}, []int64{10, 12, 13, 14}, []int64{20}, nil, nil, [][]int64{{10}, {12}, {13}, {14}}},
		{"the welcome page", 1, nil, []int64{10, 11, 12, 13, 14}, []int64{20}, []int64{11}, members(12, 11, 13, 11), [][]int64{{10}, {11, 12, 13}, {14}}},
		{"the appreciation page", 20, []int64{1}, []int64{10, 11, 12, 13, 14}, nil, []int64{11}, members(12, 11, 13, 11), [][]int64{{10}, {11, 12, 13}, {14}}},
		{"a missing id changes nothing", 999, []int64{1}, []int64{10, 11, 12, 13, 14}, []int64{20}, []int64{11}, members(12, 11, 13, 11), [][]int64{{10}, {11, 12, 13}, {14}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := buildLayout(t, layBase)
			l.Remove(tt.id)
			wantLists(t, l, tt.w, tt.q, tt.a, tt.g, tt.m)
			if got := l.Pages(); !reflect.DeepEqual(got, tt.pages) {
				t.Errorf("Pages() = %v, want %v", got, tt.pages)
			}
			if l.Order(tt.id) != 0 || l.GroupOf(tt.id) != nil {
				t.Errorf("removed %d still has order %d, group %v", tt.id, l.Order(tt.id), l.GroupOf(tt.id))
			}
			if _, ok := l.Find(tt.id); ok {
				t.Errorf("Find(%d) after Remove", tt.id)
			}
			for i, id := range tt.q {
				if got := l.Order(id); got != i+1 {
					t.Errorf("Order(%d) = %d, want %d", id, got, i+1)
				}
			}
		})
	}
}
