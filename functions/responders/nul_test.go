package responders_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestNULRefused (contract section 3 amended): a NUL character in an
// answer, a partial's answer or a variable's value is a NUL in a string
// field: 400 on that field, "Null characters are not allowed.", and
// nothing is stored (the CSV never carries a raw NUL). A backslash and
// "u0000" typed as text are no NUL and are kept.
func TestNULRefused(t *testing.T) {
	t.Parallel()
	const nul = `["Null characters are not allowed."]`
	f := newFixture(t)
	slug, sid, req, opt := f.partialSurvey(t, nil)
	if _, err := f.st.CreateVariables(context.Background(), f.aid, sid, nil, 0, []survey.Variable{{Name: "city", Type: survey.VariableString}}); err != nil {
		t.Fatal(err)
	}
	rk, ok := strconv.FormatInt(req, 10), strconv.FormatInt(opt, 10)
	for _, tc := range []struct {
		name, path, method, body, want string
	}{
		{"answer", responsesPath(slug), "POST", `{"session":%q,"answers":{"` + rk + `":"Ann\u0000"}}`, `{"answers":{"` + rk + `":` + nul + `}}`},
		{"answer in a list", responsesPath(slug), "POST", `{"session":%q,"answers":{"` + rk + `":"Ann","` + ok + `":"a\\\u0000"}}`, `{"answers":{"` + ok + `":` + nul + `}}`},
		{"variable", responsesPath(slug), "POST", `{"session":%q,"answers":{"` + rk + `":"Ann"},"variables":{"city":"Tab\u0000riz"}}`, `{"variables":{"city":` + nul + `}}`},
		{"partial", partialPath(slug), "PUT", `{"session":%q,"page":0,"answers":{"` + rk + `":"\u0000"}}`, `{"answers":{"` + rk + `":` + nul + `}}`},
		{"partial variable", partialPath(slug), "PUT", `{"session":%q,"page":0,"variables":{"city":"\u0000"}}`, `{"variables":{"city":` + nul + `}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := f.session(t, slug, nil)
			r := send(t, f.h, tc.method, tc.path, fmt.Sprintf(tc.body, sess), "Content-Type", "application/json", "Idempotency-Key", newKey())
			if r.code != 400 || r.body != tc.want {
				t.Errorf("%d %s, want 400 %s", r.code, r.body, tc.want)
			}
		})
	}
	page, err := f.st.PartialsPage(context.Background(), sid, store.PartialQuery{})
	if err != nil || len(page.Partials) != 0 {
		t.Errorf("partials stored: %d (%v)", len(page.Partials), err)
	}
	if sv, err := f.st.Survey(context.Background(), f.aid, sid); err != nil || sv.SubmittedResponses != 0 {
		t.Errorf("responses stored: %d (%v)", sv.SubmittedResponses, err)
	}
	// A typed backslash-u-0000 is six characters of text, no NUL.
	sess := f.session(t, slug, nil)
	send(t, f.h, "POST", responsesPath(slug), fmt.Sprintf(`{"session":%q,"answers":{"`+rk+`":"\\u0000"}}`, sess), "Content-Type", "application/json", "Idempotency-Key", newKey()).submitted(t)
}
