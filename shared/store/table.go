package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableDefinition is the table as template.yaml declares it: key schema,
// attribute definitions, indexes and billing. A test holds the two equal, so
// local tables and tests run on the table that is deployed.
func TableDefinition(name string) *dynamodb.CreateTableInput {
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(hash, rng string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange},
		}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			s(AttrPK), s(AttrSK), s(AttrGSI1PK), s(AttrGSI1SK), s(AttrGSI2PK), s(AttrGSI2SK),
		},
		KeySchema: key(AttrPK, AttrSK),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String(IndexGSI1), KeySchema: key(AttrGSI1PK, AttrGSI1SK), Projection: all},
			{IndexName: aws.String(IndexGSI2), KeySchema: key(AttrGSI2PK, AttrGSI2SK), Projection: all},
		},
		StreamSpecification: Stream(),
	}
}

// Stream is the table's change stream: the new and old images of every
// written item, which the webhooks' dispatch (new responses and edits) and
// the tally (responses inserted, edited and removed: tally.go) read.
// Nothing is lost between a response's write and its webhooks: the stream
// keeps every change for 24 hours and its reader retries.
func Stream() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
}

// StreamARN returns the ARN of the table's stream.
func StreamARN(ctx context.Context, client *dynamodb.Client, name string) (string, error) {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("store: describe table %s: %w", name, err)
	}
	if out.Table.LatestStreamArn == nil {
		return "", fmt.Errorf("store: table %s has no stream", name)
	}
	return *out.Table.LatestStreamArn, nil
}
