package main

import (
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestRecount: an account written before the counts existed (its count
// attributes removed here) is recounted from what it holds: its folders
// and live surveys, not the trash.
func TestRecount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	acct := e.createAccount(t, "--email", "recount@example.com", "--plan", "pro")
	fo, err := st.CreateFolder(ctx, acct.AccountID, "home", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sids []int64
	for range 3 {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.AccountID, FolderID: fo.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		sids = append(sids, sv.ID)
	}
	if err := st.TrashSurvey(ctx, acct.AccountID, sids[0]); err != nil {
		t.Fatal(err)
	}
	_, err = st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.table),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.AccountPK(acct.AccountID)},
			store.AttrSK: &types.AttributeValueMemberS{Value: "ACCOUNT"},
		},
		UpdateExpression: aws.String("REMOVE live_surveys, folders"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		AccountID int64               `json:"account_id"`
		B         store.AccountCounts `json:"before"`
		A         store.AccountCounts `json:"after"`
	}
	e.run(t, "recount", "--account", strconv.FormatInt(acct.AccountID, 10)).ok(t, &out, "account_id", "before", "after")
	if out.AccountID != acct.AccountID || out.B != (store.AccountCounts{}) || out.A != (store.AccountCounts{LiveSurveys: 2, Folders: 1}) {
		t.Errorf("recount answered %+v", out)
	}
	if c, err := st.AccountCounts(ctx, acct.AccountID); err != nil || c != out.A {
		t.Errorf("counts after recount %+v, %v", c, err)
	}
	e.run(t, "recount", "--account", "2147483000").fails(t, 1, "no account has id 2147483000")
}
