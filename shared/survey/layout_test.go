package survey_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// pid is a pointer to an id, for placements.
func pid(id int64) *int64 { return &id }

// layStep is one insert of a layout fixture.
type layStep struct {
	id    int64
	typ   survey.ElementType
	group int64 // 0: none
}

// layBase is the fixture most cases start from: welcome 1; questions 10,
// group 11 holding 12 and 13, then 14; appreciation 20.
var layBase = []layStep{
	{1, survey.TypeWelcome, 0},
	{10, survey.TypeText, 0},
	{11, survey.TypeGroup, 0},
	{12, survey.TypeText, 11},
	{13, survey.TypeMultipleChoice, 11},
	{14, survey.TypeText, 0},
	{20, survey.TypeAppreciation, 0},
}

// buildLayout inserts steps in order into an empty layout.
func buildLayout(t testing.TB, steps []layStep) survey.Layout {
	t.Helper()
	var l survey.Layout
	for _, s := range steps {
		p := survey.Placement{}
		if s.group != 0 {
			p.Group = pid(s.group)
		}
		if err := l.Insert(s.id, s.typ, p); err != nil {
			t.Fatalf("fixture: Insert(%d, %d): %v", s.id, s.typ, err)
		}
	}
	return l
}

// wantFieldErrors asserts err is EINVALID with exactly these fields and
// messages.
func wantFieldErrors(t *testing.T, err error, want map[string][]string) {
	t.Helper()
	var e *survey.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want EINVALID %v", err, want)
	}
	if e.Code != survey.EINVALID {
		t.Errorf("code = %q, want %q", e.Code, survey.EINVALID)
	}
	got := map[string][]string{}
	for k, v := range e.Fields {
		msgs, ok := v.([]string)
		if !ok {
			t.Fatalf("field %s holds %T, want []string", k, v)
		}
		got[k] = msgs
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
}

// sameLayout compares two layouts, treating nil and empty alike.
func sameLayout(a, b survey.Layout) bool {
	norm := func(l survey.Layout) survey.Layout {
		c := l.Clone()
		for _, s := range []*[]int64{&c.Welcome, &c.Questions, &c.Appreciations, &c.Groups} {
			if len(*s) == 0 {
				*s = []int64{}
			}
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func members(kv ...int64) map[int64]int64 {
	m := map[int64]int64{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// wantLists asserts the three lists, the groups and the memberships.
func wantLists(t *testing.T, l survey.Layout, w, q, a, g []int64, m map[int64]int64) {
	t.Helper()
	eq := func(what string, got, want []int64) {
		if len(got) != 0 || len(want) != 0 {
			if !slices.Equal(got, want) {
				t.Errorf("%s = %v, want %v", what, got, want)
			}
		}
	}
	eq("Welcome", l.Welcome, w)
	eq("Questions", l.Questions, q)
	eq("Appreciations", l.Appreciations, a)
	eq("Groups", l.Groups, g)
	if len(l.Members) != 0 || len(m) != 0 {
		if !reflect.DeepEqual(l.Members, m) {
			t.Errorf("Members = %v, want %v", l.Members, m)
		}
	}
	checkLayoutInvariants(t, l, nil)
}

// checkLayoutInvariants asserts what every layout must keep: no id twice
// (in a list or across lists), orders 1..n per list, members only of
// groups that are in Groups, Groups within Questions, pages that show every
// question once. types, when given, is the type of every element.
func checkLayoutInvariants(t testing.TB, l survey.Layout, types map[int64]survey.ElementType) {
	t.Helper()
	seen := map[int64]string{}
	lists := []struct {
		name  string
		ids   []int64
		which survey.List
	}{{"welcome", l.Welcome, survey.ListWelcome}, {"questions", l.Questions, survey.ListQuestions}, {"appreciations", l.Appreciations, survey.ListAppreciations}}
	for _, list := range lists {
		for i, id := range list.ids {
			if prev, dup := seen[id]; dup {
				t.Fatalf("id %d twice (in %s and %s): %+v", id, prev, list.name, l)
			}
			seen[id] = list.name
			if got := l.Order(id); got != i+1 {
				t.Fatalf("Order(%d) = %d, want %d (position in %s %v)", id, got, i+1, list.name, list.ids)
			}
			if which, ok := l.Find(id); !ok || which != list.which {
				t.Fatalf("Find(%d) = %v, %v, want %v", id, which, ok, list.which)
			}
			if types != nil {
				typ, ok := types[id]
				if !ok {
					t.Fatalf("id %d in %s is no known element", id, list.name)
				}
				if typ.List() != list.which {
					t.Fatalf("id %d of type %d is in %s", id, typ, list.name)
				}
			}
		}
	}
	if types != nil && len(types) != len(seen) {
		t.Fatalf("layout holds %d elements, want %d", len(seen), len(types))
	}
	if l.Len() != len(seen) {
		t.Fatalf("Len() = %d, want %d", l.Len(), len(seen))
	}
	groups := map[int64]bool{}
	for _, g := range l.Groups {
		if groups[g] {
			t.Fatalf("group %d twice in Groups %v", g, l.Groups)
		}
		groups[g] = true
		if seen[g] != "questions" {
			t.Fatalf("group %d is not in Questions %v", g, l.Questions)
		}
		if !l.IsGroup(g) {
			t.Fatalf("IsGroup(%d) = false", g)
		}
		if types != nil && types[g] != survey.TypeGroup {
			t.Fatalf("group %d has type %d", g, types[g])
		}
	}
	if types != nil {
		for id, typ := range types {
			if typ == survey.TypeGroup && !groups[id] {
				t.Fatalf("element %d of type 8 is not in Groups %v", id, l.Groups)
			}
		}
	}
	for q, g := range l.Members {
		if seen[q] != "questions" {
			t.Fatalf("member %d is not in Questions", q)
		}
		if !groups[g] {
			t.Fatalf("member %d points at %d, not a group of %v", q, g, l.Groups)
		}
		if groups[q] {
			t.Fatalf("group %d is a member of group %d", q, g)
		}
		if got := l.GroupOf(q); got == nil || *got != g {
			t.Fatalf("GroupOf(%d) = %v, want %d", q, got, g)
		}
	}
	if want := len(l.Questions) - len(l.Groups); l.QuestionCount() != want {
		t.Fatalf("QuestionCount() = %d, want %d", l.QuestionCount(), want)
	}
	// Pages: every question exactly once; a page starts with an ungrouped
	// element; the rest of a page are members of its first, in order.
	onPage := map[int64]bool{}
	for _, page := range l.Pages() {
		if len(page) == 0 {
			t.Fatalf("empty page in %v", l.Pages())
		}
		head := page[0]
		if _, grouped := l.Members[head]; grouped {
			t.Fatalf("page %v starts with a member", page)
		}
		if len(page) > 1 && !groups[head] {
			t.Fatalf("page %v of %d elements does not start with a group", page, len(page))
		}
		last := 0
		for i, id := range page {
			if onPage[id] {
				t.Fatalf("id %d on two pages: %v", id, l.Pages())
			}
			onPage[id] = true
			if i > 0 {
				if g := l.Members[id]; g != head {
					t.Fatalf("page %v holds %d of group %d", page, id, g)
				}
				if o := l.Order(id); o <= last {
					t.Fatalf("page %v is not in order", page)
				}
				last = l.Order(id)
			}
		}
	}
	if len(onPage) != len(l.Questions) {
		t.Fatalf("pages show %d questions, want %d", len(onPage), len(l.Questions))
	}
}

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

// TestLayoutOrderDense: orders are 1..n in every list after a sequence of
// every kind of change.
func TestLayoutOrderDense(t *testing.T) {
	t.Parallel()
	l := buildLayout(t, layBase)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Insert(2, survey.TypeWelcome, survey.Placement{Prior: pid(1)}))
	must(l.Insert(3, survey.TypeWelcome, survey.Placement{Prior: pid(1)}))
	must(l.Insert(30, survey.TypeText, survey.Placement{Prior: pid(12)}))
	must(l.Insert(21, survey.TypeAppreciation, survey.Placement{}))
	must(l.Update(10, survey.TypeText, survey.TypeText, survey.Placement{Prior: pid(30)}))
	must(l.Update(14, survey.TypeText, survey.TypeText, survey.Placement{Group: pid(11)}))
	l.Remove(3)
	l.Remove(12)
	must(l.Update(20, survey.TypeAppreciation, survey.TypeAppreciation, survey.Placement{Prior: pid(21)}))
	wantLists(t, l, []int64{1, 2}, []int64{11, 30, 10, 13, 14}, []int64{21, 20}, []int64{11}, members(13, 11, 14, 11))
	for _, list := range [][]int64{l.Welcome, l.Questions, l.Appreciations} {
		for i, id := range list {
			if got := l.Order(id); got != i+1 {
				t.Errorf("Order(%d) = %d, want %d", id, got, i+1)
			}
		}
	}
	if got := l.Order(12); got != 0 {
		t.Errorf("Order of a removed element = %d, want 0", got)
	}
	var empty survey.Layout
	if got := empty.Order(1); got != 0 {
		t.Errorf("Order in an empty layout = %d", got)
	}
}

func TestLayoutPages(t *testing.T) {
	t.Parallel()
	t.Run("empty layout has no pages, not null", func(t *testing.T) {
		var l survey.Layout
		pages := l.Pages()
		if pages == nil || len(pages) != 0 {
			t.Errorf("Pages() = %#v, want an empty non-nil slice", pages)
		}
		if b, _ := json.Marshal(pages); string(b) != "[]" {
			t.Errorf("JSON = %s", b)
		}
	})
	t.Run("fixture", func(t *testing.T) {
		l := buildLayout(t, layBase)
		want := [][]int64{{10}, {11, 12, 13}, {14}}
		if got := l.Pages(); !reflect.DeepEqual(got, want) {
			t.Errorf("Pages() = %v, want %v", got, want)
		}
	})
	t.Run("welcome and appreciation pages are not questions", func(t *testing.T) {
		l := buildLayout(t, []layStep{{1, survey.TypeWelcome, 0}, {2, survey.TypeAppreciation, 0}})
		if got := l.Pages(); len(got) != 0 {
			t.Errorf("Pages() = %v, want none", got)
		}
		if got := l.QuestionCount(); got != 0 {
			t.Errorf("QuestionCount() = %d", got)
		}
	})
	t.Run("a member placed away from its group stays on its page", func(t *testing.T) {
		l := buildLayout(t, layBase)
		if err := l.Update(12, survey.TypeText, survey.TypeText, survey.Placement{Prior: pid(14)}); err != nil {
			t.Fatal(err)
		}
		want := [][]int64{{10}, {11, 13, 12}, {14}}
		if got := l.Pages(); !reflect.DeepEqual(got, want) {
			t.Errorf("Pages() = %v, want %v", got, want)
		}
		// Even placed before its group.
		if err := l.Update(13, survey.TypeMultipleChoice, survey.TypeMultipleChoice, survey.Placement{Prior: pid(10)}); err != nil {
			t.Fatal(err)
		}
		want = [][]int64{{10}, {11, 13, 12}, {14}}
		if got := l.Pages(); !reflect.DeepEqual(got, want) {
			t.Errorf("Pages() = %v, want %v (questions %v)", got, want, l.Questions)
		}
	})
	t.Run("an empty group is a page of its own", func(t *testing.T) {
		l := buildLayout(t, []layStep{{1, survey.TypeText, 0}, {2, survey.TypeGroup, 0}, {3, survey.TypeGroup, 0}, {4, survey.TypeText, 3}})
		want := [][]int64{{1}, {2}, {3, 4}}
		if got := l.Pages(); !reflect.DeepEqual(got, want) {
			t.Errorf("Pages() = %v, want %v", got, want)
		}
	})
	t.Run("two groups", func(t *testing.T) {
		l := buildLayout(t, []layStep{{1, survey.TypeGroup, 0}, {2, survey.TypeGroup, 0}, {3, survey.TypeText, 1}, {4, survey.TypeText, 2}, {5, survey.TypeText, 1}, {6, survey.TypeText, 0}})
		// Questions: 1, 3, 5, 2, 4, 6.
		want := [][]int64{{1, 3, 5}, {2, 4}, {6}}
		if got := l.Pages(); !reflect.DeepEqual(got, want) {
			t.Errorf("Pages() = %v, want %v (questions %v)", got, want, l.Questions)
		}
		checkLayoutInvariants(t, l, nil)
	})
}

func TestLayoutQuestionCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []layStep
		want  int
	}{
		{"empty", nil, 0},
		{"fixture: groups excluded", layBase, 4},
		{"only groups", []layStep{{1, survey.TypeGroup, 0}, {2, survey.TypeGroup, 0}}, 0},
		{"statements count", []layStep{{1, survey.TypeStatement, 0}, {2, survey.TypeText, 0}, {3, survey.TypeWelcome, 0}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := buildLayout(t, tt.steps)
			if got := l.QuestionCount(); got != tt.want {
				t.Errorf("QuestionCount() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestLayoutClone(t *testing.T) {
	t.Parallel()
	l := buildLayout(t, layBase)
	l.Version = 7
	c := l.Clone()
	if !reflect.DeepEqual(c, l) {
		t.Fatalf("Clone() = %+v, want %+v", c, l)
	}
	c.Welcome[0], c.Questions[0], c.Appreciations[0], c.Groups[0] = 100, 100, 100, 100
	c.Members[12] = 99
	c.Members[50] = 11
	c.Version = 8
	if err := c.Insert(40, survey.TypeText, survey.Placement{Prior: pid(14)}); err != nil {
		t.Fatal(err)
	}
	c.Remove(13)
	want := buildLayout(t, layBase)
	want.Version = 7
	if !reflect.DeepEqual(l, want) {
		t.Errorf("changing the clone changed the original:\n got %+v\nwant %+v", l, want)
	}
	// Appends to the clone never write into the original's arrays.
	l2 := buildLayout(t, layBase)
	l2.Questions = l2.Questions[:2:5]
	c2 := l2.Clone()
	c2.Questions = append(c2.Questions, 77)
	if err := c2.Insert(78, survey.TypeText, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	if got := l2.Questions[:3:3][2]; got != 12 {
		t.Errorf("append to the clone wrote %d into the original's array", got)
	}
	// The zero layout clones to a usable one.
	var zero survey.Layout
	zc := zero.Clone()
	if err := zc.Insert(1, survey.TypeGroup, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	if err := zc.Insert(2, survey.TypeText, survey.Placement{Group: pid(1)}); err != nil {
		t.Fatal(err)
	}
	if zero.Len() != 0 || len(zero.Members) != 0 {
		t.Errorf("the zero layout changed: %+v", zero)
	}
}

// TestLayoutJSON: the stored form keeps everything but Version.
func TestLayoutJSON(t *testing.T) {
	t.Parallel()
	l := buildLayout(t, layBase)
	l.Version = 3
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back survey.Layout
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	l.Version = 0
	if !reflect.DeepEqual(back, l) {
		t.Errorf("round trip = %+v, want %+v (%s)", back, l, b)
	}
}

// layModel drives a layout with random operations, knowing each element's
// type as the store does.
type layModel struct {
	l     survey.Layout
	types map[int64]survey.ElementType
	next  int64
	ok    map[string]int
	fail  map[string]int
}

func newLayModel() *layModel {
	return &layModel{types: map[int64]survey.ElementType{}, next: 1, ok: map[string]int{}, fail: map[string]int{}}
}

// ids lists the model's elements in a fixed order.
func (m *layModel) ids() []int64 {
	out := make([]int64, 0, len(m.types))
	for id := range m.types {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// pickPrior chooses a prior_question from a selector: none, a missing id,
// any element, or (most often) an element of list which.
func (m *layModel) pickPrior(sel uint8, which survey.List) *int64 {
	ids := m.ids()
	var same []int64
	for _, id := range ids {
		if m.types[id].List() == which {
			same = append(same, id)
		}
	}
	switch {
	case sel < 48:
		return nil
	case sel < 56:
		return pid(int64(1000 + int(sel)))
	case sel < 80 && len(ids) > 0:
		return pid(ids[int(sel)%len(ids)])
	case len(same) > 0:
		return pid(same[int(sel)%len(same)])
	}
	return nil
}

// pickGroup chooses a related_group from a selector: none (most often), a
// missing id, any element, or a group.
func (m *layModel) pickGroup(sel uint8) *int64 {
	ids := m.ids()
	switch {
	case sel < 112:
		return nil
	case sel < 120:
		return pid(int64(1000 + int(sel)))
	case sel < 144 && len(ids) > 0:
		return pid(ids[int(sel)%len(ids)])
	case len(m.l.Groups) > 0:
		return pid(m.l.Groups[int(sel)%len(m.l.Groups)])
	}
	return nil
}

var layTypes = []survey.ElementType{
	survey.TypeWelcome, survey.TypeText, survey.TypeGroup, survey.TypeGroup, survey.TypeMultipleChoice,
	survey.TypeAppreciation, survey.TypeStatement, survey.TypeText, survey.TypeGroup, survey.TypeRating,
}

// step applies one operation decoded from four bytes (about half inserts,
// a third updates, the rest removes) and checks that a refused one left the
// layout as it was.
func (m *layModel) step(t testing.TB, kind, a, b, c uint8) {
	t.Helper()
	before := m.l.Clone()
	switch {
	case kind < 128: // insert
		id := m.next
		m.next++
		typ := layTypes[int(a)%len(layTypes)]
		p := survey.Placement{Prior: m.pickPrior(b, typ.List()), Group: m.pickGroup(c)}
		if err := m.l.Insert(id, typ, p); err != nil {
			m.refused(t, "insert", err, before)
			return
		}
		m.types[id] = typ
		m.ok["insert"]++
		if p.Group != nil {
			if g := m.l.GroupOf(id); g == nil || *g != *p.Group {
				t.Fatalf("insert %d into group %d: GroupOf = %v", id, *p.Group, g)
			}
		}
		if p.Prior != nil && m.l.Order(id) != m.l.Order(*p.Prior)+1 {
			t.Fatalf("insert %d after %d: orders %d, %d", id, *p.Prior, m.l.Order(id), m.l.Order(*p.Prior))
		}
	case kind < 216: // update: a move, a new group, none, or a new type
		ids := m.ids()
		if len(ids) == 0 {
			return
		}
		id := ids[int(a)%len(ids)]
		old := m.types[id]
		typ := old
		if c%7 == 0 {
			typ = layTypes[int(b)%len(layTypes)]
		}
		p := survey.Placement{Prior: m.pickPrior(b, old.List())}
		switch c % 3 {
		case 1:
			p.Group = m.pickGroup(c | 128)
		case 2:
			p.Ungroup = c%2 == 0
		}
		if err := m.l.Update(id, old, typ, p); err != nil {
			m.refused(t, "update", err, before)
			return
		}
		m.types[id] = typ
		m.ok["update"]++
		if p.Ungroup && p.Group == nil && m.l.GroupOf(id) != nil {
			t.Fatalf("update %d with Ungroup: still in group %d", id, *m.l.GroupOf(id))
		}
		if p.Group != nil {
			if g := m.l.GroupOf(id); g == nil || *g != *p.Group {
				t.Fatalf("update %d into group %d: GroupOf = %v", id, *p.Group, g)
			}
		}
		if p.Prior != nil && m.l.Order(id) != m.l.Order(*p.Prior)+1 {
			t.Fatalf("move %d after %d: orders %d, %d", id, *p.Prior, m.l.Order(id), m.l.Order(*p.Prior))
		}
		if p.Prior == nil && p.Group == nil && !sameOrders(before, m.l) {
			t.Fatalf("update %d without prior or group moved elements:\n got %+v\nwant %+v", id, m.l, before)
		}
	default: // remove
		ids := m.ids()
		if len(ids) == 0 {
			return
		}
		id := ids[int(a)%len(ids)]
		m.l.Remove(id)
		delete(m.types, id)
		m.ok["remove"]++
		// The rest keep their relative order.
		for _, pair := range [][2][]int64{{before.Welcome, m.l.Welcome}, {before.Questions, m.l.Questions}, {before.Appreciations, m.l.Appreciations}} {
			want := slices.DeleteFunc(slices.Clone(pair[0]), func(x int64) bool { return x == id })
			if !slices.Equal(pair[1], want) {
				t.Fatalf("remove %d: list %v, want %v", id, pair[1], want)
			}
		}
	}
}

// sameOrders reports whether two layouts hold the same lists.
func sameOrders(a, b survey.Layout) bool {
	return slices.Equal(a.Welcome, b.Welcome) && slices.Equal(a.Questions, b.Questions) && slices.Equal(a.Appreciations, b.Appreciations)
}

func (m *layModel) refused(t testing.TB, op string, err error, before survey.Layout) {
	t.Helper()
	if survey.ErrorCode(err) != survey.EINVALID {
		t.Fatalf("%s refused with %v, want EINVALID", op, err)
	}
	if !sameLayout(m.l, before) {
		t.Fatalf("a refused %s (%v) changed the layout:\n got %+v\nwant %+v", op, err, m.l, before)
	}
	m.fail[op]++
}

// TestLayoutRandomOps: 500 random inserts, moves and removes keep every
// invariant after each step.
func TestLayoutRandomOps(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 2026))
			m := newLayModel()
			for i := range 500 {
				m.step(t, uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)))
				checkLayoutInvariants(t, m.l, m.types)
				if t.Failed() {
					t.Fatalf("after step %d", i)
				}
			}
			t.Logf("seed %d: applied %v, refused %v; %d elements, %d groups, %d members",
				seed, m.ok, m.fail, m.l.Len(), len(m.l.Groups), len(m.l.Members))
			for _, op := range []string{"insert", "update", "remove"} {
				if m.ok[op] < 50 {
					t.Errorf("only %d successful %ss: the test exercises too little", m.ok[op], op)
				}
			}
			if len(m.l.Members) == 0 {
				t.Error("no memberships at the end: groups are not exercised")
			}
		})
	}
}

// FuzzLayoutOps: any sequence of operations keeps the invariants and never
// panics.
func FuzzLayoutOps(f *testing.F) {
	f.Add([]byte{})
	// A group, a question, a member; a move; a removal.
	f.Add([]byte{0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 200, 150, 1, 100, 0, 240, 0, 0, 0})
	// Welcome and appreciation pages, a cross-list prior, a type change.
	f.Add([]byte{0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 60, 0, 0, 2, 0, 0, 150, 3, 5, 7, 200, 0, 100, 2, 230, 1, 0, 0})
	f.Add(bytes4(200))
	f.Add(bytes4(400))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newLayModel()
		for i := 0; i+4 <= len(data) && i < 4*400; i += 4 {
			m.step(t, data[i], data[i+1], data[i+2], data[i+3])
			checkLayoutInvariants(t, m.l, m.types)
		}
	})
}

// bytes4 is a deterministic seed of n operations.
func bytes4(n int) []byte {
	b := make([]byte, 4*n)
	var x uint32 = 2463534242
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	binary.LittleEndian.PutUint32(b, 0x0000_0200) // start with an insert of a group: 0, 2, 0, 0
	return b
}

func TestValidDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"00:00:00", true},
		{"99:59:59", true},
		{"24:59:59", true},
		{"01:02:03", true},
		{"00:59:00", true},
		{"24:60:00", false},
		{"00:60:00", false},
		{"00:00:60", false},
		{"00:99:00", false},
		{"1:2:3", false},
		{"-01:00:00", false},
		{"0:00:00", false},
		{"000:00:00", false},
		{"100:00:00", false},
		{"aa:bb:cc", false},
		{"", false},
		{"00:00", false},
		{"00-00-00", false},
		{"00:00:00 ", false},
		{" 00:00:00", false},
		{"00:00:0a", false},
		{"+1:00:00", false},
		{"١٢:٣٤:٥٦", false},
		{"00:00:00\n", false},
		{"00:00:00.5", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			t.Parallel()
			if got := survey.ValidDuration(tt.in); got != tt.want {
				t.Errorf("ValidDuration(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidHTTPURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"http://example.com", true},
		{"https://example.com", true},
		{"https://example.com/", true},
		{"https://media.example.com/a/b.png?x=1&y=2#top", true},
		{"http://example.com:8080/path", true},
		{"https://127.0.0.1/x", true},
		{"https://[::1]:443/x", true},
		{"https://www.youtube.com/watch?v=abc", true},
		{"https://example.com/%D8%B3%D9%84%D8%A7%D9%85", true},
		{"ftp://x", false},
		{"ftp://example.com/file", false},
		{"/relative", false},
		{"relative/path", false},
		{"example.com", false},
		{"//example.com/x", false},
		{"javascript:alert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"mailto:a@example.com", false},
		{"http://", false},
		{"https://", false},
		{"http:// x", false},
		{"http://exa mple.com", false},
		{"http://example.com/a b", false},
		{"http://example.com/\x00", false},
		{"http://example.com/\t", false},
		{"http://example.com/\x7f", false},
		{"https://user:pw@host", false},
		{"https://user@host", false},
		{"https:example.com", false},
		{"http:/example.com", false},
		{"http://[::1", false},
		{"", false},
		{" https://example.com", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			t.Parallel()
			if got := survey.ValidHTTPURL(tt.in); got != tt.want {
				t.Errorf("ValidHTTPURL(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestLayoutContentBound: sizes add up under MaxSurveyContent; growth past
// it is refused, shrinking and removing never are; clones do not share
// sizes.
func TestLayoutContentBound(t *testing.T) {
	var l survey.Layout
	half := survey.MaxSurveyContent / 2
	for id, size := range map[int64]int{1: half, 2: half} {
		if err := l.Resize(id, size); err != nil {
			t.Fatalf("Resize(%d, %d): %v", id, size, err)
		}
	}
	if l.Content() != survey.MaxSurveyContent {
		t.Fatalf("Content = %d", l.Content())
	}
	err := l.Resize(3, 1)
	if survey.ErrorCode(err) != survey.EINVALID || !strings.Contains(err.Error(), "3 MiB") {
		t.Errorf("a new element past the bound: %v", err)
	}
	if err := l.Resize(1, half+1); err == nil {
		t.Errorf("growing an element past the bound was accepted")
	}
	c := l.Clone()
	if err := c.Resize(1, 10); err != nil {
		t.Errorf("shrinking: %v", err)
	}
	if l.Sizes[1] != half {
		t.Errorf("the clone shares sizes with the original")
	}
	c.Remove(2)
	if c.Content() != 10 {
		t.Errorf("after shrinking 1 and removing 2: Content = %d, want 10", c.Content())
	}
	// Over the bound already (sizes kept before the bound existed): a write
	// that does not grow it is accepted.
	over := survey.Layout{Sizes: map[int64]int{1: survey.MaxSurveyContent + 5}}
	if err := over.Resize(1, survey.MaxSurveyContent+5); err != nil {
		t.Errorf("an unchanged size over the bound: %v", err)
	}
}
