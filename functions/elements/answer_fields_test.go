package elements

import (
	"encoding/json"
	"strconv"
	"testing"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// TestAnswerFields: the reader and apply on PATCHes of a stored element,
// without the store (the moto tests in choices_test.go cover the routes).
func TestAnswerFields(t *testing.T) {
	mc := survey.NewElement(survey.TypeMultipleChoice)
	mc.Choices = []survey.ChoiceItem{{ID: 11, Name: "a", Order: 1}, {ID: 12, Name: "b", Order: 2}}
	correct := int64(12)
	mc.CorrectChoice = &correct
	text := survey.NewElement(survey.TypeText)
	for _, tc := range []struct {
		name string
		el   survey.Element
		body string
		want string // the errors as JSON, or the element's choices and correct choice when accepted
	}{
		{"keep reorder add", mc, `{"choices":[{"id":12,"name":"b"},{"name":"c"},{"id":null,"name":"d"}]}`,
			`[{"id":12,"name":"b","alt_name":null,"image_url":null,"order":1},{"id":0,"name":"c","alt_name":null,"image_url":null,"order":2},{"id":0,` +
				`"name":"d","alt_name":null,"image_url":null,"order":3}] 12`},
		{"remove the correct one", mc, `{"choices":[{"id":11,"name":"a"}]}`,
			`[{"id":11,"name":"a","alt_name":null,"image_url":null,"order":1}] null`},
		{"correct as the read object", mc, `{"correct_choice":{"id":11,"name":"a","alt_name":null}}`,
			`[{"id":11,"name":"a","alt_name":null,"image_url":null,"order":1},{"id":12,"name":"b","alt_name":null,"image_url":null,"order":2}] 11`},
		{"foreign id", mc, `{"choices":[{"id":13,"name":"x"}]}`, `{"choices":[{"id":["Invalid pk \"13\" - object does not exist."]}]}`},
		{"empty list on its type", mc, `{"choices":[]}`, `{"choices":{"non_field_errors":["This list may not be empty."]}}`},
		{"empty list elsewhere is an echo", text, `{"choices":[],"rows":[],"scale_max":10,"correct_choice":null}`, `[] null`},
		{"a value elsewhere is refused", text, `{"scale_max":9,"rows":[{"name":"r"}]}`,
			`{"rows":["This field does not apply to elements of type 2 (text)."],"scale_max":["This field does not apply to elements of type 2 (text)."]}`},
		{"max above the kept choices", mc, `{"allow_multiple_select":true,"max_selectable_choices":3}`,
			`{"max_selectable_choices":["Ensure this value is less than or equal to the number of choices (2)."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.body), &obj); err != nil {
				t.Fatal(err)
			}
			form := api.NewForm(obj)
			a := readAnswerFields(form, false)
			e := tc.el
			e.Choices = append([]survey.ChoiceItem(nil), tc.el.Choices...)
			if form.Err() == nil {
				a.apply(form, &e)
			}
			var got string
			if fe := form.Fields(); fe != nil {
				b, _ := json.Marshal(fe)
				got = string(b)
			} else {
				b, _ := json.Marshal(e.View(survey.Layout{}).Choices)
				cc := "null"
				if e.CorrectChoice != nil {
					cc = strconv.FormatInt(*e.CorrectChoice, 10)
				}
				got = string(b) + " " + cc
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
