package main

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestReportsBackfill: a survey without its report item (created before
// they existed) gets it; one with it is left alone; a second run writes
// nothing.
func TestReportsBackfill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	if err := localaws.EnsureTable(t.Context(), st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(t.Context(), survey.Account{Email: "reports@example.com", Plan: survey.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	f, err := st.CreateFolder(t.Context(), a.ID, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	svs := make([]survey.Survey, 2)
	for i := range svs {
		if svs[i], err = st.CreateSurvey(t.Context(), survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()}); err != nil {
			t.Fatal(err)
		}
	}
	// The first survey as an older one: no report item.
	if _, err := st.Client().DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(e.table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: store.ReportPK(svs[0].ReportCode)}, "SK": &types.AttributeValueMemberS{Value: "REPORT"},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SurveyIDByReportCode(t.Context(), svs[0].ReportCode); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("before the backfill: %v, want ENOTFOUND", err)
	}
	var out struct {
		Written int `json:"written"`
	}
	e.run(t, "reports", "backfill").ok(t, &out, "written")
	if out.Written != 1 {
		t.Errorf("written %d, want 1", out.Written)
	}
	for _, sv := range svs {
		if sid, err := st.SurveyIDByReportCode(t.Context(), sv.ReportCode); err != nil || sid != sv.ID {
			t.Errorf("survey %d after the backfill: %d, %v", sv.ID, sid, err)
		}
	}
	e.run(t, "reports", "backfill").ok(t, &out, "written")
	if out.Written != 0 {
		t.Errorf("second run wrote %d, want 0", out.Written)
	}
}
