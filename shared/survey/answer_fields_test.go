package survey_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

// fieldsOf returns the Fields of an EINVALID error, as JSON for comparison.
func fieldsOf(t *testing.T, err error) string {
	t.Helper()
	var e *survey.Error
	if !errors.As(err, &e) || e.Code != survey.EINVALID {
		t.Fatalf("error %v, want EINVALID", err)
	}
	b, _ := json.Marshal(e.Fields)
	return string(b)
}

func TestTakes(t *testing.T) {
	for _, tc := range []struct {
		field string
		types []survey.ElementType
	}{
		{"choices", []survey.ElementType{3, 4, 5, 10}},
		{"allow_multiple_select", []survey.ElementType{3, 4}},
		{"min_selectable_choices", []survey.ElementType{3, 4}},
		{"max_selectable_choices", []survey.ElementType{3, 4}},
		{"correct_choice", []survey.ElementType{3, 4, 10}},
		{"rows", []survey.ElementType{12}},
		{"columns", []survey.ElementType{12}},
		{"scale_min", []survey.ElementType{6}},
		{"scale_max", []survey.ElementType{6}},
		{"left_label", []survey.ElementType{6}},
		{"right_label", []survey.ElementType{6}},
		{"rating_max", []survey.ElementType{7}},
		{"max_length", []survey.ElementType{2}},
		{"title", []survey.ElementType{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	} {
		for ty := survey.ElementType(1); ty <= 13; ty++ {
			want := false
			for _, w := range tc.types {
				want = want || w == ty
			}
			if got := ty.Takes(tc.field); got != want {
				t.Errorf("type %d Takes(%q) = %v, want %v", ty, tc.field, got, want)
			}
		}
	}
}

func TestClearForeign(t *testing.T) {
	e := *byType(quiz(), survey.TypeMultipleChoice)
	e.AllowMultipleSelect, e.MinSelectableChoices, e.MaxSelectableChoices = true, 1, 2
	e.CorrectChoice = ptr[int64](101)
	e.Rows = []survey.NamedItem{{ID: 1, Name: "r"}}
	e.ScaleMin, e.ScaleMax, e.LeftLabel, e.RatingMax, e.MaxLength = 1, 3, ptr("l"), 9, 7
	t.Run("ToDropdown", func(t *testing.T) {
		d := e
		d.Type = survey.TypeDropdown
		d.ClearForeign()
		if len(d.Choices) != 3 || d.CorrectChoice == nil || d.AllowMultipleSelect || d.MinSelectableChoices != 0 ||
			d.MaxSelectableChoices != 0 || d.Rows != nil || d.ScaleMin != 0 || d.ScaleMax != 10 || d.LeftLabel != nil ||
			d.RatingMax != 5 || d.MaxLength != 5000 {
			t.Fatalf("dropdown kept foreign fields or lost its own: %+v", d)
		}
	})
	t.Run("ToText", func(t *testing.T) {
		d := e
		d.Type = survey.TypeText
		d.ClearForeign()
		if d.Choices != nil || d.CorrectChoice != nil || d.MaxLength != 7 {
			t.Fatalf("text: %+v", d)
		}
	})
	t.Run("ToRanking", func(t *testing.T) {
		d := e
		d.Type = survey.TypeRanking
		d.ClearForeign()
		if len(d.Choices) != 3 || d.CorrectChoice != nil {
			t.Fatalf("ranking: %+v", d)
		}
	})
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    survey.ElementType
		edit func(e *survey.Element)
		want string // JSON of the fields; "" for valid
	}{
		{"Valid", 3, func(e *survey.Element) {
			e.AllowMultipleSelect, e.MinSelectableChoices, e.MaxSelectableChoices = true, 1, 3
			e.CorrectChoice = ptr[int64](103)
		}, ""},
		{"NoChoices", 3, func(e *survey.Element) { e.Choices = nil }, ""},
		{"ForeignFieldsNotChecked", 2, func(e *survey.Element) {
			e.MaxSelectableChoices, e.MinSelectableChoices, e.CorrectChoice = 2, 3, ptr[int64](5) // as an older version stored them
		}, ""},
		{"MinWithoutMax", 3, func(e *survey.Element) { e.MinSelectableChoices = 3 }, ""},
		{"NameRepeated", 3, func(e *survey.Element) { e.Choices[2].Name = "Red" },
			`{"choices":[{},{},{"name":["The names must be unique within the element."]}]}`},
		{"ImageRequiredOnPicture", 4, func(e *survey.Element) { e.Choices[1].ImageURL = ptr("https://x.example/a.png") },
			`{"choices":[{"image_url":["This field is required."]},{},{"image_url":["This field is required."]}]}`},
		{"MinAboveMax", 3, func(e *survey.Element) { e.MinSelectableChoices, e.MaxSelectableChoices = 3, 2 },
			`{"min_selectable_choices":["Ensure this value is less than or equal to max_selectable_choices (2)."]}`},
		{"MaxAboveChoices", 3, func(e *survey.Element) { e.MaxSelectableChoices = 4 },
			`{"max_selectable_choices":["Ensure this value is less than or equal to the number of choices (3)."]}`},
		{"CorrectNotAChoice", 10, func(e *survey.Element) { e.CorrectChoice = ptr[int64](201) },
			`{"correct_choice":["Invalid pk \"201\" - object does not exist."]}`},
		{"RowAndColumnNames", 12, func(e *survey.Element) {
			e.Rows = append(e.Rows, survey.NamedItem{ID: 203, Name: "Tea"})
			e.Columns = append(e.Columns, survey.NamedItem{ID: 303, Name: "Like"})
		}, `{"columns":[{},{},{"name":["The names must be unique within the element."]}],"rows":[{},{},{"name":["The names must be unique within the element."]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := *byType(quiz(), tc.t)
			e.Choices = append([]survey.ChoiceItem(nil), e.Choices...)
			tc.edit(&e)
			err := e.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if got := fieldsOf(t, err); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestReplaceChoices(t *testing.T) {
	base := func() survey.Element {
		e := *byType(quiz(), survey.TypeMultipleChoice)
		e.CorrectChoice = ptr[int64](102)
		return e
	}
	t.Run("KeepAddRemove", func(t *testing.T) {
		e := base()
		err := e.ReplaceChoices([]survey.ChoiceItem{{ID: 103, Name: "Blue!"}, {Name: "New"}, {ID: 102, Name: "Green"}})
		if err != nil {
			t.Fatal(err)
		}
		want := []survey.ChoiceItem{{ID: 103, Name: "Blue!", Order: 1}, {Name: "New", Order: 2}, {ID: 102, Name: "Green", Order: 3}}
		if !reflect.DeepEqual(e.Choices, want) {
			t.Fatalf("choices %+v, want %+v", e.Choices, want)
		}
		if e.CorrectChoice == nil || *e.CorrectChoice != 102 {
			t.Fatalf("correct choice %v, want kept", e.CorrectChoice)
		}
		if n := e.NewItemIDs(); n != 1 {
			t.Fatalf("NewItemIDs = %d", n)
		}
		e.AssignItemIDs([]int64{900})
		if e.Choices[1].ID != 900 || e.NewItemIDs() != 0 {
			t.Fatalf("after AssignItemIDs: %+v", e.Choices)
		}
	})
	t.Run("CorrectRemoved", func(t *testing.T) {
		e := base()
		if err := e.ReplaceChoices([]survey.ChoiceItem{{ID: 101, Name: "Red"}}); err != nil {
			t.Fatal(err)
		}
		if e.CorrectChoice != nil {
			t.Fatalf("correct choice %d survives its choice", *e.CorrectChoice)
		}
	})
	t.Run("ForeignAndRepeatedIDs", func(t *testing.T) {
		e := base()
		err := e.ReplaceChoices([]survey.ChoiceItem{{ID: 101, Name: "a"}, {ID: 555, Name: "b"}, {ID: 101, Name: "c"}, {Name: "d"}})
		want := `{"choices":[{},{"id":["Invalid pk \"555\" - object does not exist."]},{"id":["Each id may appear only once."]},{}]}`
		if got := fieldsOf(t, err); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
		if !reflect.DeepEqual(e, base()) {
			t.Fatal("a refused replacement changed the element")
		}
	})
	t.Run("Named", func(t *testing.T) {
		e := *byType(quiz(), survey.TypeMatrix)
		if err := e.ReplaceNamed("columns", []survey.NamedItem{{Name: "Meh"}, {ID: 302, Name: "No"}}); err != nil {
			t.Fatal(err)
		}
		if want := []survey.NamedItem{{Name: "Meh"}, {ID: 302, Name: "No"}}; !reflect.DeepEqual(e.Columns, want) {
			t.Fatalf("columns %+v", e.Columns)
		}
		err := e.ReplaceNamed("rows", []survey.NamedItem{{ID: 302, Name: "a column's id"}})
		if got, want := fieldsOf(t, err), `{"rows":[{"id":["Invalid pk \"302\" - object does not exist."]}]}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		e.AssignItemIDs([]int64{7})
		if e.Columns[0].ID != 7 {
			t.Fatalf("column id %d", e.Columns[0].ID)
		}
	})
}

func TestLayoutSetSize(t *testing.T) {
	var l survey.Layout
	if err := l.SetSize(1, survey.MaxElementBytes+1); err == nil {
		t.Fatal("an element over the bound was accepted")
	}
	for id := int64(1); id <= 16; id++ {
		if err := l.SetSize(id, survey.MaxSurveyContent/16); err != nil {
			t.Fatalf("element %d: %v", id, err)
		}
	}
	if err := l.SetSize(17, 1); err == nil {
		t.Fatal("the survey grew over its bound")
	} else if got := fieldsOf(t, err); got != `{"non_field_errors":["`+survey.MsgSurveyTooLarge+`"]}` {
		t.Fatalf("error %s", got)
	}
	if err := l.SetSize(3, 10); err != nil {
		t.Fatalf("shrinking refused: %v", err)
	}
	c := l.Clone()
	c.Remove(4)
	if l.Sizes[4] == 0 || c.Sizes[4] != 0 {
		t.Fatal("Clone shares sizes, or Remove kept one")
	}
	if err := c.SetSize(17, 100); err != nil {
		t.Fatalf("room made by a removal: %v", err)
	}
}

func TestQuestionElements(t *testing.T) {
	l := survey.Layout{Questions: []int64{1, 3, 2, 4}, Groups: []int64{2}, Members: map[int64]int64{3: 2}}
	els := map[int64]survey.Element{1: {ID: 1}, 2: {ID: 2, Type: survey.TypeGroup}, 3: {ID: 3}}
	var got []int64
	for _, e := range l.QuestionElements(els) {
		got = append(got, e.ID)
	}
	if want := []int64{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
