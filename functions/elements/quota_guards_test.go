package elements_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"surveyservice/shared/survey"
)

// TestQuotaGuards: deleting a question that a quota's condition names,
// removing a choice it names, or changing the question's type answer 409
// as logic's guards do, and change nothing (contract section 25 names no
// answer; a quota left naming what is gone could never match again, and
// before, the delete answered 204). What no quota names may go, and once
// the quota is deleted, so may the question.
func TestQuotaGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sid, choice, a, b, _, _, _, _, text := conditionsSurvey(t, f)
	other := f.create(t, sid, `{"title":"D","type":10,"choices":[{"name":"x"},{"name":"y"}]}`)
	kept := int64(num(t, other["choices"].([]any)[0].(map[string]any)["id"]))
	// The text question's rules name choice a; the quota names b, and the
	// dropdown's first choice.
	expect(t, "clear rules", f.do(t, "PATCH", itemPath(sid, text), `{"conditions":[]}`), 200, "")
	q, err := f.st.CreateQuota(ctx, f.acct.ID, sid, survey.Quota{Name: "q", Limit: 5,
		Conditions: []survey.QuotaCondition{{Question: choice, Choices: []int64{b}}, {Question: idOf(t, other), Choices: []int64{kept}}}})
	if err != nil {
		t.Fatal(err)
	}
	used := func(kind string, n int64) string {
		return fmt.Sprintf(`{"detail":"%s %d is used by the conditions of quota %d."}`, kind, n, q.ID)
	}
	for _, tc := range []struct {
		name, method string
		eid          int64
		body, want   string
	}{
		{"Delete", "DELETE", choice, "", used("Element", choice)},
		{"DeleteOther", "DELETE", idOf(t, other), "", used("Element", idOf(t, other))},
		{"RemoveChoice", "PATCH", choice, fmt.Sprintf(`{"choices":[{"id":%d,"name":"a"}]}`, a), used("Choice", b)},
		{"ReplaceChoices", "PATCH", idOf(t, other), `{"choices":[{"name":"z"}]}`, used("Choice", kept)},
		{"ChangeType", "PATCH", choice, `{"type":10}`, used("Element", choice)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.state(t, sid)
			expect(t, tc.name, f.do(t, tc.method, itemPath(sid, tc.eid), tc.body), 409, tc.want)
			unchanged(t, tc.name, before, f.state(t, sid))
		})
	}
	// What the quota does not name may go: choice a, the text question.
	expect(t, "remove a", f.do(t, "PATCH", itemPath(sid, choice), fmt.Sprintf(`{"choices":[{"id":%d,"name":"b"}]}`, b)), 200, "")
	expect(t, "delete text", f.do(t, "DELETE", itemPath(sid, text), ""), 204, "")
	// Without the quota, nothing holds the question.
	if err := f.st.DeleteQuota(ctx, f.acct.ID, sid, q.ID); err != nil {
		t.Fatal(err)
	}
	expect(t, "delete now", f.do(t, "DELETE", itemPath(sid, choice), ""), 204, "")
	checkStored(t, f.state(t, sid))
}

// TestQuotaRacesDelete: a quota created while the question it names is
// deleted never outlives it: either the delete lands first and the quota
// is refused (400 on conditions), or the quota lands first and the
// delete is refused (409); never both written.
func TestQuotaRacesDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sid := f.newSurvey(t)
	for round := range 6 {
		c := f.create(t, sid, `{"title":"C","type":3,"choices":[{"name":"a"},{"name":"b"}]}`)
		choice := idOf(t, c)
		a := int64(num(t, c["choices"].([]any)[0].(map[string]any)["id"]))
		var wg sync.WaitGroup
		var del reply
		var qerr error
		wg.Add(2)
		go func() { defer wg.Done(); del = f.do(t, "DELETE", itemPath(sid, choice), "") }()
		go func() {
			defer wg.Done()
			_, qerr = f.st.CreateQuota(ctx, f.acct.ID, sid, survey.Quota{Name: "q", Limit: 5, Conditions: []survey.QuotaCondition{{Question: choice, Choices: []int64{a}}}})
		}()
		wg.Wait()
		switch {
		case del.code == 204 && survey.ErrorCode(qerr) == survey.EINVALID:
		case del.code == 409 && qerr == nil:
		default:
			t.Errorf("round %d: DELETE %d %s, quota %v", round, del.code, del.body, qerr)
		}
	}
}
