package responders_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/store"
)

// BenchmarkCollectionReads: what a submission and a view read of the
// survey, before the container cache (one Query of the whole item
// collection: strongly consistent for a submission, eventually for a view)
// and after it on a warm container (one GetItem of the survey item), on a
// survey of 50 questions: the read units DynamoDB Local reports and the
// bytes of the items read; a session start's BatchGetItem, cold and warm;
// and the calls of one warm submission and view.
func BenchmarkCollectionReads(b *testing.B) {
	f := newFixture(b)
	slug, sid, answers := fiftyQuestions(b, f)
	ctx := context.Background()
	db := f.st.Client()
	table := aws.String(f.st.TableName())
	pk := &types.AttributeValueMemberS{Value: store.SurveyPK(sid)}
	for _, consistent := range []bool{true, false} {
		q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": pk}, ConsistentRead: aws.Bool(consistent),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			b.Fatal(err)
		}
		g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, ConsistentRead: aws.Bool(consistent),
			Key:                    map[string]types.AttributeValue{"PK": pk, "SK": &types.AttributeValueMemberS{Value: store.SurveySK}},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			b.Fatal(err)
		}
		what := "a view (eventually consistent)"
		if consistent {
			what = "a submission (strongly consistent)"
		}
		b.Logf("%s: before, the Query: %d items, %d bytes, %.1f read units; after, the GetItem: %d bytes, %.1f read units",
			what, len(q.Items), store.ItemsSize(q.Items), aws.ToFloat64(q.ConsumedCapacity.CapacityUnits),
			store.ItemsSize([]map[string]types.AttributeValue{g.Item}), aws.ToFloat64(g.ConsumedCapacity.CapacityUnits))
	}
	// A session's start (survey, settings, layout and the guard's counts
	// in one BatchGetItem) on a cold container and on a warm one (the
	// survey item and the counts; settings and layout from the copy).
	cst, rec := countedContainer(b, f)
	ch := newHandler(cst, f)
	if r := send(b, ch, "POST", sessionsPath(slug), "{}", "Content-Type", "application/json"); r.code != 201 {
		b.Fatalf("session: %d %s", r.code, r.body)
	}
	_, cold, _ := rec.take("")
	send(b, ch, "GET", surveyPath(slug), "") // warms the container
	rec.take("")
	if r := send(b, ch, "POST", sessionsPath(slug), "{}", "Content-Type", "application/json"); r.code != 201 {
		b.Fatalf("session: %d %s", r.code, r.body)
	}
	calls, warm, layout := rec.take("LAYOUT")
	b.Logf("a session start: cold, %d bytes of BatchGetItem answer; warm, %d bytes in %d BatchGetItem (layout read: %v)", cold, warm, calls, layout)
	f.respond(b, slug, f.session(b, slug, nil), answers).submitted(b) // warms the container
	b.ResetTimer()
	var subCalls, viewCalls int
	for range b.N {
		r := f.respond(b, slug, f.session(b, slug, nil), answers)
		r.submitted(b)
		subCalls += r.calls
		v := send(b, f.h, "GET", surveyPath(slug), "")
		viewCalls += v.calls
		if r.ops["DynamoDB.Query"] != 0 || v.ops["DynamoDB.Query"] != 0 {
			b.Fatalf("a warm container Queried the survey: %v %v", r.ops, v.ops)
		}
	}
	b.ReportMetric(float64(subCalls)/float64(b.N), "ddb-calls/submission")
	b.ReportMetric(float64(viewCalls)/float64(b.N), "ddb-calls/view")
	stats := f.st.CollectionCacheStats()
	b.Logf("cache: %d hits, %d misses", stats.Hits, stats.Misses)
}
