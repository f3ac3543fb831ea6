package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

var errBusy = survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")

// fail wraps a DynamoDB error with what the store was doing. Throttles,
// outages and transaction conflicts become EUNAVAILABLE (503, retry later);
// domain errors pass through; anything else stays internal (500, cause
// logged).
func (s *Store) fail(op string, err error) error {
	var se *survey.Error
	if errors.As(err, &se) {
		return err
	}
	if awsenv.IsUnavailable(err) || txRetryable(err) {
		return &wrapped{op: op, err: err, public: errBusy}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// wrapped keeps the AWS cause for the log while the client sees public.
type wrapped struct {
	op     string
	err    error
	public *survey.Error
}

func (w *wrapped) Error() string { return "store: " + w.op + ": " + w.err.Error() }

// Unwrap exposes both the public error (for errors.As) and the cause.
func (w *wrapped) Unwrap() []error { return []error{w.public, w.err} }

// txReasons returns the cancellation reason codes of a cancelled
// transaction, one per item in order, or nil for any other error.
func txReasons(err error) []string {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	out := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		if r.Code != nil {
			out[i] = *r.Code
		}
	}
	return out
}

// txFailedAt reports whether item i of a cancelled transaction failed its
// condition.
func txFailedAt(err error, i int) bool {
	r := txReasons(err)
	return i < len(r) && r[i] == "ConditionalCheckFailed"
}

// txConflict reports a transaction cancelled by a concurrent one: the
// client may retry.
func txConflict(err error) bool {
	for _, r := range txReasons(err) {
		if r == "TransactionConflict" {
			return true
		}
	}
	return false
}

// txRetryable reports a transaction cancelled for a reason that passes: a
// concurrent transaction on one of its items, or throttling of one. Trying
// again later may succeed; the client's answer is 503.
func txRetryable(err error) bool {
	for _, r := range txReasons(err) {
		switch r {
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			return true
		}
	}
	return false
}

// serverError tells a DynamoDB 500 (InternalServerError) apart.
func serverError(err error) bool {
	var ise *types.InternalServerError
	return errors.As(err, &ise)
}

// ownerRetryFor bounds how long an owner's change of a survey (settings,
// name, language, folder) keeps trying after
// losing to concurrent transactions on the survey item. It is more patient
// than the other writes' few quick tries (retryConflict): an owner's change
// is rare and a person waits for it, while on a survey going viral the
// tally writes the survey item once a batch from every stream shard (tens
// a second at thousands of submissions a second), so a few tries within
// 150 ms can all meet one of its transactions. Waiting a second or two
// beats a 503 the owner has to retry by hand.
const ownerRetryFor = 2 * time.Second

// retryOwnerConflict waits before another try of an owner's change lost
// to a concurrent transaction (a TransactWriteItems cancelled for
// TransactionConflict, or a single write refused with
// TransactionConflictException after the SDK's own tries) (a jittered backoff that doubles from
// about 10 ms up to 200 ms) and reports whether to try: not once
// ownerRetryFor has passed, nor when err is anything else.
func retryOwnerConflict(ctx context.Context, err error, attempt int, started time.Time) bool {
	var tce *types.TransactionConflictException
	if !(txConflict(err) || errors.As(err, &tce)) || time.Since(started) > ownerRetryFor {
		return false
	}
	ceiling := min(10*time.Millisecond<<min(attempt-1, 5), 200*time.Millisecond)
	d := ceiling/2 + rand.N(ceiling/2+1)
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
