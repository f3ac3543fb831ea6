package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestLocalTallyRetriesAFailedBatch: `make run`'s tally poller retries a
// batch whose transaction failed, as template.yaml's mapping does
// (MaximumRetryAttempts -1), so its counts land once the cause passes. The
// views item is held by another transaction (the conflict model, 3 s)
// while views are counted: the tally's first tries are cancelled, and the
// views still add up. Found by `make load -scenario viral` with owner
// edits: the poller gave a failed batch up at once, and the survey's
// counts stayed short for good.
func TestLocalTallyRetriesAFailedBatch(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	cfg, p := testenv.ConflictConfig(t, 3*time.Second)
	modelled := store.New(cfg, st.TableName())
	ctx := t.Context()
	acct, _ := testenv.NewAccount(t, survey.PlanPro)
	fo, err := st.CreateFolder(ctx, acct.ID, "Tally", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.ID, FolderID: fo.ID, Name: "Counted", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(t), "AWS_SECRET_ACCESS_KEY": "test"}
	tallyCtx, stop := context.WithCancel(context.Background())
	done, err := startTally(tallyCtx, modelled, awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stop(); <-done }()

	viewsKey := map[string]types.AttributeValue{
		store.AttrPK: &types.AttributeValueMemberS{Value: store.SurveyPK(sv.ID)},
		store.AttrSK: &types.AttributeValueMemberS{Value: "VIEWS"},
	}
	client := dynamodb.NewFromConfig(cfg)
	held := make(chan error, 1)
	go func() {
		_, err := client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
			Update: &types.Update{TableName: aws.String(st.TableName()), Key: viewsKey, UpdateExpression: aws.String("SET held = :t"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}},
		}}})
		held <- err
	}()
	waitFor(t, settle, "the views item held", func() bool { return p.Held() > 0 })
	const views = 3
	for range views {
		if err := st.CountView(ctx, acct.ID, fo.ID, sv.ID); err != nil {
			t.Fatal(err)
		}
	}
	read := func() int64 {
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(st.TableName()), Key: viewsKey, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		n, ok := out.Item["views"].(*types.AttributeValueMemberN)
		if !ok {
			return 0
		}
		v, _ := strconv.ParseInt(n.Value, 10, 64)
		return v
	}
	waitFor(t, settle, "the views counted", func() bool { return read() == views })
	if err := <-held; err != nil {
		t.Fatalf("the holding transaction: %v", err)
	}
	if p.Conflicts() == 0 {
		t.Fatal("the tally met no conflict: the retry was not exercised")
	}
	time.Sleep(2 * TallyBatchWindow)
	if got := read(); got != views {
		t.Errorf("views %d, want %d (counted twice?)", got, views)
	}
	t.Logf("%d of the tally's transactions cancelled before the hold ended", p.Conflicts())
}
