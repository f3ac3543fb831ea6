package conflict_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestSettingsPatchBesideTheTally: an owner's settings change while the
// tally's transaction holds the survey item (it adds each stream batch's
// responses to submitted_responses) is cancelled by that transaction
// (TransactionConflict) and tried again by the store, so it lands instead
// of answering 503. Found by `make load`'s viral survey, where
// every owner PATCH during the run answered 503.
//
// Twice: with the model's default hold (20 ms, DynamoDB's two-phase
// commit), and with the tally's transaction holding the item 400 ms, longer
// than a few quick tries last (as when the tally's passes follow each
// other closely on a hot survey, or DynamoDB Local queues requests on a
// loaded machine): the change waits it out (ownerRetryFor).
func TestSettingsPatchBesideTheTally(t *testing.T) {
	t.Parallel()
	for _, hold := range []time.Duration{conflict.DefaultHold, 400 * time.Millisecond} {
		t.Run(fmt.Sprint("hold=", hold), func(t *testing.T) { settingsBesideTheTally(t, hold) })
	}
}

func settingsBesideTheTally(t *testing.T, hold time.Duration) {
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	cfg, p := testenv.ConflictConfig(t, hold)
	st := store.New(cfg, testenv.Store(t).TableName())
	c := dynamodb.NewFromConfig(cfg)
	ctx := t.Context()
	fo, err := st.CreateFolder(ctx, a.ID, "Settings", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fo.ID, Name: "Viral", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	// The tally's write of the survey item, as functions/tally makes it:
	// an ADD to submitted_responses in a transaction.
	tally := types.TransactWriteItem{Update: &types.Update{TableName: aws.String(st.TableName()),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.SurveyPK(sv.ID)},
			store.AttrSK: &types.AttributeValueMemberS{Value: store.SurveySK},
		},
		UpdateExpression:          aws.String("ADD submitted_responses :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "3"}}}}
	for i, update := range []func() error{
		func() error { // the settings item; the survey item checked
			return st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Set: map[string]any{"hide_progressbar": true}})
		},
		func() error { // the survey item written
			return st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{Name: aws.String("Viral, renamed")})
		},
		func() error { // PATCH /api/v2/surveys/{id}/: one UpdateItem of the survey item
			return st.UpdateSurvey(ctx, a.ID, sv.ID, store.SurveyUpdate{Language: aws.Int64(4)})
		},
	} {
		before := p.Conflicts()
		wait := holding(t, c, p, tally)
		if err := update(); err != nil {
			t.Fatalf("update %d beside the tally's transaction: %v", i, err)
		}
		if err := wait(); err != nil {
			t.Fatalf("the tally's transaction: %v", err)
		}
		if p.Conflicts() == before {
			t.Fatalf("update %d met no conflict: the retry was not exercised", i)
		}
	}
	got, settings, err := st.SurveySettings(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Viral, renamed" || got.SubmittedResponses != 9 || !settings.HideProgressbar {
		t.Errorf("after both: name %q, submitted_responses %d, hide_progressbar %v", got.Name, got.SubmittedResponses, settings.HideProgressbar)
	}
}
