package localaws

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/store"
)

// EnsureTable creates the table when it does not exist, waits until it is
// active and turns on its TTL attribute; an existing table without its
// stream (made before webhooks) gets it. It is safe to call on every start.
func EnsureTable(ctx context.Context, client *dynamodb.Client, name string) error {
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var missing *types.ResourceNotFoundException
	switch {
	case err == nil:
		spec := desc.Table.StreamSpecification
		if spec != nil && aws.ToBool(spec.StreamEnabled) && spec.StreamViewType != store.Stream().StreamViewType {
			// A stream's view type cannot change: turn it off, then on
			// with the new one (a new stream; its readers start at its
			// beginning).
			if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
				return fmt.Errorf("localaws: turn off the old stream of %s: %w", name, err)
			}
			spec = nil
		}
		if spec == nil || !aws.ToBool(spec.StreamEnabled) {
			if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: store.Stream()}); err != nil {
				return fmt.Errorf("localaws: enable the stream of %s: %w", name, err)
			}
		}
		return nil
	case !errors.As(err, &missing):
		return fmt.Errorf("localaws: describe table %s: %w", name, err)
	}
	if _, err := client.CreateTable(ctx, store.TableDefinition(name)); err != nil {
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) {
			return fmt.Errorf("localaws: create table %s: %w", name, err)
		}
	}
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 50 * time.Millisecond
		o.MaxDelay = time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
		return fmt.Errorf("localaws: wait for table %s: %w", name, err)
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(store.AttrTTL), Enabled: aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("localaws: enable TTL on %s: %w", name, err)
	}
	return nil
}
