package survey_test

import (
	"errors"
	"reflect"
	"slices"
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
