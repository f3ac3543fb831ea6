package survey_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

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
