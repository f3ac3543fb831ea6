// Package exports keeps the files of response exports in an S3 bucket and
// lends short-lived links to them. An export is written as it is made
// (parts of 8 MiB, one in flight while the next fills), so a survey of any
// size costs a bounded amount of memory; the bucket's lifecycle rule
// (template.yaml) removes exports after a day.
package exports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// DefaultBucket names the bucket when EXPORTS_BUCKET is unset (local runs).
const DefaultBucket = "survey-exports"

// LinkValidity is how long a presigned link to an export works. Links are
// made at the moment a client follows the service's own export link (see
// functions/responses), so this only needs to cover the download's start.
const LinkValidity = 5 * time.Minute

// partSize is the size of an upload part (S3 wants at least 5 MiB).
const partSize = 8 << 20

// BucketFromEnv is the exports bucket: EXPORTS_BUCKET, by default
// DefaultBucket.
func BucketFromEnv(getenv func(string) string) string {
	if b := getenv("EXPORTS_BUCKET"); b != "" {
		return b
	}
	return DefaultBucket
}

// Bucket is the exports bucket.
type Bucket struct {
	client  *s3.Client
	presign *s3.PresignClient
	name    string
}

// New returns the bucket of that name. With a local endpoint (moto) it
// addresses objects by path, as the emulator needs.
func New(cfg aws.Config, name string) *Bucket {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = cfg.BaseEndpoint != nil
		// Checksums only where S3 requires them: the SDK's default CRC32
		// of every part buys nothing over TLS and the Content-MD5-free
		// multipart flow.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	return &Bucket{client: client, presign: s3.NewPresignClient(client), name: name}
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Client is the S3 client, for tests and administration.
func (b *Bucket) Client() *s3.Client { return b.client }

// URL is a presigned GET of the object, valid for LinkValidity.
func (b *Bucket) URL(ctx context.Context, key string) (string, error) {
	req, err := b.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.name), Key: aws.String(key)},
		s3.WithPresignExpires(LinkValidity))
	if err != nil {
		return "", fmt.Errorf("exports: presign %s: %w", key, err)
	}
	return req.URL, nil
}

// Writer writes one object. Small objects are one PutObject at Close;
// larger ones a multipart upload, a part on its way while the next fills.
// Close stores the object; Abort (or a failed Close) leaves nothing.
type Writer struct {
	b           *Bucket
	ctx         context.Context
	key         string
	contentType string
	disposition string

	buf      *bytes.Buffer
	spare    *bytes.Buffer
	uploadID *string
	parts    []types.CompletedPart
	inflight chan error // the part being uploaded, nil when none
	err      error
}

// Create starts an object; nothing is stored before Close.
func (b *Bucket) Create(ctx context.Context, key, contentType, disposition string) *Writer {
	return &Writer{b: b, ctx: ctx, key: key, contentType: contentType, disposition: disposition,
		buf: bytes.NewBuffer(make([]byte, 0, 64<<10))}
}

// Write buffers p, sending a part whenever one is full.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf.Write(p)
	if w.buf.Len() >= partSize {
		if err := w.flush(); err != nil {
			w.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// flush sends the buffer as the next part, after the one in flight.
func (w *Writer) flush() error {
	if w.uploadID == nil {
		out, err := w.b.client.CreateMultipartUpload(w.ctx, &s3.CreateMultipartUploadInput{
			Bucket: aws.String(w.b.name), Key: aws.String(w.key),
			ContentType: aws.String(w.contentType), ContentDisposition: aws.String(w.disposition),
		})
		if err != nil {
			return fmt.Errorf("exports: start upload of %s: %w", w.key, err)
		}
		w.uploadID = out.UploadId
	}
	if err := w.wait(); err != nil {
		return err
	}
	part := w.buf
	if w.spare == nil {
		w.spare = bytes.NewBuffer(make([]byte, 0, partSize+64<<10))
	}
	w.buf, w.spare = w.spare, nil
	w.buf.Reset()
	number := int32(len(w.parts) + 1)
	w.parts = append(w.parts, types.CompletedPart{PartNumber: aws.Int32(number)})
	done := make(chan error, 1)
	w.inflight = done
	go func() {
		out, err := w.b.client.UploadPart(w.ctx, &s3.UploadPartInput{
			Bucket: aws.String(w.b.name), Key: aws.String(w.key), UploadId: w.uploadID,
			PartNumber: aws.Int32(number), Body: bytes.NewReader(part.Bytes()), ContentLength: aws.Int64(int64(part.Len())),
		})
		if err == nil {
			w.parts[number-1].ETag = out.ETag
		}
		w.spare = part // the goroutine's write happens before done is read
		done <- err
	}()
	return nil
}

// wait waits for the part in flight.
func (w *Writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	err := <-w.inflight
	w.inflight = nil
	if err != nil {
		return fmt.Errorf("exports: upload part of %s: %w", w.key, err)
	}
	return nil
}

// Close stores the object.
func (w *Writer) Close() error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	if w.uploadID == nil {
		_, err := w.b.client.PutObject(w.ctx, &s3.PutObjectInput{
			Bucket: aws.String(w.b.name), Key: aws.String(w.key), Body: bytes.NewReader(w.buf.Bytes()),
			ContentLength: aws.Int64(int64(w.buf.Len())),
			ContentType:   aws.String(w.contentType), ContentDisposition: aws.String(w.disposition),
		})
		if err != nil {
			return fmt.Errorf("exports: put %s: %w", w.key, err)
		}
		return nil
	}
	if w.buf.Len() > 0 {
		if err := w.flush(); err != nil {
			w.err = err
			w.Abort()
			return err
		}
	}
	if err := w.wait(); err != nil {
		w.err = err
		w.Abort()
		return err
	}
	_, err := w.b.client.CompleteMultipartUpload(w.ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(w.b.name), Key: aws.String(w.key), UploadId: w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts},
	})
	if err != nil {
		w.err = fmt.Errorf("exports: complete %s: %w", w.key, err)
		w.Abort()
		return w.err
	}
	return nil
}

// Abort drops what was written: nothing of the object stays.
func (w *Writer) Abort() {
	if w.err == nil {
		w.err = errors.New("exports: aborted")
	}
	_ = w.wait()
	if w.uploadID != nil {
		_, _ = w.b.client.AbortMultipartUpload(context.WithoutCancel(w.ctx), &s3.AbortMultipartUploadInput{
			Bucket: aws.String(w.b.name), Key: aws.String(w.key), UploadId: w.uploadID,
		})
		w.uploadID = nil
	}
}
