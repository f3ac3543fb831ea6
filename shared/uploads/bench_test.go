package uploads_test

import (
	"context"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/uploads"
)

// BenchmarkPresignPost is the upload route's own work: the POST's policy
// signed locally (the SDK's presign runs its middleware stack; nothing is
// sent).
func BenchmarkPresignPost(b *testing.B) {
	bucket := testenv.Uploads(b)
	u := uploads.NewUpload(7, "session", uploads.File{FileName: "cv.pdf", Size: 123456, ContentType: "application/pdf"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bucket.PresignPost(ctx, 3, u); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is the submission's check of one upload answer: the
// sealed id opened, and one HeadObject (calls counted; the handler's time
// is the emulator's subtracted).
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	bucket := testenv.Uploads(b)
	content := []byte("%PDF-1.4 bench")
	u := uploads.NewUpload(9, "session", uploads.File{FileName: "a.pdf", Size: int64(len(content)), ContentType: "application/pdf"})
	p, err := bucket.PresignPost(ctx, 4, u)
	if err != nil {
		b.Fatal(err)
	}
	post(&testing.T{}, p, content, "application/pdf")
	id := plainOpener{}.seal(4, u)
	rules := uploads.Rules{MaxSizeMB: 1, Allowed: []string{"pdf"}}
	var heads, n int
	var own time.Duration
	for b.Loop() {
		cctx, calls := awsenv.WithCalls(ctx)
		start := time.Now()
		if _, msgs, err := bucket.Check(cctx, plainOpener{}, uploads.Answer{Survey: 4, Element: 9, Session: "session", Upload: id}, rules); err != nil || msgs != nil {
			b.Fatal(msgs, err)
		}
		own += time.Since(start) - calls.Elapsed()
		for _, c := range calls.Ops() {
			heads += c
		}
		n++
	}
	b.ReportMetric(float64(heads)/float64(n), "s3-calls/op")
	b.ReportMetric(float64(own.Nanoseconds())/float64(n), "handler-ns/op")
}
