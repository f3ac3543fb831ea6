package dispatch_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/dispatch"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// record is a stream record of response rid of survey sid, with the
// files marks of its new and old images (nil: no mark).
func record(name, seq string, sid, rid int64, newFiles, oldFiles []string) events.DynamoDBEventRecord {
	img := func(files []string) map[string]events.DynamoDBAttributeValue {
		m := map[string]events.DynamoDBAttributeValue{
			"PK":           events.NewStringAttribute(store.ResponsesShardPK(sid, store.ResponseShard(rid))),
			"SK":           events.NewStringAttribute(store.ResponseSK(rid)),
			"submitted_at": events.NewStringAttribute("2026-11-25T07:00:00.000000Z"),
		}
		if name == "MODIFY" {
			m["edited_at"] = events.NewStringAttribute("2026-11-25T07:01:00.000000Z")
		}
		if files != nil {
			m[store.AttrFiles] = events.NewStringSetAttribute(files)
		}
		return m
	}
	rec := events.DynamoDBEventRecord{EventName: name, Change: events.DynamoDBStreamRecord{SequenceNumber: seq,
		Keys: map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute(store.ResponsesShardPK(sid, store.ResponseShard(rid))),
			"SK": events.NewStringAttribute(store.ResponseSK(rid))},
		NewImage: img(newFiles)}}
	if name == "MODIFY" {
		rec.Change.OldImage = img(oldFiles)
	}
	return rec
}

// TestFilesToKeep: an insertion keeps its files; an edit only the files
// it added; keys outside the uploads' prefix are never touched.
func TestFilesToKeep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rec  events.DynamoDBEventRecord
		want []string
	}{
		{"insert without files", record("INSERT", "1", 7, 1, nil, nil), nil},
		{"insert", record("INSERT", "1", 7, 1, []string{"uploads/7/a", "uploads/7/b"}, nil), []string{"uploads/7/a", "uploads/7/b"}},
		{"edit adding one", record("MODIFY", "1", 7, 1, []string{"uploads/7/a", "uploads/7/c"}, []string{"uploads/7/a"}), []string{"uploads/7/c"}},
		{"edit keeping them", record("MODIFY", "1", 7, 1, []string{"uploads/7/a"}, []string{"uploads/7/a"}), nil},
		{"edit removing them", record("MODIFY", "1", 7, 1, nil, []string{"uploads/7/a"}), nil},
		{"outside the prefix", record("INSERT", "1", 7, 1, []string{"exports/7/x", "uploads/", "uploads/7/a"}, nil), []string{"uploads/7/a"}},
	} {
		got := dispatch.FilesToKeep(tc.rec)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// keeper fails the keys it is told to and records the others.
type keeper struct {
	mu   sync.Mutex
	bad  map[string]bool
	kept []string
}

func (k *keeper) Keep(_ context.Context, key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.bad[key] {
		return errors.New("s3: service unavailable")
	}
	k.kept = append(k.kept, key)
	return nil
}

// TestHandleKeepFailure: a file that cannot be kept names its record
// failed (Lambda retries the batch from it, halving it, and gives it up to
// the failure queue at last); the other records' files are kept, and no
// other record is named.
func TestHandleKeepFailure(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	k := &keeper{bad: map[string]bool{"uploads/9/bad": true}}
	d := dispatch.New(dispatch.Deps{Store: st, Files: k})
	resp, err := d.Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		record("INSERT", "100", 9, 1, []string{"uploads/9/a"}, nil),
		record("INSERT", "101", 9, 2, []string{"uploads/9/b", "uploads/9/bad"}, nil),
		record("INSERT", "102", 9, 3, nil, nil),
		record("MODIFY", "103", 9, 1, []string{"uploads/9/a", "uploads/9/c"}, []string{"uploads/9/a"}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "101" {
		t.Errorf("failures %+v, want the record 101 alone", resp.BatchItemFailures)
	}
	slices.Sort(k.kept)
	if want := []string{"uploads/9/a", "uploads/9/b", "uploads/9/c"}; !slices.Equal(k.kept, want) {
		t.Errorf("kept %v, want %v", k.kept, want)
	}
	// Without a bucket (a deployment without uploads) the mark is ignored.
	resp, err = (dispatch.New(dispatch.Deps{Store: st})).Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		record("INSERT", "200", 9, 4, []string{"uploads/9/bad"}, nil)}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Errorf("without a bucket: %v %+v", err, resp.BatchItemFailures)
	}
}
