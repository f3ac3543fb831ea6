package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// submitTallied leaves a response as a submission does (its item with its
// report attributes and the tally's mark, submitted at) and, when tally,
// applies its insertion as the tally function would from stream record
// seq.
func submitTallied(t *testing.T, st *store.Store, sid, rid int64, at time.Time, attrs []string, seq int) {
	t.Helper()
	ctx := context.Background()
	if err := storetest.SeedResponses(ctx, st, []survey.Response{{ID: rid, SurveyID: sid, SubmittedAt: at, StartedAt: at}}); err != nil {
		t.Fatal(err)
	}
	_, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(st.TableName()),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.ResponsesShardPK(sid, store.ResponseShard(rid))},
			store.AttrSK: &types.AttributeValueMemberS{Value: store.ResponseSK(rid)},
		},
		UpdateExpression: aws.String("SET tally = :t, agg = :a"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true}, ":a": &types.AttributeValueMemberSS{Value: attrs},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyTally(ctx, sid, "shard-1", []store.TallyRecord{{Seq: fmt.Sprint(seq), ReportAttrs: attrs}}); err != nil {
		t.Fatal(err)
	}
}

// TestRecountSurveyUnderTheTally: the tally applies responses while a
// recount runs, once during its pass over the responses (a response the
// pass did not read, then tallied: the counts move, the pass is taken
// again) and once between its reads and its corrections (ADDs: the
// tally's count stays on top of the corrected one). The result is exact:
// nothing counted twice, nothing missed. A tally that moves the counts
// during every pass makes the recount refuse, writing nothing.
func TestRecountSurveyUnderTheTally(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "recount", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "recount")
	ids, err := st.NewIDs(ctx, store.KindResponse, 20)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	attrs := []string{store.ChoiceCount(7, 1), store.RankCount(8, 2), store.RankSum(8, 2, 3)}
	for i := range 5 {
		submitTallied(t, st, sv.ID, ids[i], old, attrs, i+1)
	}
	// The damage: five picks of choice 1 never counted, the others lost.
	if err := storetest.SeedAggregate(ctx, st, sv.ID, 0, map[string]int64{store.ChoiceCount(7, 1): -5, "n": 2}); err != nil {
		t.Fatal(err)
	}

	passes, writes := 0, 0
	undo := store.SetRecountHook(func(stage string) {
		switch {
		case stage == "pass" && passes == 0:
			passes++
			submitTallied(t, st, sv.ID, ids[5], old, attrs, 6)
		case stage == "write" && writes == 0:
			writes++
			submitTallied(t, st, sv.ID, ids[6], old, attrs, 7)
		}
	})
	res, err := st.RecountSurvey(ctx, sv.ID, 10*time.Minute, false)
	undo()
	if err != nil {
		t.Fatal(err)
	}
	// The second pass read six responses; the seventh, tallied after the
	// counts were read, is the tally's to count, and it did.
	if res.Responses != 6 || res.Changes["report.n"] != (store.CountChange{Before: 8, After: 6}) ||
		res.Changes["report."+store.ChoiceCount(7, 1)] != (store.CountChange{Before: 1, After: 6}) {
		t.Errorf("recount answered %+v", res)
	}
	want := map[string]int64{"n": 7, store.ChoiceCount(7, 1): 7, store.RankCount(8, 2): 7, "rs_8_2": 21}
	c, err := st.SurveyCounts(ctx, sv.ID)
	if err != nil || c.Responses != 7 || c.Spam != 0 || len(c.Report) != len(want) {
		t.Fatalf("counts %+v, %v; want 7 responses and %v", c, err, want)
	}
	for k, n := range want {
		if c.Report[k] != n {
			t.Errorf("report count %s is %d, want %d", k, c.Report[k], n)
		}
	}
	// A second recount: the counts' two reads (a GetItem and a
	// BatchGetItem each) around one Query per response shard, no write.
	cctx, calls := awsenv.WithCalls(ctx)
	if res, err := st.RecountSurvey(cctx, sv.ID, 10*time.Minute, false); err != nil || len(res.Changes) != 0 || res.Responses != 7 {
		t.Errorf("a second recount: %+v, %v; want 7 responses and no change", res, err)
	}
	if n := calls.DynamoDB(); n != 4+store.ResponseShards {
		t.Errorf("a recount with nothing to change made %d DynamoDB calls, want %d", n, 4+store.ResponseShards)
	}

	// A tally busy through every pass: refused after three, nothing written.
	if err := storetest.SeedAggregate(ctx, st, sv.ID, 0, map[string]int64{"n": 100}); err != nil {
		t.Fatal(err)
	}
	next := 7
	undo = store.SetRecountHook(func(stage string) {
		if stage == "pass" {
			submitTallied(t, st, sv.ID, ids[next], old, attrs, next+1)
			next++
		}
	})
	_, err = st.RecountSurvey(ctx, sv.ID, 10*time.Minute, false)
	undo()
	if !errors.Is(err, store.ErrRecountBusy) || next != 10 {
		t.Errorf("under a busy tally: %v after %d passes; want ErrRecountBusy after 3", err, next-7)
	}
	if c, err := st.SurveyCounts(ctx, sv.ID); err != nil || c.Responses != 10 || c.Report["n"] != 110 {
		t.Errorf("the refused recount wrote: %+v, %v", c, err)
	}
}

// TestRecountSurveyManyCounts: a response naming more report counts than
// one update can carry (a 4 KB expression: 8,000 here, about 1,000 per shard) is recounted in several
// updates per aggregate shard, each within the tally's bound, and exactly.
func TestRecountSurveyManyCounts(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "many", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "many")
	ids, err := st.NewIDs(ctx, store.KindResponse, 2)
	if err != nil {
		t.Fatal(err)
	}
	var attrs []string
	for c := range 8000 {
		attrs = append(attrs, store.MatrixCount(3, int64(c), 1))
	}
	old := time.Now().Add(-time.Hour)
	for _, rid := range ids {
		if err := storetest.SeedResponses(ctx, st, []survey.Response{{ID: rid, SurveyID: sv.ID, SubmittedAt: old, StartedAt: old}}); err != nil {
			t.Fatal(err)
		}
		_, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(st.TableName()),
			Key: map[string]types.AttributeValue{
				store.AttrPK: &types.AttributeValueMemberS{Value: store.ResponsesShardPK(sv.ID, store.ResponseShard(rid))},
				store.AttrSK: &types.AttributeValueMemberS{Value: store.ResponseSK(rid)},
			},
			UpdateExpression:          aws.String("SET agg = :a"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": &types.AttributeValueMemberSS{Value: attrs}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := st.RecountSurvey(ctx, sv.ID, time.Minute, false)
	if err != nil || res.Responses != 2 || len(res.Changes) != 8002 {
		t.Fatalf("recount: %d responses, %d changes, %v; want 2 and 8002", res.Responses, len(res.Changes), err)
	}
	agg, err := st.Aggregates(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 8000 {
		if agg.Matrix[3][int64(c)][1] != 2 {
			t.Fatalf("row %d: %d, want 2", c, agg.Matrix[3][int64(c)][1])
		}
	}
	if agg.Responses != 2 {
		t.Errorf("report count %d, want 2", agg.Responses)
	}
}

// BenchmarkRecountSurvey recounts a survey of 10,000 imported responses
// (storetest.ImportResponses: no report attributes, so the pass reads
// small items), its report count damaged so that each run corrects it: it
// prints the time and the DynamoDB calls of a recount.
func BenchmarkRecountSurvey(b *testing.B) {
	st := testenv.Store(b)
	ctx := context.Background()
	a, _ := testenv.NewAccount(b, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	sv := testenv.NewSurvey(b, st, a.ID, f.ID, "bench")
	const n = 10_000
	old := time.Now().Add(-time.Hour)
	rs := make([]survey.Response, n)
	for i := range rs {
		rs[i] = survey.Response{SurveyID: sv.ID, SubmittedAt: old, StartedAt: old}
	}
	if _, err := storetest.ImportResponses(ctx, st, rs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var calls int
	for range b.N {
		b.StopTimer()
		if err := storetest.SeedAggregate(ctx, st, sv.ID, 0, map[string]int64{"n": 1}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cctx, c := awsenv.WithCalls(ctx)
		res, err := st.RecountSurvey(cctx, sv.ID, time.Minute, false)
		if err != nil || res.Responses != n {
			b.Fatalf("recount: %d responses, %v", res.Responses, err)
		}
		calls += c.DynamoDB()
	}
	b.ReportMetric(float64(calls)/float64(b.N), "dynamodb-calls/op")
}
