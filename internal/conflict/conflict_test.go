package conflict_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

func TestMain(m *testing.M) { testenv.Main(m) }

// key is the key of item name in the test's table.
func key(name string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		store.AttrPK: &types.AttributeValueMemberS{Value: "CONFLICT#" + name},
		store.AttrSK: &types.AttributeValueMemberS{Value: name},
	}
}

func put(table, name string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: key(name)}}
}

func check(table, name string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key(name),
		ConditionExpression: aws.String("attribute_not_exists(#n)"), ExpressionAttributeNames: map[string]string{"#n": "never"}}}
}

func update(table, name string) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: key(name),
		UpdateExpression: aws.String("ADD #n :one"), ExpressionAttributeNames: map[string]string{"#n": "n"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}}
}

// holding runs the transaction items in the background, through a proxy
// whose hold is long, and returns once the proxy holds them, with what
// waits for the transaction's end.
func holding(t *testing.T, c *dynamodb.Client, p *conflict.Proxy, items ...types.TransactWriteItem) (wait func() error) {
	t.Helper()
	before := p.Held()
	done := make(chan error, 1)
	go func() {
		_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items})
		done <- err
	}()
	for p.Held() < before+len(items) {
		select {
		case err := <-done:
			t.Fatalf("the holding transaction ended before it was seen holding: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	return func() error { return <-done }
}

// reasons are the cancellation reasons of a cancelled transaction.
func reasons(t *testing.T, err error) []string {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	var out []string
	for _, r := range tce.CancellationReasons {
		out = append(out, aws.ToString(r.Code))
	}
	return out
}

// TestConflicts: what the model cancels while a transaction holds an
// item, case by case, as DynamoDB would; and what it lets through.
func TestConflicts(t *testing.T) {
	t.Parallel()
	table := testenv.Store(t).TableName()
	cfg, p := testenv.ConflictConfig(t, 400*time.Millisecond)
	c := dynamodb.NewFromConfig(cfg)
	ctx := t.Context()
	n := 0
	fresh := func() string { n++; return fmt.Sprintf("item-%d", n) }

	t.Run("TwoTransactionsOnOneItem", func(t *testing.T) {
		x, y := fresh(), fresh()
		wait := holding(t, c, p, update(table, x))
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put(table, y), update(table, x)}})
		if got, want := fmt.Sprint(reasons(t, err)), "[None TransactionConflict]"; got != want {
			t.Errorf("reasons: got %s, want %s", got, want)
		}
		if err := wait(); err != nil {
			t.Fatalf("the holding transaction: %v", err)
		}
		// The cancelled one wrote nothing; the holder committed.
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(y), ConsistentRead: aws.Bool(true)})
		if err != nil || out.Item != nil {
			t.Errorf("the cancelled transaction's put: got %v, %v; want no item", out.Item, err)
		}
	})

	t.Run("ConditionCheckTouchesItsItem", func(t *testing.T) {
		x, y := fresh(), fresh()
		wait := holding(t, c, p, put(table, x))
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{check(table, x), put(table, y)}})
		if got, want := fmt.Sprint(reasons(t, err)), "[TransactionConflict None]"; got != want {
			t.Errorf("reasons: got %s, want %s", got, want)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ConditionCheckHoldsItsItem", func(t *testing.T) {
		x, y := fresh(), fresh()
		wait := holding(t, c, p, check(table, x), put(table, y))
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{update(table, x)}})
		if got, want := fmt.Sprint(reasons(t, err)), "[TransactionConflict]"; got != want {
			t.Errorf("reasons: got %s, want %s", got, want)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("SingleWritesOnAHeldItem", func(t *testing.T) {
		x := fresh()
		wait := holding(t, c, p, put(table, x))
		// One attempt each: the SDK retries TransactionConflictException
		// (awsenv), which would outlast a short hold.
		once := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
		_, perr := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key(x)}, once)
		_, uerr := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key(x), UpdateExpression: aws.String("SET #n = :v"),
			ExpressionAttributeNames: map[string]string{"#n": "v"}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "v"}}}, once)
		_, derr := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(x)}, once)
		for op, err := range map[string]error{"PutItem": perr, "UpdateItem": uerr, "DeleteItem": derr} {
			var tce *types.TransactionConflictException
			if !errors.As(err, &tce) {
				t.Errorf("%s: got %v, want TransactionConflictException", op, err)
			}
			if !awsenv.IsUnavailable(err) {
				t.Errorf("%s: %v is not a 503 (awsenv.IsUnavailable)", op, err)
			}
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		// Reads are not held: DynamoDB serves them while a transaction runs.
		wait = holding(t, c, p, update(table, x))
		if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(x)}); err != nil {
			t.Errorf("GetItem of a held item: %v", err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("DisjointItemsNeverConflict", func(t *testing.T) {
		x := fresh()
		wait := holding(t, c, p, put(table, x), check(table, fresh()))
		conflicts := p.Conflicts()
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			a, b := fresh(), fresh()
			wg.Go(func() {
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put(table, a), update(table, b)}})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("a transaction on items of its own: %v", err)
			}
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		if got := p.Conflicts() - conflicts; got != 0 {
			t.Errorf("conflicts: got %d, want 0", got)
		}
	})

	t.Run("NoConflictAfterTheAnswer", func(t *testing.T) {
		// Sequential transactions on one item never overlap: the hold ends
		// before the answer is sent.
		x := fresh()
		for i := range 3 {
			if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{update(table, x)}}); err != nil {
				t.Fatalf("transaction %d: %v", i, err)
			}
		}
	})
}

// TestOff: a hold of 0 lets everything through.
func TestOff(t *testing.T) {
	t.Parallel()
	table := testenv.Store(t).TableName()
	cfg, p := testenv.ConflictConfig(t, 0)
	c := dynamodb.NewFromConfig(cfg)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, _ = c.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{update(table, "shared"), put(table, fmt.Sprint("own-", i))}})
		})
	}
	wg.Wait()
	if p.Conflicts() != 0 || p.Held() != 0 {
		t.Errorf("conflicts %d, held %d: want none with a hold of 0", p.Conflicts(), p.Held())
	}
}

// TestServiceRetriesConflicts: the store's own retry of a transaction lost
// to a concurrent one (TransactionConflict) works under the model: two
// folders created at once in one account contend on the account item,
// which counts them, and both are made and counted. Pairs are created
// until one pair has met a conflict. (The store tries a lost transaction 6
// times within about 150 ms: more racers than two on one account item can
// outlast that, and answer 503.)
func TestServiceRetriesConflicts(t *testing.T) {
	t.Parallel()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	st := store.New(cfg, testenv.Store(t).TableName())
	made := 0
	for round := 0; round < 10 && p.Conflicts() == 0; round++ {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for i := range 2 {
			wg.Go(func() {
				_, err := st.CreateFolder(t.Context(), a.ID, fmt.Sprintf("folder %d.%d", round, i), nil)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("create folder: %v", err)
			}
		}
		made += 2
	}
	counts, err := st.AccountCounts(t.Context(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Folders != int64(made) {
		t.Errorf("folders counted: got %d, want %d", counts.Folders, made)
	}
	if p.Conflicts() == 0 {
		t.Error("no conflict in 10 pairs: the folders did not contend, the retry was not exercised")
	}
	t.Logf("%d folders, %d conflicts retried", made, p.Conflicts())
}

// TestConcurrentElementEdits: PATCHes of different fields of one element,
// at once, under the model: the element's read (a TransactGetItems) and
// its write (a transaction on the survey's layout) meet each other's
// holds, are retried by the store, and every field lands.
func TestConcurrentElementEdits(t *testing.T) {
	t.Parallel()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	st := store.New(cfg, testenv.Store(t).TableName())
	ctx := t.Context()
	fo, err := st.CreateFolder(ctx, a.ID, "edits", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fo.ID, Name: "edits", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := st.CreateElement(ctx, a.ID, sv.ID, survey.NewElement(survey.TypeText), survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	eid := ch.Element.ID
	edits := []func(*survey.Element){
		func(e *survey.Element) { e.Title = "title" },
		func(e *survey.Element) { e.DescriptionText = "description" },
		func(e *survey.Element) { e.ImageName = "image" },
		func(e *survey.Element) { e.ShowCharts = true },
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(edits))
	for _, edit := range edits {
		wg.Go(func() {
			_, err := st.UpdateElement(ctx, a.ID, sv.ID, eid, func(e *survey.Element) error { edit(e); return nil }, survey.Placement{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("update element: %v", err)
		}
	}
	got, err := st.Element(ctx, a.ID, sv.ID, eid)
	if err != nil {
		t.Fatal(err)
	}
	e := got.Element
	if e.Title != "title" || e.DescriptionText != "description" || e.ImageName != "image" || !e.ShowCharts {
		t.Errorf("after concurrent edits: title %q, description %q, image %q, charts %v; want every edit kept", e.Title, e.DescriptionText, e.ImageName, e.ShowCharts)
	}
	t.Logf("%d conflicts retried", p.Conflicts())
}
