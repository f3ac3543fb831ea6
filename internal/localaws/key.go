package localaws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
)

// EnsureKey returns the id of the key the alias names, creating a symmetric
// key with rotation and the alias when there is none. It is for local runs
// and tests; in AWS, template.yaml creates the key.
func EnsureKey(ctx context.Context, client *kms.Client, alias string) (string, error) {
	out, err := client.DescribeKey(ctx, &kms.DescribeKeyInput{KeyId: aws.String(alias)})
	if err == nil {
		return aws.ToString(out.KeyMetadata.KeyId), nil
	}
	var missing *types.NotFoundException
	if !errors.As(err, &missing) {
		return "", fmt.Errorf("localaws: describe key %s: %w", alias, err)
	}
	created, err := client.CreateKey(ctx, &kms.CreateKeyInput{
		Description: aws.String("Survey service: wraps the data keys of personalised links"),
		KeySpec:     types.KeySpecSymmetricDefault,
		KeyUsage:    types.KeyUsageTypeEncryptDecrypt,
	})
	if err != nil {
		return "", fmt.Errorf("localaws: create key: %w", err)
	}
	id := aws.ToString(created.KeyMetadata.KeyId)
	if _, err := client.EnableKeyRotation(ctx, &kms.EnableKeyRotationInput{KeyId: aws.String(id)}); err != nil {
		return "", fmt.Errorf("localaws: enable rotation: %w", err)
	}
	if _, err := client.CreateAlias(ctx, &kms.CreateAliasInput{AliasName: aws.String(alias), TargetKeyId: aws.String(id)}); err != nil {
		return "", fmt.Errorf("localaws: create alias %s: %w", alias, err)
	}
	return id, nil
}
