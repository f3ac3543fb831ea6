package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/localaws"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestFinishWithdrawals: finish-withdrawals withdraws the response whose
// key's record a fence marked (a mark the dispatch's stream gave up) and
// no other, passes over a mark it cannot read, and run again finds only
// that one; a bad command line is a usage error.
func TestFinishWithdrawals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(ctx, survey.Account{Email: "withdrawals@example.com", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	sid := sweepSurveys(t, st, a.ID, 1, "")[0].ID
	submit := func(key string) store.Submitted {
		d, err := st.Submit(ctx, store.Submission{Response: survey.Response{SurveyID: sid, StartedAt: time.Now().Add(-time.Minute),
			Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}}, KeyHash: key, BodyHash: "b"})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	marked, kept := submit("k1"), submit("k2")
	mark := func(pk, sk, plan string) {
		_, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.table),
			Key:              map[string]dtypes.AttributeValue{"PK": &dtypes.AttributeValueMemberS{Value: pk}, "SK": &dtypes.AttributeValueMemberS{Value: sk}},
			UpdateExpression: aws.String("SET #w = :w"), ExpressionAttributeNames: map[string]string{"#w": store.AttrWithdraw},
			ExpressionAttributeValues: map[string]dtypes.AttributeValue{":w": &dtypes.AttributeValueMemberS{Value: plan}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// As a fence writes it (store.withdrawal): the survey closed.
	mark(store.ResponsesShardPK(sid, store.IdempotencyShard("k1")), store.IdempotencySK("k1"),
		fmt.Sprintf(`{"survey":%d,"response":%d,"submitted_at":%q,"key_hash":"k1","closed":true}`, sid, marked.ID, marked.SubmittedAt.Format(time.RFC3339Nano)))
	mark("NOT#A", "RECORD", `{"survey":1}`)
	exists := func(id int64) bool {
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), ConsistentRead: aws.Bool(true),
			Key: map[string]dtypes.AttributeValue{"PK": &dtypes.AttributeValueMemberS{Value: store.ResponsesShardPK(sid, store.ResponseShard(id))},
				"SK": &dtypes.AttributeValueMemberS{Value: store.ResponseSK(id)}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	var got store.WithdrawalsScan
	e.run(t, "finish-withdrawals", "--segments", "2").ok(t, &got, "scanned", "marked", "finished")
	if got.Marked != 2 || got.Finished != 1 {
		t.Errorf("finish-withdrawals: %+v, want 2 marked (one unreadable) and 1 finished", got)
	}
	if exists(marked.ID) || !exists(kept.ID) {
		t.Errorf("response %d (marked) recorded: %v, %d (not) recorded: %v; want only the second", marked.ID, exists(marked.ID), kept.ID, exists(kept.ID))
	}
	if _, found, err := st.Replay(ctx, sid, store.Submission{KeyHash: "k1", BodyHash: "b"}); err != nil || found {
		t.Errorf("the marked key after the withdrawal: found %v, %v; want its record gone", found, err)
	}
	e.run(t, "finish-withdrawals").ok(t, &got, "scanned", "marked", "finished")
	if got.Marked != 1 || got.Finished != 0 {
		t.Errorf("finish-withdrawals again: %+v, want only the unreadable mark", got)
	}
	if r := e.run(t, "finish-withdrawals", "--segments", "0"); r.code != 2 {
		t.Errorf("--segments 0: exit %d, want 2 (usage)", r.code)
	}
}
