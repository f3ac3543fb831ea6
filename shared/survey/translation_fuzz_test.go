package survey_test

import (
	"encoding/json"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// FuzzDecodeTranslation: any body decodes without panic into texts of
// the survey's own elements and items only, none with a NUL character
// (contract section 3), or a 400.
func FuzzDecodeTranslation(f *testing.F) {
	left := "bad"
	elements := map[int64]survey.Element{
		7: {ID: 7, Type: survey.TypeMultipleChoice, Title: "Which?", Choices: []survey.ChoiceItem{{ID: 70, Name: "Tea"}}},
		8: {ID: 8, Type: survey.TypeMatrix, Rows: []survey.NamedItem{{ID: 80, Name: "Taste"}}, Columns: []survey.NamedItem{{ID: 81, Name: "Fine"}}},
		9: {ID: 9, Type: survey.TypeOpinionScale, LeftLabel: &left},
	}
	for _, s := range []string{`{}`, `{"survey":{"name":"x"}}`, `{"elements":{"7":{"title":"t","choices":{"70":"c"}}}}`,
		`{"elements":{"7":{"choices":{"80":"x"}}}}`, `{"elements":{"8":{"rows":{"80":"r"},"columns":{"81":null}},"9":{"left_label":"l","stale":["x"]}}}`,
		`{"elements":{"x":1}}`, `{"elements":null,"survey":null}`, `{"other":1}`, `{"elements":{"8":{"rows":{"80":"a\u0000"}}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &raw) != nil {
			return
		}
		tr, err := survey.DecodeTranslation(raw, "Name", elements)
		if err != nil {
			if survey.ErrorCode(err) != survey.EINVALID {
				t.Fatalf("%s: %v", body, err)
			}
			return
		}
		if tr.Name != nil && strings.ContainsRune(tr.Name.V, 0) {
			t.Fatalf("%s: a name with a NUL", body)
		}
		for id, et := range tr.Elements {
			for _, texts := range []map[int64]survey.Text{et.Choices, et.Rows, et.Columns} {
				for _, tx := range texts {
					if strings.ContainsRune(tx.V, 0) {
						t.Fatalf("%s: an item's text with a NUL", body)
					}
				}
			}
			for _, tx := range et.Fields {
				if strings.ContainsRune(tx.V, 0) {
					t.Fatalf("%s: a text with a NUL", body)
				}
			}
			e, ok := elements[id]
			if !ok {
				t.Fatalf("%s: texts of unknown element %d", body, id)
			}
			for cid := range et.Choices {
				if _, ok := e.Choice(cid); !ok {
					t.Fatalf("%s: text of unknown choice %d", body, cid)
				}
			}
		}
		view := survey.TranslationView(tr, "Name", elements)
		if _, err := json.Marshal(view); err != nil {
			t.Fatal(err)
		}
	})
}
