package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// heldSurvey is a survey named name, with the test's store (st) and one
// on the same table behind the conflict model holding a transaction's
// items hold (cst, proxy).
func heldSurvey(t *testing.T, hold time.Duration, name string) (st, cst *store.Store, proxy *conflict.Proxy, a survey.Account, sv survey.Survey) {
	t.Helper()
	st = testenv.Store(t)
	cfg, proxy := testenv.ConflictConfig(t, hold)
	a, _ = testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(context.Background(), a.ID, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, store.New(cfg, st.TableName()), proxy, a, testenv.NewSurvey(t, st, a.ID, f.ID, name)
}

// TestEditsMeetNoConflictUnderTheTally: on DynamoDB
// Local behind the conflict model (a write transaction holds its items
// 100 ms), a tally applies a busy survey's records back to back to its
// report shards. Edits of its
// responses write only the response and its guard: each goes through in
// its four calls (no retry), an owner's delete in its two, and the model
// counts no conflict. Nor does the transaction an edit had before (the
// response with a ConditionCheck of the survey item and a report shard
// moved), which met the tally's transactions there: the tally writes each
// counter item with one conditional UpdateItem now, and holds none.
func TestEditsMeetNoConflictUnderTheTally(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, cst, proxy, a, sv := heldSurvey(t, 100*time.Millisecond, "busy")
	answers := map[int64]json.RawMessage{7: json.RawMessage(`[1]`)}
	var ids []int64
	for i := range 5 {
		done, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: answers},
			KeyHash:  fmt.Sprint("busy", i), BodyHash: "b", ReportAttrs: []string{store.ChoiceCount(7, 1)},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, done.ID)
	}

	// The tally, back to back: each pass an UpdateItem of each report
	// shard its 16 attributes hash to, each with its checkpoint.
	tallyCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var passes atomic.Int64
	// provoking: the old edit transaction below meets the tally on
	// purpose, and so may the tally meet it until its retries run out; the
	// stream would give that batch again, so it is no error then.
	var provoking atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		var attrs []string
		for c := range int64(16) {
			attrs = append(attrs, store.ChoiceCount(99, c))
		}
		for seq := 1; tallyCtx.Err() == nil; seq++ {
			if _, err := cst.ApplyTally(tallyCtx, sv.ID, "busy-shard", []store.TallyRecord{{Seq: fmt.Sprint(seq), ReportAttrs: attrs}}); err != nil && tallyCtx.Err() == nil {
				if provoking.Load() {
					continue
				}
				t.Errorf("tally pass %d: %v", seq, err)
				return
			}
			passes.Add(1)
		}
	}()
	defer func() { stop(); wg.Wait() }()
	time.Sleep(100 * time.Millisecond)

	before, passed := proxy.Conflicts(), passes.Load()
	for i, id := range ids {
		cctx, calls := awsenv.WithCalls(ctx)
		_, err := cst.EditResponse(cctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: id,
			Answers: map[int64]json.RawMessage{7: json.RawMessage(`[2]`)}, ReportAttrs: []string{store.ChoiceCount(7, 2)}})
		if err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
		if n := calls.DynamoDB(); n != 4 {
			t.Errorf("edit %d made %d DynamoDB calls, want 4 (read, transaction, the survey's state, the guard lifted): it was retried", i, n)
		}
	}
	// An owner's delete likewise: its read, and the response's DeleteItem.
	dctx, calls := awsenv.WithCalls(ctx)
	if err := cst.DeleteResponse(dctx, a.ID, sv.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := calls.DynamoDB(); n != 2 {
		t.Errorf("the delete made %d DynamoDB calls, want 2", n)
	}
	if n := proxy.Conflicts() - before; n != 0 {
		t.Errorf("the edits and the delete met %d conflicts under the tally, want 0", n)
	}
	if n := passes.Load() - passed; n < 2 {
		t.Errorf("the tally made %d passes during the edits: nothing to meet", n)
	}

	// The edit's transaction as it was: the survey item checked, a report
	// shard moved. The tally once held those items in its transactions, and
	// this transaction met it there; the tally now writes each of them
	// with one conditional UpdateItem (tally.go), which holds nothing, so
	// even this transaction goes through at its first try, every time.
	provoking.Store(true)
	met, tries := 0, 0
	for i := range 20 {
		tries++
		rpk := fmt.Sprintf("RESPONSES#%020d", sv.ID)
		_, err := cst.Client().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(st.TableName()), UpdateExpression: aws.String("SET edited_at = :e"),
				Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: rpk}, "SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("OLD-EDIT#%d", i)}},
				ExpressionAttributeValues: map[string]types.AttributeValue{":e": &types.AttributeValueMemberS{Value: "x"}}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(st.TableName()), ConditionExpression: aws.String("attribute_exists(PK)"),
				Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: store.SurveyPK(sv.ID)}, "SK": &types.AttributeValueMemberS{Value: "SURVEY"}}}},
			{Update: &types.Update{TableName: aws.String(st.TableName()), UpdateExpression: aws.String("ADD c_99_0 :one"),
				Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: store.AggPK(sv.ID)},
					"SK": &types.AttributeValueMemberS{Value: store.AggSK(i % store.AggShards)}},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "0"}}}},
		}})
		var tce *types.TransactionCanceledException
		switch {
		case errors.As(err, &tce):
			met++
		case err != nil:
			t.Fatal(err)
		}
	}
	if met != 0 {
		t.Errorf("the edit's transaction as it was met the tally %d times in %d tries: the tally holds its items", met, tries)
	}
	t.Logf("%d tally passes", passes.Load())
	t.Logf("under the tally: the edits met 0 conflicts, and so did the transaction edits had before (%d tries)", tries)
}

// TestTallyWaitsOutAnOwnersTransaction: a transaction holding the survey
// item (an owner's change; the conflict model holds it 1.5 s, longer than
// the SDK's three tries of a single write span) makes the tally's
// UpdateItem of the survey's count fail with TransactionConflictException.
// The tally waits it out and applies its records, rather than failing the
// whole batch back to the stream: `make load-viral` logged "stream handler
// failed ... TransactionConflictException" under the owner's PATCHes
// (the tally took only a transaction's cancellation for a conflict).
func TestTallyWaitsOutAnOwnersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, cst, proxy, a, sv := heldSurvey(t, 1500*time.Millisecond, "held")
	held := make(chan error, 1)
	go func() {
		_, err := cst.Client().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(st.TableName()), ConditionExpression: aws.String("attribute_exists(PK)"),
				Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: store.SurveyPK(sv.ID)}, "SK": &types.AttributeValueMemberS{Value: "SURVEY"}}}},
			{Put: &types.Put{TableName: aws.String(st.TableName()), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("HELD#%d", sv.ID)}, "SK": &types.AttributeValueMemberS{Value: "HELD"}}}},
		}})
		held <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); proxy.Held() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the owner's transaction never arrived at the model")
		}
	}
	before := proxy.Conflicts()
	if _, err := cst.ApplyTally(ctx, sv.ID, "held-shard", []store.TallyRecord{{Seq: "1"}}); err != nil {
		t.Fatalf("the tally under an owner's transaction: %v", err)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if n := proxy.Conflicts() - before; n == 0 {
		t.Error("the tally met no conflict: nothing held the survey item")
	}
	got, err := st.Survey(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SubmittedResponses != 1 {
		t.Errorf("submitted_responses %d after the tally, want 1", got.SubmittedResponses)
	}
}
