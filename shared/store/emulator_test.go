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

// multiConn is a DynamoDB client on a connection pool of its own, without
// awsenv's one-connection limit to moto.
func multiConn(cfg aws.Config) *dynamodb.Client {
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
// awsenv.emulatorClient and store/ids.go can say so.) It runs on moto's
// DynamoDB, which the tests no longer use otherwise.
//
// How moto hands an id out twice, and how DynamoDB Local (the tests'
// DynamoDB) does not. These tests open several
// connections at once, which the service never does on purpose to moto
// (awsenv serialises its calls to moto): they show what happens when it
// does anyway, e.g. when a request abandoned by a client or a timeout is
// still running in moto while the next one starts.
func TestEmulatorRollbackLosesConcurrentWrites(t *testing.T) {
	t.Parallel()
	twice, n, failed := rollbackRace(t, testenv.MotoConfig(t), testenv.MotoStore(t).TableName(), 3000)
	if twice == 0 {
		t.Fatalf("no id handed out twice in %d allocations beside %d failed transactions: the emulator no longer loses concurrent writes", n, failed)
	}
	t.Logf("id %d handed out twice after %d allocations, beside %d failed transactions on another connection", twice, n, failed)
}

// TestDynamoDBLocalKeepsConcurrentWrites: the same race on DynamoDB Local,
// which, as DynamoDB, undoes nothing another connection wrote when a
// transaction fails: every id is handed out once (moto repeats one within
// a few hundred allocations).
func TestDynamoDBLocalKeepsConcurrentWrites(t *testing.T) {
	t.Parallel()
	twice, n, failed := rollbackRace(t, testenv.Config(t), testenv.Store(t).TableName(), 1000)
	if twice != 0 {
		t.Fatalf("id %d handed out twice after %d allocations, beside %d failed transactions", twice, n, failed)
	}
	if failed == 0 {
		t.Fatal("no transaction failed beside the allocations: the race did not run")
	}
}

// rollbackRace fills the table with 1,000 items, then takes ids one by one
// (up to limit, or until one comes back twice) while another connection
// runs transactions that fail. It returns the id handed out twice (0 for
// none), the allocations made and the failed transactions.
func rollbackRace(t *testing.T, cfg aws.Config, table string, limit int) (twice int64, n int, failed int64) {
	ctx := t.Context()
	fill := multiConn(cfg)
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
	var failures atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := multiConn(cfg)
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
				failures.Add(1)
			}
		}
	}()

	cfg.HTTPClient = awshttp.NewBuildableClient()
	st := store.New(cfg, table)
	seen := map[int64]bool{}
	for n = 1; n <= limit && twice == 0; n++ {
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
	return twice, n - 1, failures.Load()
}
