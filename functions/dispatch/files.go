package dispatch

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
	"surveyservice/shared/uploads"
)

// Keeper keeps the files a recorded response answers with (contract
// section 16): it removes their pending tag so that the uploads' lifecycle
// rule leaves them; *uploads.Bucket implements it. Keeping a kept file, or
// one no longer there, is no error.
type Keeper interface {
	Keep(ctx context.Context, key string) error
}

var _ Keeper = (*uploads.Bucket)(nil)

// FilesToKeep are the object keys a record's response asks to keep: the
// files of its AttrFiles mark (a string set the submission and the edit
// write), for an edit (MODIFY) only those the edit added (the others were
// kept from an earlier record). Keys outside the uploads' prefix are
// ignored.
//
// The files are kept here, from the stream, and not by the submission:
// the submission's only S3 call is the HeadObject that checks an answer,
// and a response written is a response whose files are kept, even when
// the Lambda that wrote it dies just after (its INSERT is on the stream
// whatever becomes of the request). This function, not a third one, reads
// them: it already reads every response INSERT and MODIFY, and DynamoDB
// Streams throttles a shard read by more than two consumers (dispatch and
// tally are its two).
func FilesToKeep(rec events.DynamoDBEventRecord) []string {
	keys := files(rec.Change.NewImage)
	if rec.EventName == "MODIFY" {
		old := files(rec.Change.OldImage)
		keys = slices.DeleteFunc(keys, func(k string) bool { return slices.Contains(old, k) })
	}
	return keys
}

func files(img map[string]events.DynamoDBAttributeValue) []string {
	v, ok := img[store.AttrFiles]
	if !ok || v.DataType() != events.DataTypeStringSet {
		return nil
	}
	var keys []string
	for _, k := range v.StringSet() {
		if strings.HasPrefix(k, uploads.Prefix) && len(k) > len(uploads.Prefix) {
			keys = append(keys, k)
		}
	}
	return keys
}
