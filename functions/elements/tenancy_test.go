package elements_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestTrash: writes under a survey in the trash answer 409 and change
// nothing; reads still answer.
func TestTrash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	q := f.add(t, sid, 2, "")
	g := f.add(t, sid, 8, "")
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, sid); err != nil {
		t.Fatal(err)
	}
	before := f.state(t, sid)
	writes := []struct{ method, path, body string }{
		{"POST", listPath(sid), `{"title":"E","type":2}`},
		{"POST", listPath(sid), fmt.Sprintf(`{"title":"E","type":2,"prior_question":%d,"related_group":%d}`, q, g)},
		{"POST", listPath(sid), `{"title":"E","type":9}`},
		{"PATCH", itemPath(sid, q), `{"title":"Changed"}`},
		{"PATCH", itemPath(sid, q), `{}`},
		{"PATCH", itemPath(sid, q), fmt.Sprintf(`{"related_group":%d}`, g)},
		{"DELETE", itemPath(sid, q), ""},
		{"DELETE", itemPath(sid, g), ""},
	}
	for _, w := range writes {
		expect(t, w.method+" "+w.body+" in the trash", f.do(t, w.method, w.path, w.body), 409, deleted)
	}
	unchanged(t, "writes in the trash", before, f.state(t, sid))
	if r := f.do(t, "GET", itemPath(sid, q), ""); r.code != 200 {
		t.Errorf("GET one in the trash: %d %s", r.code, r.body)
	}
	r := f.do(t, "GET", listPath(sid), "")
	if r.code != 200 {
		t.Errorf("GET list in the trash: %d %s", r.code, r.body)
	}
	var items []any
	if err := json.Unmarshal(r.body, &items); err != nil || len(items) != 2 {
		t.Errorf("list in the trash: %s", r.body)
	}
	// Validation still comes first.
	expect(t, "invalid POST in the trash", f.do(t, "POST", listPath(sid), `{"type":2}`), 400, fieldErr("title", required))
	// Restored, it is writable again.
	if err := f.st.RestoreSurvey(t.Context(), f.acct.ID, sid, nil); err != nil {
		t.Fatal(err)
	}
	if r := f.do(t, "POST", listPath(sid), `{"title":"E","type":2}`); r.code != 201 {
		t.Errorf("POST after restore: %d %s", r.code, r.body)
	}
}

// TestTenancy: another account's survey and elements answer 404 on every
// route and are never changed; ids in the path that cannot exist answer 404
// without a read.
func TestTenancy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mine := f.newSurvey(t)
	myQ := f.add(t, mine, 2, "")
	theirs := &fixture{st: f.st, h: f.h}
	theirs.acct, theirs.key = testenv.NewAccount(t, survey.PlanPro)
	fo, err := f.st.CreateFolder(t.Context(), theirs.acct.ID, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs.fid = fo.ID
	foreign := theirs.newSurvey(t)
	theirQ := theirs.add(t, foreign, 2, "")
	theirG := theirs.add(t, foreign, 8, "")
	beforeTheirs := theirs.state(t, foreign)
	beforeMine := f.state(t, mine)

	routes := []struct{ method, path, body string }{
		{"GET", listPath(foreign), ""},
		{"POST", listPath(foreign), `{"title":"E","type":2}`},
		{"GET", itemPath(foreign, theirQ), ""},
		{"PATCH", itemPath(foreign, theirQ), `{"title":"Mine now"}`},
		{"DELETE", itemPath(foreign, theirQ), ""},
		{"GET", itemPath(mine, theirQ), ""},
		{"PATCH", itemPath(mine, theirQ), `{"title":"Mine now"}`},
		{"DELETE", itemPath(mine, theirQ), ""},
		{"GET", itemPath(foreign, myQ), ""},
		{"PATCH", itemPath(foreign, myQ), `{"title":"x"}`},
		{"DELETE", itemPath(foreign, myQ), ""},
		{"GET", listPath(missingID), ""},
		{"POST", listPath(missingID), `{"title":"E","type":2}`},
		{"GET", itemPath(missingID, myQ), ""},
		{"PATCH", itemPath(missingID, myQ), `{"title":"x"}`},
		{"DELETE", itemPath(missingID, myQ), ""},
	}
	for _, r := range routes {
		expect(t, r.method+" "+r.path, f.do(t, r.method, r.path, r.body), 404, notFound)
	}
	// The other way round: their key on my survey.
	for _, r := range []struct{ method, path, body string }{
		{"GET", listPath(mine), ""}, {"POST", listPath(mine), `{"title":"E","type":2}`},
		{"GET", itemPath(mine, myQ), ""}, {"PATCH", itemPath(mine, myQ), `{"title":"x"}`}, {"DELETE", itemPath(mine, myQ), ""},
	} {
		expect(t, "their key: "+r.method+" "+r.path, theirs.do(t, r.method, r.path, r.body), 404, notFound)
	}
	// References to their elements from my survey.
	expect(t, "prior_question of theirs", f.do(t, "POST", listPath(mine), fmt.Sprintf(`{"title":"E","type":2,"prior_question":%d}`, theirQ)), 400,
		fieldErr("prior_question", invalidPK(theirQ)))
	expect(t, "related_group of theirs", f.do(t, "POST", listPath(mine), fmt.Sprintf(`{"title":"E","type":2,"related_group":%d}`, theirG)), 400,
		fieldErr("related_group", invalidPK(theirG)))
	expect(t, "PATCH into their group", f.do(t, "PATCH", itemPath(mine, myQ), fmt.Sprintf(`{"related_group":%d}`, theirG)), 400,
		fieldErr("related_group", invalidPK(theirG)))
	unchanged(t, "another account's requests", beforeTheirs, theirs.state(t, foreign))
	unchanged(t, "refused requests", beforeMine, f.state(t, mine))

	t.Run("path ids that cannot exist", func(t *testing.T) {
		for _, bad := range []string{"abc", "0", "-1", "99999999999", "2147483648", "1.5", "1e3"} {
			for _, r := range []struct{ method, path, body string }{
				{"GET", listPath(bad), ""}, {"POST", listPath(bad), `{"title":"E","type":2}`},
				{"GET", itemPath(bad, myQ), ""}, {"PATCH", itemPath(bad, myQ), `{"title":"x"}`}, {"DELETE", itemPath(bad, myQ), ""},
				{"GET", itemPath(mine, bad), ""}, {"PATCH", itemPath(mine, bad), `{"title":"x"}`}, {"DELETE", itemPath(mine, bad), ""},
			} {
				got := f.do(t, r.method, r.path, r.body)
				expect(t, r.method+" "+r.path, got, 404, notFound)
				if got.calls != 0 {
					t.Errorf("%s %s: %d DynamoDB calls, want none", r.method, r.path, got.calls)
				}
			}
		}
		unchanged(t, "bad paths", beforeMine, f.state(t, mine))
	})
}
