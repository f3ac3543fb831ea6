package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"surveyservice/internal/eventsource"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

// flakyKeeper is the bucket behind an S3 that fails the first fails
// calls (all of them when fails < 0).
type flakyKeeper struct {
	b     *uploads.Bucket
	fails atomic.Int64
	calls atomic.Int64
}

func (k *flakyKeeper) Keep(ctx context.Context, key string) error {
	if n, fails := k.calls.Add(1), k.fails.Load(); fails < 0 || n <= fails {
		return errors.New("s3: service unavailable")
	}
	return k.b.Keep(ctx, key)
}

// pendingUpload puts an object under the survey's uploads as a browser's
// presigned POST leaves it: tagged pending.
func pendingUpload(t *testing.T, b *uploads.Bucket, sid int64, name string) string {
	t.Helper()
	key := fmt.Sprintf("%s%d/%s", uploads.Prefix, sid, name)
	if _, err := b.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(b.Name()), Key: aws.String(key),
		Body: strings.NewReader("file " + name), Tagging: aws.String(uploads.PendingTagKey + "=" + uploads.PendingTagValue)}); err != nil {
		t.Fatal(err)
	}
	if !isPending(t, b, key) {
		t.Fatalf("%s: not tagged pending", key)
	}
	return key
}

func isPending(t *testing.T, b *uploads.Bucket, key string) bool {
	t.Helper()
	out, err := b.Client().GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: aws.String(b.Name()), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	return hasPendingTag(out.TagSet)
}

func hasPendingTag(tags []types.Tag) bool {
	for _, tg := range tags {
		if aws.ToString(tg.Key) == uploads.PendingTagKey && aws.ToString(tg.Value) == uploads.PendingTagValue {
			return true
		}
	}
	return false
}

// submitWithFiles records a response as the submission does, carrying the
// files mark of its upload answers.
func submitWithFiles(t *testing.T, st *store.Store, sid int64, keys ...string) int64 {
	t.Helper()
	now := time.Now().UTC()
	files := make([]store.ResponseFile, len(keys))
	for i, k := range keys {
		files[i] = store.ResponseFile{Key: k, Element: 1}
	}
	done, err := st.Submit(context.Background(), store.Submission{
		Response: survey.Response{SurveyID: sid, StartedAt: now.Add(-time.Minute), Answers: map[int64]json.RawMessage{1: json.RawMessage(`"Yes"`)}},
		KeyHash:  fmt.Sprintf("%064x", time.Now().UnixNano()), BodyHash: strings.Repeat("0", 64), Files: files,
	})
	if err != nil {
		t.Fatal(err)
	}
	return done.ID
}

// TestStreamKeepsFiles: `make run`'s stream poller (Lambda's event source
// mapping of the dispatch function, with its retry settings) keeps the
// files a recorded response answers with, and those an edit adds; a
// response without files costs no S3 call. S3 failing twice is retried
// with the batch and the file kept; S3 failing for good is reported to
// the on-failure destination, the file left pending.
func TestStreamKeepsFiles(t *testing.T) {
	bucket := testenv.Uploads(t)
	keeper := &flakyKeeper{b: bucket}
	keeper.fails.Store(2)
	var mu sync.Mutex
	var failures []eventsource.Failure
	e := newHookEnv(t, hookOptions{guard: webhook.Guard{AllowLoopback: true}, files: keeper,
		stream:          eventsource.Stream{MaxRetries: 3, Bisect: true, MaxRecordAge: time.Hour, RetryWait: 20 * time.Millisecond},
		onStreamFailure: func(f eventsource.Failure) { mu.Lock(); failures = append(failures, f); mu.Unlock() }})

	// Twice refused by S3, then kept: the stream's retries.
	a := pendingUpload(t, bucket, e.sid, "a")
	rid := submitWithFiles(t, e.st, e.sid, a)
	waitFor(t, settle, "the submission's file kept", func() bool { return !isPending(t, bucket, a) })
	if n := keeper.calls.Load(); n != 3 {
		t.Errorf("%d Keep calls, want 3 (two failures, then the keep)", n)
	}
	// Without files: no call.
	before := keeper.calls.Load()
	e.respond(t, 1)
	// An edit adding a file keeps it, and only it.
	b := pendingUpload(t, bucket, e.sid, "b")
	if _, err := e.st.EditResponse(context.Background(), store.ResponseEdit{SurveyID: e.sid, ResponseID: rid,
		Answers: map[int64]json.RawMessage{1: json.RawMessage(`"No"`)}, Files: []store.ResponseFile{{Key: a, Element: 1}, {Key: b, Element: 1}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, settle, "the edit's new file kept", func() bool { return !isPending(t, bucket, b) })
	if n := keeper.calls.Load() - before; n != 1 {
		t.Errorf("%d Keep calls for a response without files and an edit adding one, want 1", n)
	}
	mu.Lock()
	if len(failures) != 0 {
		t.Errorf("failures reported: %+v", failures)
	}
	mu.Unlock()

	// S3 down for good: the record is given up to the on-failure
	// destination after the retries; the file stays pending.
	keeper.fails.Store(-1)
	c := pendingUpload(t, bucket, e.sid, "c")
	submitWithFiles(t, e.st, e.sid, c)
	waitFor(t, settle, "the failure reported", func() bool { mu.Lock(); defer mu.Unlock(); return len(failures) > 0 })
	mu.Lock()
	f := failures[0]
	mu.Unlock()
	if f.Records != 1 || f.Reason != "RetryAttemptsExhausted" || !isPending(t, bucket, c) {
		t.Errorf("reported %+v, pending %v; want the one record given up and its file pending", f, isPending(t, bucket, c))
	}
}
