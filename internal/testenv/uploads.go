package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/internal/localaws"
	"surveyservice/shared/uploads"
)

var uploadBuckets = map[string]*uploads.Bucket{}

// UploadsOrigin is the origin the test buckets' CORS rule allows.
const UploadsOrigin = "http://127.0.0.1"

// Uploads returns the uploads bucket of the running top-level test, on
// the emulator's S3: a bucket of its own, made on first use, as `make run`
// makes the local one.
func Uploads(tb testing.TB) *uploads.Bucket {
	tb.Helper()
	Store(tb)
	root, _, _ := strings.Cut(tb.Name(), "/")
	mu.Lock()
	defer mu.Unlock()
	if b, ok := uploadBuckets[root]; ok {
		return b
	}
	b := uploads.New(localaws.Scoped(cfg, root), fmt.Sprintf("uploads-%d", seq.Add(1)))
	if err := localaws.EnsureUploads(context.Background(), b, UploadsOrigin); err != nil {
		tb.Fatalf("testenv: create uploads bucket: %v", err)
	}
	uploadBuckets[root] = b
	return b
}

// PostFile sends content to a presigned POST as a browser's form does
// (its fields, then the file) and answers S3's status.
func PostFile(tb testing.TB, p uploads.Post, content []byte) int {
	tb.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range p.Fields {
		if err := mw.WriteField(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", "file")
	if err != nil {
		tb.Fatal(err)
	}
	fw.Write(content)
	mw.Close()
	resp, err := http.Post(p.URL, mw.FormDataContentType(), &body)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// UploadKeys lists the objects under the bucket's uploads prefix.
func UploadKeys(tb testing.TB, b *uploads.Bucket) []string {
	tb.Helper()
	out, err := b.Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(b.Name()), Prefix: aws.String(uploads.Prefix)})
	if err != nil {
		tb.Fatal(err)
	}
	keys := make([]string, len(out.Contents))
	for i, o := range out.Contents {
		keys[i] = aws.ToString(o.Key)
	}
	return keys
}
