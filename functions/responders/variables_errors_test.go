package responders_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"surveyservice/shared/survey"
)

// TestVariableErrorsAllAtOnce (contract sections 8 and 11): a submission's
// or a partial's variables are checked by section 8's rules and every
// problem is reported in one 400: a value sent for a variable whose values
// come from personalised links only did not hide the unknown name and the
// integer variable's string sent beside it (the client fixed one and met
// the next), and nothing is stored.
func TestVariableErrorsAllAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid, req, _ := f.partialSurvey(t, nil)
	vars := []survey.Variable{
		{Name: "age", Type: survey.VariableInteger},
		{Name: "ref", Type: survey.VariableString, VariableSource: survey.SourceLinks},
	}
	if _, err := f.st.CreateVariables(context.Background(), f.aid, sid, nil, 0, vars); err != nil {
		t.Fatal(err)
	}
	rk := strconv.FormatInt(req, 10)
	const want = `{"answers":{"%s":["This question requires an answer."]},"variables":{"age":["A valid integer is required."],` +
		`"nope":["Unknown variable."],"ref":["This variable takes its value from personalised links only."]}}`
	for _, tc := range []struct {
		name, path, method, body, want string
	}{
		{"submission", responsesPath(slug), "POST", `{"session":%q,"answers":{},"variables":{"ref":"x","age":"old","nope":1}}`, fmt.Sprintf(want, rk)},
		{"partial", partialPath(slug), "PUT", `{"session":%q,"page":0,"variables":{"ref":"x","age":"old","nope":1}}`,
			`{"variables":{"age":["A valid integer is required."],"nope":["Unknown variable."],` +
				`"ref":["This variable takes its value from personalised links only."]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := f.session(t, slug, nil)
			r := send(t, f.h, tc.method, tc.path, fmt.Sprintf(tc.body, sess), "Content-Type", "application/json", "Idempotency-Key", newKey())
			if r.code != 400 || r.body != tc.want {
				t.Errorf("%d %s, want 400 %s", r.code, r.body, tc.want)
			}
		})
	}
	f.wantStored(t, "after the refusals", sid, 0)
}
