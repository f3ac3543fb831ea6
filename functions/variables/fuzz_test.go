package variables_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"surveyservice/functions/variables"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// fuzzVars are the survey's variables in FuzzDecodeValues.
var fuzzVars = []survey.Variable{
	{ID: 1, Name: "city", Type: survey.VariableString},
	{ID: 2, Name: "age", Type: survey.VariableInteger},
}

// FuzzDecodeValues: the values decoder of untrusted input never panics; on
// success it answers one payload per item, with only the survey's
// variables (an integer for age); on failure a 400 (EINVALID).
func FuzzDecodeValues(f *testing.F) {
	for _, seed := range []string{
		`[{"city":"Tehran","age":30}]`,
		`[{"city":1.5,"is_unique":true},{}]`,
		`[{"age":2.0},{"age":-0},{"age":1e2}]`,
		`[{"age":9007199254740993},{"age":1e400},{"city":1e400}]`,
		`[{"city":"a","city":"b"}]`,
		`[{"town":"x"},{"age":"3"},{"city":null},{"city":{"a":1}},{"city":[1]}]`,
		`[{"is_unique":"yes"},{"is_unique":null},{"is_unique":false}]`,
		`[1, "x", null, [], true]`,
		`[]`, `null`, `{}`, `"x"`, ``, `[`, `[{]`, ` [ {"city" : "x" } ] `,
		`[{"city":"` + strings.Repeat("é", 501) + `"}]`,
		`[{"age":123456789012345678901234567890}]`,
		// Trailing data after the list: "[{}]0" was accepted (found by
		// fuzzing for 60 s).
		`[{}]0`, `[{}] [{}]`, `[{"city":"x"}]{}`, `[{}]]`, "[{}] \n\t",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		payloads, err := variables.DecodeValues(json.RawMessage(raw), true, fuzzVars)
		if err != nil {
			var e *survey.Error
			if !errors.As(err, &e) || e.Code != survey.EINVALID {
				t.Fatalf("DecodeValues(%q): error %T %v, want a *survey.Error with code EINVALID", raw, err, err)
			}
			if payloads != nil {
				t.Fatalf("DecodeValues(%q): payloads with an error", raw)
			}
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			t.Fatalf("DecodeValues(%q) accepted what is not a JSON list: %v", raw, err)
		}
		if len(payloads) != len(items) || len(items) == 0 || len(items) > maxLinks {
			t.Fatalf("DecodeValues(%q): %d payloads for %d items", raw, len(payloads), len(items))
		}
		for i, p := range payloads {
			seen := map[string]bool{}
			for _, v := range p.Values {
				if v.Name != "city" && v.Name != "age" {
					t.Fatalf("DecodeValues(%q): item %d has a value named %q", raw, i, v.Name)
				}
				if seen[v.Name] {
					t.Fatalf("DecodeValues(%q): item %d has %q twice", raw, i, v.Name)
				}
				seen[v.Name] = true
				if v.Name == "age" && v.Kind != links.KindInt {
					t.Fatalf("DecodeValues(%q): item %d has age of kind %d, want an integer", raw, i, v.Kind)
				}
			}
		}
	})
}
