package testenv

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
	b := uploads.New(cfg, fmt.Sprintf("uploads-%d", seq.Add(1)))
	if err := b.Ensure(context.Background(), UploadsOrigin); err != nil {
		tb.Fatalf("testenv: create uploads bucket: %v", err)
	}
	uploadBuckets[root] = b
	return b
}
