package responders

import (
	"encoding/json"
	"errors"
	"testing"

	"surveyservice/shared/survey"
)

// FuzzPartialBody: a partial's body, whatever it is, is decoded without a
// panic and refused only with a 400 (EINVALID); what is accepted has a
// session, a page and objects of answers and variables.
func FuzzPartialBody(f *testing.F) {
	f.Add([]byte(`{"session":"s","page":0,"answers":{"1":"x"},"variables":{"city":"Yazd"}}`))
	f.Add([]byte(`{"session":"s","page":"1"}`))
	f.Add([]byte(`{"session":"s","page":1.5}`))
	f.Add([]byte(`{"session":"s","page":-1,"answers":null}`))
	f.Add([]byte(`{"page":99999999999999999999}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodePartial(body)
		if err == nil {
			if req.session == "" || req.answers == nil || req.variables == nil {
				t.Fatalf("body %q: accepted %+v", body, req)
			}
			for _, a := range req.answers {
				if !json.Valid(a) {
					t.Fatalf("body %q: accepted answer %s", body, a)
				}
			}
			return
		}
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID {
			t.Fatalf("body %q: %v, want a 400", body, err)
		}
	})
}
