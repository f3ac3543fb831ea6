package store_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

// How the emulator hands an id out twice (issue 10), measured on moto.
// These tests open several connections at once, which the service never
// does on purpose (awsenv serialises its calls to an emulator): they show
// what happens when it does anyway, e.g. when a request abandoned by a
// client or a timeout is still running in moto while the next one starts.

// multiConn is a DynamoDB client on a connection pool of its own, without
// awsenv's one-connection limit.
func multiConn(t *testing.T) *dynamodb.Client {
	cfg := testenv.Config(t)
	cfg.HTTPClient = awshttp.NewBuildableClient()
	return dynamodb.NewFromConfig(cfg)
}

// TestEmulatorRollbackLosesConcurrentWrites: what does hand ids out twice
// on moto. A TransactWriteItems deep-copies every table it names when it
// starts and, when it fails, puts that copy back: every write that other
// connections made to the table meanwhile is undone, counter ADDs
// included, and the counter then hands the same ids out again. Here one
// connection runs transactions that fail (a condition on a missing item,
// as a create in another account's folder does) on a table of 1,000 items
// while the allocator takes ids on another, until an id comes back twice.
// (If this ever fails, moto no longer loses those writes; the comments in
// awsenv.emulatorClient and store/ids.go can say so.)
func TestEmulatorRollbackLosesConcurrentWrites(t *testing.T) {
	t.Parallel()
	table := testenv.Store(t).TableName()
	ctx := t.Context()
	fill := multiConn(t)
	for b := range 40 {
		reqs := make([]types.WriteRequest, 25)
		for i := range reqs {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("FILL#%d", b)}, "SK": &types.AttributeValueMemberS{Value: strconv.Itoa(i)}}}}
		}
		if _, err := fill.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
			t.Fatal(err)
		}
	}

	stop := make(chan struct{})
	var failed atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := multiConn(t)
		key := func(s string) map[string]types.AttributeValue {
			return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: s}, "SK": &types.AttributeValueMemberS{Value: s}}
		}
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: key("WRITE")}},
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key("MISSING"), ConditionExpression: aws.String("attribute_exists(PK)")}},
			}})
			if err != nil {
				failed.Add(1)
			}
		}
	}()

	cfg := testenv.Config(t)
	cfg.HTTPClient = awshttp.NewBuildableClient()
	st := store.New(cfg, table)
	seen := map[int64]bool{}
	twice, n := int64(0), 0
	for n = 1; n <= 3000 && twice == 0; n++ {
		ids, err := st.NewIDs(ctx, store.KindFolder, 1)
		if err != nil {
			t.Fatal(err)
		}
		if seen[ids[0]] {
			twice = ids[0]
		}
		seen[ids[0]] = true
	}
	close(stop)
	wg.Wait()
	if twice == 0 {
		t.Fatalf("no id handed out twice in %d allocations beside %d failed transactions: the emulator no longer loses concurrent writes", n-1, failed.Load())
	}
	t.Logf("id %d handed out twice after %d allocations, beside %d failed transactions on another connection", twice, n-1, failed.Load())
}
