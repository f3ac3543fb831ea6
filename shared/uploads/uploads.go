// Package uploads keeps the files responders attach to file-upload
// questions (element type 11, contract section 16) in a private S3 bucket.
// The service never carries a file: it presigns a POST whose policy fixes
// the object's key, its exact size and its content type (15 minutes); the
// browser sends the file straight to S3. The upload id it answers is
// sealed (links.PurposeUpload): it names the object and carries what the
// submission checks, so checking an answer costs one HeadObject. Files of
// a response are deleted with it; uploads never answered are removed by
// the bucket's lifecycle rule on Prefix after a day (template.yaml).
package uploads

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// DefaultBucket names the bucket when UPLOADS_BUCKET is unset (local runs).
const DefaultBucket = "survey-uploads"

// Prefix is where every upload's object lives; the functions' IAM
// policies reach nothing else of the bucket.
const Prefix = "uploads/"

// PendingTag is the tag every upload is made with (the POST's policy
// requires it): the bucket's lifecycle rule removes objects under Prefix
// that still carry it a day after their upload (template.yaml). A
// recorded response that answers with a file has its tag removed (Keep) by
// the dispatch function, which reads the response's insertion (or edit)
// from the table's stream, so answered files stay until their response is
// deleted; the submission itself never untags.
const (
	PendingTagKey   = "upload"
	PendingTagValue = "pending"
	pendingTagging  = "<Tagging><TagSet><Tag><Key>" + PendingTagKey + "</Key><Value>" + PendingTagValue + "</Value></Tag></TagSet></Tagging>"
)

// Validity of the presigned POST (the responder's upload) and of the
// presigned GET (the owner's download).
const (
	PostValidity = 15 * time.Minute
	GetValidity  = 10 * time.Minute
)

// BucketFromEnv is the uploads bucket: UPLOADS_BUCKET, by default
// DefaultBucket.
func BucketFromEnv(getenv func(string) string) string {
	if b := getenv("UPLOADS_BUCKET"); b != "" {
		return b
	}
	return DefaultBucket
}

// Bucket is the uploads bucket.
type Bucket struct {
	client  *s3.Client
	presign *s3.PresignClient
	name    string
}

// New returns the bucket of that name. With a local endpoint (moto) it
// addresses objects by path, as the emulator needs. opts are applied
// last: a local run points the client at a proxy of its own
// (internal/localaws).
func New(cfg aws.Config, name string, opts ...func(*s3.Options)) *Bucket {
	client := s3.NewFromConfig(cfg, append([]func(*s3.Options){func(o *s3.Options) {
		o.UsePathStyle = cfg.BaseEndpoint != nil
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	}}, opts...)...)
	return &Bucket{client: client, presign: s3.NewPresignClient(client), name: name}
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Client is the S3 client, for tests and administration.
func (b *Bucket) Client() *s3.Client { return b.client }

// Post is a presigned POST: the form's action and its fields, which the
// browser sends before the file.
type Post struct {
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
}

// PresignPost presigns the POST of an upload's object: the policy names
// its key, its content type, and a content-length-range of exactly its
// size, and expires in PostValidity. No AWS call: signing is local.
func (b *Bucket) PresignPost(ctx context.Context, surveyID int64, u Upload) (Post, error) {
	return b.PresignPostKey(ctx, u.Key(surveyID), u.Size, u.ContentType, PostValidity)
}

// PresignPostKey presigns the POST of an object under Prefix: its key,
// content type and exact size fixed by the policy, tagged pending (the
// lifecycle rule removes it after a day unless it is taken), expiring
// after validity. No AWS call.
func (b *Bucket) PresignPostKey(ctx context.Context, key string, size int64, contentType string, validity time.Duration) (Post, error) {
	out, err := b.presign.PresignPostObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)},
		func(o *s3.PresignPostOptions) {
			o.Expires = validity
			o.Conditions = []any{
				[]any{"content-length-range", size, size},
				map[string]string{"Content-Type": contentType},
				map[string]string{"tagging": pendingTagging},
			}
		})
	if err != nil {
		return Post{}, fmt.Errorf("uploads: presign POST %s: %w", key, err)
	}
	fields := make(map[string]string, len(out.Values)+2)
	for k, v := range out.Values {
		fields[k] = v
	}
	fields["key"] = key
	fields["Content-Type"] = contentType
	fields["tagging"] = pendingTagging
	return Post{URL: out.URL, Fields: fields}, nil
}

// Object is what S3 holds of an upload.
type Object struct {
	Size        int64
	ContentType string
}

// ErrNoObject is Head's answer for an object that is not there.
var ErrNoObject = errors.New("uploads: no such object")

// Head reads an object's size and content type: one HeadObject.
func (b *Bucket) Head(ctx context.Context, key string) (Object, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)})
	var nf *types.NotFound
	var api smithy.APIError
	if errors.As(err, &nf) || (errors.As(err, &api) && (api.ErrorCode() == "NotFound" || api.ErrorCode() == "NoSuchKey")) {
		return Object{}, ErrNoObject
	}
	if err != nil {
		return Object{}, fmt.Errorf("uploads: head %s: %w", key, err)
	}
	return Object{Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}, nil
}

// Keep removes the pending tag of an answered file, so that the lifecycle
// rule leaves it: one DeleteObjectTagging. It is idempotent: a file kept
// already stays kept, and a file no longer there (its response deleted,
// and the file with it, before the stream's record was handled) is no
// error, since nothing is left to keep.
func (b *Bucket) Keep(ctx context.Context, key string) error {
	_, err := b.client.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String(b.name), Key: aws.String(key)})
	var nk *types.NoSuchKey
	var api smithy.APIError
	if errors.As(err, &nk) || errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound") {
		return nil
	}
	if err != nil {
		// S3 answers NoSuchKey; an emulator may answer a server error
		// instead: a file that is not there is kept all the same.
		if _, herr := b.Head(ctx, key); errors.Is(herr, ErrNoObject) {
			return nil
		}
		return fmt.Errorf("uploads: keep %s: %w", key, err)
	}
	return nil
}

// URL is a presigned GET of a file, valid for GetValidity, that downloads
// it under its file name. No AWS call.
func (b *Bucket) URL(ctx context.Context, key, fileName string) (string, error) {
	out, err := b.presign.PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(b.name), Key: aws.String(key),
		ResponseContentDisposition: aws.String("attachment; filename*=UTF-8''" + url.PathEscape(fileName)),
	}, s3.WithPresignExpires(GetValidity))
	if err != nil {
		return "", fmt.Errorf("uploads: presign GET %s: %w", key, err)
	}
	return out.URL, nil
}

// Delete removes files (a deleted response's): one DeleteObjects a
// thousand keys; keys already gone are no error.
func (b *Bucket) Delete(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		objs := make([]types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			objs[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := b.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(b.name), Delete: &types.Delete{Objects: objs, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return fmt.Errorf("uploads: delete %d files: %w", n, err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("uploads: delete %s: %s %s", aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		keys = keys[n:]
	}
	return nil
}

// Origin is the origin the responders' browsers send files to (the
// presigned POST's scheme and host): the one the hosted page's
// Content-Security-Policy lets it connect to. "" when it cannot be known.
func (b *Bucket) Origin() string {
	out, err := b.presign.PresignPostObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(b.name), Key: aws.String(Prefix + "origin")})
	if err != nil {
		return ""
	}
	u, err := url.Parse(out.URL)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
