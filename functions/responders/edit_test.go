package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"surveyservice/internal/testenv"
	"testing"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func editPath(slug string, id int64) string {
	return fmt.Sprintf("/api/public/surveys/%s/responses/%d/", slug, id)
}

// editAnswer is a 201 or an edit's 200 body.
type editAnswer struct {
	ID          int64  `json:"id"`
	SubmittedAt string `json:"submitted_at"`
	EditToken   string `json:"edit_token"`
	EditedAt    string `json:"edited_at"`
}

// TestEditResponse: with edit_response_enabled the 201 carries an edit
// token; PUT with it replaces the answers in one transaction that moves
// the report's counts, sets edited_at, and keeps submitted_at and the
// count; every refusal answers as the contract says and changes nothing.
func TestEditResponse(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"edit_response_enabled": true})
	q := f.choiceQuestion(t, sid, survey.TypeDropdown, -1, "Tea", "Coffee")
	tea, coffee := q.Choices[0].ID, q.Choices[1].ID
	r := f.respond(t, slug, f.session(t, slug, nil), map[string]any{fmt.Sprint(q.ID): tea})
	var sub editAnswer
	if err := json.Unmarshal([]byte(r.body), &sub); err != nil || r.code != 201 || sub.EditToken == "" {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	counts := func() (int64, int64, int64) {
		testenv.Tally(t) // the report's counts come from the stream
		agg, err := f.st.Aggregates(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		return agg.Responses, agg.Choices[q.ID][tea], agg.Choices[q.ID][coffee]
	}
	if n, a, b := counts(); n != 1 || a != 1 || b != 0 {
		t.Fatalf("report before: %d %d %d", n, a, b)
	}
	put := func(id int64, body map[string]any) reply {
		return send(t, f.h, "PUT", editPath(slug, id), mustJSON(t, body), js...)
	}
	answer := map[string]any{fmt.Sprint(q.ID): coffee}

	put(sub.ID, map[string]any{"edit_token": "garbage", "answers": answer}).is(t, 403, `{"detail":"Invalid edit token."}`)
	put(sub.ID+1, map[string]any{"edit_token": sub.EditToken, "answers": answer}).is(t, 403, `{"detail":"Invalid edit token."}`)
	put(sub.ID, map[string]any{"answers": answer}).is(t, 400, `{"edit_token":["This field is required."]}`)
	// A session, when sent, is one of this survey's.
	other, _ := f.survey(t, nil)
	for _, s := range []string{f.session(t, other, nil), "garbage"} {
		put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": answer, "session": s}).is(t, 400, `{"session":["Invalid session."]}`)
	}
	put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": map[string]any{fmt.Sprint(q.ID): 1}}).is(t, 400,
		fmt.Sprintf(`{"answers":{"%d":["Invalid pk \"1\" - object does not exist."]}}`, q.ID))
	if n, a, b := counts(); n != 1 || a != 1 || b != 0 {
		t.Fatalf("report after refusals: %d %d %d", n, a, b)
	}

	r = put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": answer})
	var ed editAnswer
	if err := json.Unmarshal([]byte(r.body), &ed); err != nil || r.code != 200 || ed.SubmittedAt != sub.SubmittedAt || ed.EditedAt == "" || ed.ID != sub.ID {
		t.Fatalf("edit: %d %s", r.code, r.body)
	}
	if n, a, b := counts(); n != 1 || a != 0 || b != 1 {
		t.Errorf("report after the edit: %d responses, tea %d, coffee %d; want 1, 0, 1", n, a, b)
	}
	f.wantStored(t, "after the edit", sid, 1)
	got, err := f.st.Response(ctx, f.aid, sid, sub.ID)
	if err != nil || string(got.Answers[q.ID]) != fmt.Sprint(coffee) || got.EditedAt.IsZero() {
		t.Errorf("stored %+v, %v", got, err)
	}
	// The same edit again: the same answers, the counts unmoved.
	if r := put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": answer}); r.code != 200 {
		t.Errorf("again: %d %s", r.code, r.body)
	}
	if n, a, b := counts(); n != 1 || a != 0 || b != 1 {
		t.Errorf("report after the edit again: %d %d %d", n, a, b)
	}

	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"edit_response_enabled": false}}); err != nil {
		t.Fatal(err)
	}
	put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": answer}).is(t, 403, `{"detail":"Editing responses is not enabled for this survey."}`)
	stop := true
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"edit_response_enabled": true}, IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	put(sub.ID, map[string]any{"edit_token": sub.EditToken, "answers": answer}).is(t, 410, `{"detail":"This survey is closed."}`)

	// No token where editing is off.
	plain, _ := f.survey(t, nil)
	if r := f.respond(t, plain, f.session(t, plain, nil), nil); r.code != 201 || strings.Contains(r.body, "edit_token") {
		t.Errorf("a survey without editing: %d %s", r.code, r.body)
	}
}

// TestEditMovesQuotaPlaces (contract sections 16 and 25: a quota is exact,
// "never one response more"): an edit takes a place of each quota its new
// answers match and gives back those they no longer match, in its own
// transaction. With a quota of 1 on A, full by a response of A, a response
// of B edited to A answers 410 "full for answers like yours" and is left
// as it was (before: 200, and two responses matched the quota of 1);
// the A response edited to B gives its place back (before: kept, the
// quota full with no response of A), and then the B response's edit to A
// takes it. The quota counts 1 all along.
func TestEditMovesQuotaPlaces(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"edit_response_enabled": true})
	q := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, -1, "A", "B")
	a, b := q.Choices[0].ID, q.Choices[1].ID
	quota, err := f.st.CreateQuota(ctx, f.aid, sid, survey.Quota{Name: "A", Limit: 1,
		Conditions: []survey.QuotaCondition{{Question: q.ID, Choices: []int64{a}}}})
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprint(q.ID)
	submit := func(choice int64) editAnswer {
		t.Helper()
		r := f.respond(t, slug, f.session(t, slug, nil), map[string]any{key: []int64{choice}})
		var sub editAnswer
		if err := json.Unmarshal([]byte(r.body), &sub); err != nil || r.code != 201 || sub.EditToken == "" {
			t.Fatalf("submit %d: %d %s", choice, r.code, r.body)
		}
		return sub
	}
	edit := func(sub editAnswer, choice int64) reply {
		return send(t, f.h, "PUT", editPath(slug, sub.ID), mustJSON(t, map[string]any{"edit_token": sub.EditToken,
			"answers": map[string]any{key: []int64{choice}}}), js...)
	}
	counted := func(what string) {
		t.Helper()
		qs, err := f.st.WithQuotaCounts(ctx, sid, []survey.Quota{quota})
		if err != nil {
			t.Fatal(err)
		}
		if qs[0].Count != 1 {
			t.Errorf("%s: the quota counts %d, want 1", what, qs[0].Count)
		}
	}
	chose := func(what string, id, want int64) {
		t.Helper()
		r, err := f.st.ResponseOfSurvey(ctx, sid, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(r.Answers[q.ID]); got != fmt.Sprintf("[%d]", want) {
			t.Errorf("%s: response %d answers %s, want [%d]", what, id, got, want)
		}
	}
	first, second := submit(a), submit(b)
	counted("A and B recorded")
	edit(second, a).is(t, 410, quotaFullBody)
	chose("B edited into the full quota", second.ID, b)
	counted("B refused into the full quota")
	if r := edit(first, b); r.code != 200 {
		t.Fatalf("A edited to B: %d %s", r.code, r.body)
	}
	qs, err := f.st.WithQuotaCounts(ctx, sid, []survey.Quota{quota})
	if err != nil || qs[0].Count != 0 {
		t.Fatalf("A edited to B: the quota counts %v (%v), want 0", qs, err)
	}
	if r := edit(second, a); r.code != 200 {
		t.Fatalf("B edited to A, the quota's place free: %d %s", r.code, r.body)
	}
	chose("B edited to A", second.ID, a)
	counted("B edited to A")
	edit(first, a).is(t, 410, quotaFullBody)
	chose("the first edited back to A, the quota full", first.ID, b)
	f.wantStored(t, "edits", sid, 2)
}
