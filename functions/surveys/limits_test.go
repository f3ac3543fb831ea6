package surveys_test

import (
	"fmt"
	"testing"
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestLiveSurveyLimit: past the account's limit of live surveys, a create
// and a restore answer 400 (contract section 3 as amended: an
// account-wide limit's 400) and change nothing; a survey moved to the trash
// makes room (docs/api.md, "Account limits"). The limit is lowered to 2 on a
// store of the test's own.
func TestLiveSurveyLimit(t *testing.T) {
	t.Parallel()
	st := store.New(testenv.Config(t), testenv.Store(t).TableName())
	st.Limits = survey.AccountLimits{LiveSurveys: 2, Folders: 10}
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	f := &fixture{st: st, h: testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now})), acct: acct, key: key}
	fid := folder(t, st, acct.ID, "Home")
	_, first := f.create(t, fid, "one")
	f.create(t, fid, "two")
	const refusal = `{"detail": "This account has reached its limit of 2 live surveys; move some to the trash first."}`
	r := f.do(t, "POST", listPath, fmt.Sprintf(`{"name":"three","folder_id":%d}`, fid))
	expect(t, "create past the limit", r, 400, refusal)
	t.Logf("create refused at the limit: %d DynamoDB calls", r.calls)
	if got := listed(t, st, acct.ID, fid); len(got) != 2 {
		t.Fatalf("a refused create wrote a survey: %v", got)
	}
	expect(t, "trash", f.do(t, "DELETE", detailPath(first), ""), 204, "")
	_, third := f.create(t, fid, "three")
	expect(t, "restore past the limit", f.do(t, "POST", restorePath(first), ""), 400, refusal)
	if d := f.get(t, first); d["deleted"] != true {
		t.Fatalf("a refused restore restored the survey: %v", d["deleted"])
	}
	expect(t, "trash", f.do(t, "DELETE", detailPath(third), ""), 204, "")
	expect(t, "restore under the limit", f.do(t, "POST", restorePath(first), ""), 200, "")
	if c, err := st.AccountCounts(t.Context(), acct.ID); err != nil || c.LiveSurveys != 2 {
		t.Fatalf("counts %+v, %v; want 2 live surveys", c, err)
	}
}
