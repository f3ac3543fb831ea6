package folders_test

import (
	"testing"

	"surveyservice/functions/folders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestFolderLimit: past the account's limit of folders, a create answers
// 400 (contract section 3 as amended: an account-wide limit's 400) and writes nothing; a deleted folder makes room (docs/api.md, "Account
// limits"). The limit is lowered to 2 on a store of the test's own.
func TestFolderLimit(t *testing.T) {
	t.Parallel()
	st := store.New(testenv.Config(t), testenv.Store(t).TableName())
	st.Limits = survey.AccountLimits{LiveSurveys: 10, Folders: 2}
	a, key := testenv.NewAccount(t, survey.PlanFree)
	f := &fixture{h: testenv.Conform(folders.New(folders.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: clock})), st: st, acct: a, key: key}
	first := f.create(t, `{"name": "one"}`)
	f.create(t, `{"name": "two"}`)
	res := f.do("POST", "/api/folders/", `{"name": "three"}`)
	expect(t, "create past the limit", res, 400,
		`{"detail": "This account has reached its limit of 2 folders; delete some first."}`)
	t.Logf("create refused at the limit: %d DynamoDB calls", res.calls)
	if ls := f.list(t); len(ls) != 2 {
		t.Fatalf("a refused create wrote a folder: %d listed", len(ls))
	}
	if res := f.do("DELETE", folderPath(first.ID), ""); res.code != 204 {
		t.Fatalf("DELETE: %v", res)
	}
	f.create(t, `{"name": "three"}`)
	if c, err := st.AccountCounts(t.Context(), a.ID); err != nil || c.Folders != 2 {
		t.Fatalf("counts %+v, %v; want 2 folders", c, err)
	}
}
