package elements

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// FuzzAnswerFields feeds arbitrary bodies to the reader of the section-10
// fields, on create and on a PATCH of an element that has choices, rows and
// columns: no panic; a refusal is EINVALID with fields; an accepted body
// leaves an element that passes Validate, whose kept ids are its own.
func FuzzAnswerFields(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"name":"a"},{"id":11,"name":"b","alt_name":null,"image_url":"https://x.example/a"}]}`,
		`{"choices":[{"id":12,"name":"x"},{"id":12,"name":"y"}],"correct_choice":12}`,
		`{"choices":{"name":"a"},"rows":[],"columns":[1],"correct_choice":{"id":11}}`,
		`{"rows":[{"id":21,"name":"r"},{"name":"s"}],"columns":[{"id":31,"name":"c"}]}`,
		`{"scale_min":1,"scale_max":2,"left_label":"","right_label":null,"rating_max":3,"max_length":1}`,
		`{"allow_multiple_select":true,"min_selectable_choices":3,"max_selectable_choices":2}`,
		`{"choices":[{"name":"  "}, "x", null, {"name":"a","image_url":"ftp://x"}]}`,
		`{"correct_choice":"11","max_length":1e3,"scale_max":2.0}`,
		`{"max_file_size_mb":25,"allowed_file_types":["PDF",".png","pdf"," heic "]}`,
		`{"max_file_size_mb":"3","allowed_file_types":["tar.gz","",7,null,"\u0000"]}`,
		`{"allowed_file_types":[]}`,
	} {
		for _, typ := range []byte{2, 3, 4, 6, 7, 10, 11, 12} {
			f.Add([]byte(s), typ, true)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, typ byte, patch bool) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil {
			return
		}
		cur := survey.NewElement(survey.ElementType(typ%14 + 1))
		if patch {
			cur.Choices = []survey.ChoiceItem{{ID: 11, Name: "a", Order: 1}, {ID: 12, Name: "b", Order: 2}}
			cur.Rows, cur.Columns = []survey.NamedItem{{ID: 21, Name: "r"}}, []survey.NamedItem{{ID: 31, Name: "c"}}
			cur.ClearForeign()
		}
		form := api.NewForm(obj)
		a := readAnswerFields(form, !patch)
		e := cur
		e.Choices = append([]survey.ChoiceItem(nil), cur.Choices...)
		if form.Err() == nil {
			a.apply(form, &e)
		}
		if err := form.Err(); err != nil {
			var se *survey.Error
			if !errors.As(err, &se) || se.Code != survey.EINVALID || len(se.Fields) == 0 {
				t.Fatalf("refusal %v is not EINVALID with fields", err)
			}
			if _, err := json.Marshal(se.Fields); err != nil {
				t.Fatalf("errors do not encode: %v", err)
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("accepted element fails Validate: %v", err)
		}
		for _, ext := range e.AllowedFileTypes {
			if !survey.ValidFileType(ext) || ext != strings.ToLower(ext) {
				t.Fatalf("accepted file type %q", ext)
			}
		}
		if maxMB, _ := e.FileRules(); maxMB < survey.MinFileSizeMB || maxMB > survey.MaxFileSizeMB {
			t.Fatalf("max_file_size_mb %d", maxMB)
		}
		if len(e.Choices) > survey.MaxChoices || len(e.Rows) > survey.MaxMatrixItems || len(e.Columns) > survey.MaxMatrixItems {
			t.Fatalf("lists over their bounds: %d %d %d", len(e.Choices), len(e.Rows), len(e.Columns))
		}
		own := map[int64]bool{11: patch, 12: patch, 21: patch, 31: patch}
		seen := map[int64]bool{}
		check := func(id int64) {
			if id != 0 && (!own[id] || seen[id]) {
				t.Fatalf("id %d kept but not the element's own, or twice", id)
			}
			seen[id] = id != 0
		}
		for i, c := range e.Choices {
			check(c.ID)
			if c.Order != i+1 {
				t.Fatalf("choice %d has order %d", i, c.Order)
			}
		}
		for _, it := range append(append([]survey.NamedItem(nil), e.Rows...), e.Columns...) {
			check(it.ID)
		}
		if e.CorrectChoice != nil && (*e.CorrectChoice == 0 || !seen[*e.CorrectChoice]) {
			t.Fatalf("correct_choice %d is not a kept choice", *e.CorrectChoice)
		}
	})
}
