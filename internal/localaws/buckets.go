package localaws

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"surveyservice/shared/exports"
	"surveyservice/shared/uploads"
)

// EnsureExports creates the exports bucket when it does not exist; in
// AWS, template.yaml creates it.
func EnsureExports(ctx context.Context, b *exports.Bucket) error {
	if err := createBucket(ctx, b.Client(), b.Name()); err != nil {
		return fmt.Errorf("localaws: exports: %w", err)
	}
	return nil
}

// EnsureUploads creates the uploads bucket with its CORS rule when it does
// not exist; in AWS, template.yaml makes it. origin is the service's own
// address, the one origin allowed to POST.
func EnsureUploads(ctx context.Context, b *uploads.Bucket, origin string) error {
	if err := createBucket(ctx, b.Client(), b.Name()); err != nil {
		return fmt.Errorf("localaws: uploads: %w", err)
	}
	_, err := b.Client().PutBucketCors(ctx, &s3.PutBucketCorsInput{
		Bucket: aws.String(b.Name()),
		CORSConfiguration: &types.CORSConfiguration{CORSRules: []types.CORSRule{{
			AllowedMethods: []string{"POST"}, AllowedOrigins: []string{origin}, AllowedHeaders: []string{"*"}, MaxAgeSeconds: aws.Int32(3600),
		}}},
	})
	if err != nil {
		return fmt.Errorf("localaws: uploads bucket %s: CORS: %w", b.Name(), err)
	}
	return nil
}

// createBucket makes the bucket unless it is there already.
func createBucket(ctx context.Context, client *s3.Client, name string) error {
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)}); err == nil {
		return nil
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if r := client.Options().Region; r != "us-east-1" {
		// Outside us-east-1 S3 wants the region named again.
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(r)}
	}
	_, err := client.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("create bucket %s: %w", name, err)
	}
	return nil
}

// UploadsAt returns the uploads bucket of that name on an S3 endpoint of
// its own, addressed by path: a local emulator behind a proxy (make run,
// the browser tests).
func UploadsAt(cfg aws.Config, name, endpoint string) *uploads.Bucket {
	return uploads.New(cfg, name, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
}
