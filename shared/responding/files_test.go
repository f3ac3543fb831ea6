package responding

import (
	"context"
	"errors"
	"testing"

	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// failingFiles is a bucket whose every call fails, as S3 does in an outage.
type failingFiles struct{ kept []string }

func (f *failingFiles) Check(context.Context, uploads.Opener, int64, int64, string, string, uploads.Rules) (uploads.File, []string, error) {
	return uploads.File{}, nil, errors.New("s3: connection reset")
}

func (f *failingFiles) Keep(_ context.Context, key string) error {
	f.kept = append(f.kept, key)
	return errors.New("s3: connection reset")
}

// TestKeepFilesFailureIs503: a recorded response whose file cannot be
// kept answers the API's 503 (retry: the same Idempotency-Key keeps it
// again), never a 500 carrying S3's error.
func TestKeepFilesFailureIs503(t *testing.T) {
	t.Parallel()
	f := &failingFiles{}
	err := keepFiles(context.Background(), f, []string{"uploads/1/a", "uploads/1/b"})
	var se *survey.Error
	if !errors.As(err, &se) || se.Code != survey.EUNAVAILABLE {
		t.Fatalf("keepFiles: %v, want a survey.Error %s", err, survey.EUNAVAILABLE)
	}
	if se.Detail == "" || len(f.kept) != 1 {
		t.Errorf("detail %q, keeps tried %v: want a message and a stop at the first failure", se.Detail, f.kept)
	}
	if err := keepFiles(context.Background(), f, nil); err != nil {
		t.Errorf("no files: %v", err)
	}
}
