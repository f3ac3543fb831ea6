package exports_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// fetch GETs a presigned link as any HTTP client would.
func fetch(t *testing.T, url string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// TestWriteAndLink: a small object (one PutObject) and a large one (a
// multipart upload of three parts) read back whole through presigned
// links, with their content type and disposition.
func TestWriteAndLink(t *testing.T) {
	b := testenv.Exports(t)
	ctx := context.Background()
	large := bytes.Repeat([]byte("0123456789abcdef,\"quoted\"\r\n"), (17<<20)/27)
	for name, data := range map[string][]byte{"small.csv": []byte("\uFEFFid\r\n1\r\n"), "large.csv": large} {
		w := b.Create(ctx, "exports/test/"+name, "text/csv; charset=utf-8", `attachment; filename="`+name+`"`)
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 100_000)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		url, err := b.URL(ctx, "exports/test/"+name)
		if err != nil {
			t.Fatal(err)
		}
		code, header, got := fetch(t, url)
		if code != 200 || sha256.Sum256(got) != sha256.Sum256(data) {
			t.Fatalf("%s: GET = %d, %d bytes, want 200 and the %d bytes written", name, code, len(got), len(data))
		}
		if header.Get("Content-Type") != "text/csv; charset=utf-8" || header.Get("Content-Disposition") != `attachment; filename="`+name+`"` {
			t.Errorf("%s: headers %v", name, header)
		}
	}
}

// TestAbortLeavesNothing: an aborted export, small or already in parts,
// stores no object and leaves no upload behind.
func TestAbortLeavesNothing(t *testing.T) {
	b := testenv.Exports(t)
	ctx := context.Background()
	for _, size := range []int{10, 9 << 20} {
		w := b.Create(ctx, "exports/aborted", "text/csv", "attachment")
		if _, err := w.Write(make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		w.Abort()
		if err := w.Close(); err == nil {
			t.Error("Close after Abort: no error")
		}
		_, err := b.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.Name()), Key: aws.String("exports/aborted")})
		if err == nil {
			t.Errorf("size %d: the aborted object exists", size)
		}
	}
	ups, err := b.Client().ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(b.Name())})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups.Uploads) != 0 {
		t.Errorf("%d multipart uploads left behind", len(ups.Uploads))
	}
}
