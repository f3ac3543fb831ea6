package responders

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// FuzzSubmitBody: a submission's body, whatever it is, is decoded and
// checked against a survey without a panic, and refused only with a
// client error: 400 for the body (EINVALID), or the survey's and the
// session's refusals. What is accepted has only answers to the survey's
// questions.
func FuzzSubmitBody(f *testing.F) {
	c, answers := fiftyQuestionCollection()
	good, err := json.Marshal(map[string]any{"session": "s", "answers": answers, "variables": map[string]any{"city": "Yazd", "age": 30}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"session":"s"}`))
	f.Add([]byte(`{"session":"s","answers":{"1001":"x"},"variables":{"is_unique":true}}`))
	f.Add([]byte(`{"session":1,"answers":[],"variables":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	sess := responding.Session{StartedAt: time.Now()}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeSubmit(body)
		if err == nil {
			var sub store.Submission
			if sub, err = submission(c, sess, req, time.Now()); err == nil {
				for id, a := range sub.Response.Answers {
					if _, ok := c.Elements[id]; !ok || !json.Valid(a) {
						t.Fatalf("body %q: accepted answer %s to %d", body, a, id)
					}
				}
				return
			}
		}
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID {
			t.Fatalf("body %q: %v, want a 400", body, err)
		}
	})
}
