package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/internal/localaws"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// TestKeepFiles: keep-files keeps the files of the responses submitted or
// edited since the time given (the window the dispatch's failure queue
// names) and no other; run again it changes nothing; a bad command line
// is a usage error.
func TestKeepFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	if err := localaws.EnsureTable(ctx, st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	bucket := testenv.Uploads(t)
	base := e.getenv
	e.getenv = func(k string) string {
		if k == "UPLOADS_BUCKET" {
			return bucket.Name()
		}
		return base(k)
	}
	since := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const sid = 77
	put := func(name string) string {
		key := fmt.Sprintf("%s%d/%s", uploads.Prefix, sid, name)
		if _, err := bucket.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket.Name()), Key: aws.String(key),
			Body: strings.NewReader(name), Tagging: aws.String(uploads.PendingTagKey + "=" + uploads.PendingTagValue)}); err != nil {
			t.Fatal(err)
		}
		return key
	}
	pending := func(key string) bool {
		out, err := bucket.Client().GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket.Name()), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.TagSet) > 0
	}
	old, fresh, edited := put("old"), put("fresh"), put("edited")
	rs := []survey.Response{
		{ID: 1, SurveyID: sid, SubmittedAt: since.Add(-time.Hour)},
		{ID: 2, SurveyID: sid, SubmittedAt: since.Add(time.Minute)},
		{ID: 3, SurveyID: sid, SubmittedAt: since.Add(-time.Hour), EditedAt: since.Add(2 * time.Minute)},
		{ID: 4, SurveyID: sid, SubmittedAt: since.Add(time.Minute)}, // no files
	}
	for i := range rs {
		rs[i].StartedAt, rs[i].Answers = rs[i].SubmittedAt.Add(-time.Minute), map[int64]json.RawMessage{}
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	for rid, key := range map[int64]string{1: old, 2: fresh, 3: edited} {
		_, err := st.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.table),
			Key: map[string]dtypes.AttributeValue{"PK": &dtypes.AttributeValueMemberS{Value: store.ResponsesShardPK(sid, store.ResponseShard(rid))},
				"SK": &dtypes.AttributeValueMemberS{Value: store.ResponseSK(rid)}},
			UpdateExpression:          aws.String("SET #f = :f"),
			ExpressionAttributeNames:  map[string]string{"#f": store.AttrFiles},
			ExpressionAttributeValues: map[string]dtypes.AttributeValue{":f": &dtypes.AttributeValueMemberSS{Value: []string{key}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		var got store.ResponseFilesScan
		e.run(t, "keep-files", "--since", since.Format(time.RFC3339), "--segments", "2").ok(t, &got, "scanned", "responses", "files")
		if got.Responses != 2 || got.Files != 2 || got.Scanned < 4 {
			t.Errorf("keep-files: %+v, want the 2 responses of the window and their 2 files", got)
		}
		if !pending(old) || pending(fresh) || pending(edited) {
			t.Errorf("pending: old %v fresh %v edited %v; want only the one before the window", pending(old), pending(fresh), pending(edited))
		}
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"keep-files"}, "keep-files needs --since"},
		{[]string{"keep-files", "--since", "yesterday"}, "keep-files needs --since"},
		{[]string{"keep-files", "--since", "2026-11-20T10:00:00Z", "--segments", "0"}, "--segments must be 1..1000"},
	} {
		e.run(t, bad.args...).fails(t, 2, bad.msg)
	}
}
