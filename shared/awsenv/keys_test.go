package awsenv

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": s(pk), "SK": s("X")}
}

// TestAccesses: each operation's input gives the partitions IAM would
// check dynamodb:LeadingKeys against: a transaction part by part under its
// own action, a batch item by item, a Query of an index by the index's
// partition key (named directly or through a placeholder).
func TestAccesses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   any
		want []Access
	}{
		{"get", &dynamodb.GetItemInput{Key: key("SURVEY#1")}, []Access{{"dynamodb:GetItem", "", "SURVEY#1"}}},
		{"put", &dynamodb.PutItemInput{Item: key("CODES#1")}, []Access{{"dynamodb:PutItem", "", "CODES#1"}}},
		{"update", &dynamodb.UpdateItemInput{Key: key("HOOKS#1")}, []Access{{"dynamodb:UpdateItem", "", "HOOKS#1"}}},
		{"delete", &dynamodb.DeleteItemInput{Key: key("RESPONSES#1")}, []Access{{"dynamodb:DeleteItem", "", "RESPONSES#1"}}},
		{"transaction", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{Key: key("ACCOUNT#1")}},
			{Put: &types.Put{Item: key("SURVEY#2")}},
			{Update: &types.Update{Key: key("COUNTER#x#01")}},
			{Delete: &types.Delete{Key: key("PENDING#2")}},
		}}, []Access{{"dynamodb:ConditionCheckItem", "", "ACCOUNT#1"}, {"dynamodb:PutItem", "", "SURVEY#2"},
			{"dynamodb:UpdateItem", "", "COUNTER#x#01"}, {"dynamodb:DeleteItem", "", "PENDING#2"}}},
		{"batch get", &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"t": {Keys: []map[string]types.AttributeValue{key("SURVEY#1"), key("AGG#1")}}}},
			[]Access{{"dynamodb:BatchGetItem", "", "SURVEY#1"}, {"dynamodb:BatchGetItem", "", "AGG#1"}}},
		{"batch write", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"t": {
			{PutRequest: &types.PutRequest{Item: key("SURVEY#3")}}, {DeleteRequest: &types.DeleteRequest{Key: key("SURVEY#4")}}}}},
			[]Access{{"dynamodb:BatchWriteItem", "", "SURVEY#3"}, {"dynamodb:BatchWriteItem", "", "SURVEY#4"}}},
		{"query of the table", &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :v0 AND begins_with(SK, :v1)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v0": s("ACCOUNT#7"), ":v1": s("FOLDER#")}},
			[]Access{{"dynamodb:Query", "", "ACCOUNT#7"}}},
		{"query of an index, by placeholder", &dynamodb.QueryInput{IndexName: aws.String("GSI1"),
			KeyConditionExpression:    aws.String("#n0 = :v0 AND #n1 <= :v1"),
			ExpressionAttributeNames:  map[string]string{"#n0": "GSI1PK", "#n1": "GSI1SK"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":v0": s("OWNER#7"), ":v1": s("F#")}},
			[]Access{{"dynamodb:Query", "GSI1", "OWNER#7"}}},
		{"query: the sort key's equality is not the partition's", &dynamodb.QueryInput{IndexName: aws.String("GSI2"),
			KeyConditionExpression:    aws.String("#a = :s AND #b = :p"),
			ExpressionAttributeNames:  map[string]string{"#a": "GSI2SK", "#b": "GSI2PK"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("0001"), ":p": s("DUE#03")}},
			[]Access{{"dynamodb:Query", "GSI2", "DUE#03"}}},
		{"scan", &dynamodb.ScanInput{}, []Access{{"dynamodb:Scan", "", ""}}},
		{"another service", &struct{}{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Accesses(c.in); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestKeyLogRecordsOnlyItsContext: a KeyLog sees the calls made under its
// context, each partition once however often it is reached.
func TestKeyLogRecordsOnlyItsContext(t *testing.T) {
	t.Parallel()
	var l KeyLog
	ctx := WithKeyLog(context.Background(), &l)
	in := &dynamodb.GetItemInput{Key: key("SURVEY#1")}
	recordKeys(ctx, in)
	recordKeys(ctx, in)
	recordKeys(context.Background(), &dynamodb.GetItemInput{Key: key("APIKEY#x")})
	if got := l.Accesses(); !slices.Equal(got, []Access{{"dynamodb:GetItem", "", "SURVEY#1"}}) {
		t.Errorf("recorded %v", got)
	}
}

// TestPolicies: a stuck call under HTTP ends well inside the time an HTTP
// handler has (10 s less the 1.5 s deadline margin), and the events
// policy tries harder than HTTP's.
func TestPolicies(t *testing.T) {
	t.Parallel()
	if w := HTTP.WorstCall(); w != 3400*time.Millisecond {
		t.Errorf("HTTP.WorstCall() = %v, want 3.4 s", w)
	}
	if HTTP.WorstCall() >= (10*time.Second-1500*time.Millisecond)/2 {
		t.Errorf("under HTTP one stuck call may take %v: over half of the handler's time", HTTP.WorstCall())
	}
	if Events.MaxAttempts <= HTTP.MaxAttempts || Events.AttemptTimeout <= HTTP.AttemptTimeout {
		t.Errorf("Events %+v does not try harder than HTTP %+v", Events, HTTP)
	}
}
