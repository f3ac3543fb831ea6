package variables

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

var scanVars = []survey.Variable{{Name: "city", Type: survey.VariableString}, {Name: "age", Type: survey.VariableInteger}, {Name: "شهر", Type: survey.VariableString}}

// general is what the general path answers for a body.
func general(t *testing.T, body []byte) (any, error) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	values, present := obj["values"]
	return DecodeValues(values, present, scanVars)
}

// TestFastValuesAgrees: the fast path answers exactly what the general path
// answers, or steps aside.
func TestFastValuesAgrees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		fast bool
	}{
		{`{"values":[{"city":"Tehran","age":30}]}`, true},
		{` { "values" : [ { "age" : 1 , "city" : "x" , "is_unique" : true } , {} ] } `, true},
		{`{"values":[{"شهر":"تهران","age":-5e0}]}`, true},
		{`{"values":[{"city":1.5},{"city":true},{"city":false}]}`, true},
		{`{"values":[{"city":"a\"b"}]}`, false},        // an escape: general path
		{`{"values":[{"town":"x"}]}`, false},           // unknown variable: an error to word
		{`{"values":[{"age":"30"}]}`, false},           // wrong type: an error to word
		{`{"values":[{"city":{"a":1}}]}`, false},       // nested
		{`{"values":[]}`, false},                       // empty: an error
		{`{"other":1,"values":[{"city":"x"}]}`, false}, // another key
		{`{"values":[{"city":"x","city":"y"}]}`, false},
		{`{"values":[{"age":01}]}`, false},
		{`{"values":[{"city":"x"}],}`, false},
		{`{"values":[5]}`, false},
	}
	for _, tt := range tests {
		got, ok := fastValues([]byte(tt.body), scanVars)
		if ok != tt.fast {
			t.Errorf("%s: fast path taken = %v, want %v", tt.body, ok, tt.fast)
			continue
		}
		if !ok {
			continue
		}
		want, err := general(t, []byte(tt.body))
		if err != nil {
			t.Errorf("%s: fast path succeeded where the general path says %v", tt.body, err)
			continue
		}
		if !reflect.DeepEqual(any(got), want) {
			t.Errorf("%s: fast %+v, general %+v", tt.body, got, want)
		}
	}
}

// FuzzFastValues: on any body, the fast path either steps aside or answers
// exactly the general path's payloads; it never panics.
func FuzzFastValues(f *testing.F) {
	for _, s := range []string{
		`{"values":[{"city":"Tehran","age":30}]}`, `{"values":[{"city":"x","is_unique":false}]}`,
		`{"values":[{"شهر":"y","age":1e2}]}`, `{"values":[{"city":"\u0041"}]}`, `{"values":[{}]}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := fastValues(body, scanVars)
		if !ok {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("the fast path accepted invalid JSON %q", body)
		}
		want, err := general(t, body)
		if err != nil {
			t.Fatalf("%q: fast path succeeded where the general path says %v", body, err)
		}
		if !reflect.DeepEqual(any(got), want) {
			t.Fatalf("%q: fast %+v, general %+v", body, got, want)
		}
	})
}
