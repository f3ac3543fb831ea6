package responders_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"surveyservice/functions/dispatch"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

// tagPending puts the upload=pending tag on an object, as S3 does with
// the presigned POST's tagging field (the emulator ignores that field).
func tagPending(tb testing.TB, b *uploads.Bucket, key string) {
	tb.Helper()
	if _, err := b.Client().PutObjectTagging(context.Background(), &s3.PutObjectTaggingInput{Bucket: aws.String(b.Name()), Key: aws.String(key),
		Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String(uploads.PendingTagKey), Value: aws.String(uploads.PendingTagValue)}}}}); err != nil {
		tb.Fatal(err)
	}
}

// pending reports whether an object still carries the pending tag (the
// lifecycle rule would remove it after a day).
func pending(tb testing.TB, b *uploads.Bucket, key string) bool {
	tb.Helper()
	out, err := b.Client().GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: aws.String(b.Name()), Key: aws.String(key)})
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range out.TagSet {
		if aws.ToString(t.Key) == uploads.PendingTagKey && aws.ToString(t.Value) == uploads.PendingTagValue {
			return true
		}
	}
	return false
}

// streamOfSurvey are the stream's records of the survey's responses that
// the dispatch's event source passes (dispatch.Matches), oldest first.
func streamOfSurvey(tb testing.TB, sid int64) []events.DynamoDBEventRecord {
	tb.Helper()
	var out []events.DynamoDBEventRecord
	for _, recs := range testenv.StreamRecords(tb) {
		for _, r := range recs {
			if !dispatch.Matches(r) {
				continue
			}
			if ref, ok := store.ParseResponseRef(r.Change.NewImage["PK"].String(), r.Change.NewImage["SK"].String(), r.Change.NewImage["submitted_at"].String()); ok && ref.SurveyID == sid {
				out = append(out, r)
			}
		}
	}
	return out
}

// countingKeeper is the bucket, counting its Keep calls.
type countingKeeper struct {
	b    *uploads.Bucket
	keys []string
}

func (k *countingKeeper) Keep(ctx context.Context, key string) error {
	k.keys = append(k.keys, key)
	return k.b.Keep(ctx, key)
}

// dispatchStream hands recs to the dispatch function's own handler with
// the bucket, as the stream's event source does, and fails the test on a
// record it names failed. It answers the files it kept.
func dispatchStream(tb testing.TB, st *store.Store, b *uploads.Bucket, recs []events.DynamoDBEventRecord) []string {
	tb.Helper()
	k := &countingKeeper{b: b}
	resp, err := (dispatch.New(dispatch.Deps{Store: st, Queue: noQueue{}, Files: k})).Handle(context.Background(), events.DynamoDBEvent{Records: recs})
	if err != nil || len(resp.BatchItemFailures) > 0 {
		tb.Fatalf("dispatch: %v, failed %v", err, resp.BatchItemFailures)
	}
	return k.keys
}

// noQueue: the surveys of these tests have no webhooks, so no job is sent.
type noQueue struct{}

func (noQueue) Send(context.Context, []webhook.Job, time.Duration) error {
	return errors.New("no webhook job expected")
}
