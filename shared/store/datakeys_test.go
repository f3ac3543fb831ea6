package store_test

import (
	"context"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/datakey"
)

// TestPutDataKeyIsRetrySafe: a PutDataKey repeated with the same key (as
// a retry after a lost answer repeats it) succeeds; another key under the
// same id is refused, and the first stays.
func TestPutDataKeyIsRetrySafe(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	k := datakey.Key{ID: datakey.ID{1, 2, 3, 4}, Wrapped: []byte("wrapped bytes"), Created: time.Now().UTC().Truncate(time.Millisecond)}
	if err := st.PutDataKey(ctx, k, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.PutDataKey(ctx, k, nil); err != nil {
		t.Errorf("the same key again: %v", err)
	}
	clash := k
	clash.Wrapped = []byte("other bytes")
	if err := st.PutDataKey(ctx, clash, nil); err == nil {
		t.Error("another key under the same id: no error")
	}
	got, err := st.DataKey(ctx, k.ID)
	if err != nil || string(got.Wrapped) != "wrapped bytes" {
		t.Errorf("stored key %q, %v", got.Wrapped, err)
	}
}
