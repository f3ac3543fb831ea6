package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

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
	return i >= 0 && i < len(r) && r[i] == "ConditionalCheckFailed"
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

// conflicted reports a write refused because a concurrent transaction
// held one of its items: a transaction cancelled for TransactionConflict,
// or a single write's TransactionConflictException (after the SDK's own
// tries).
func conflicted(err error) bool {
	var tce *types.TransactionConflictException
	return txConflict(err) || errors.As(err, &tce)
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

// refused tells a request DynamoDB answers the same however often it is
// sent apart: IAM refused it (AccessDeniedException), or DynamoDB refuses
// it as it is written (ValidationException).
func refused(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && (ae.ErrorCode() == "AccessDeniedException" || ae.ErrorCode() == "ValidationException")
}

// serverError tells a DynamoDB 500 (InternalServerError) apart.
func serverError(err error) bool {
	var ise *types.InternalServerError
	return errors.As(err, &ise)
}

// ownerRetryFor bounds how long an owner's write (elements, variables,
// webhooks, settings, the survey's fields, codes) and a responder's edit
// of a response keep trying after losing a race: a transaction cancelled
// because another one held one of its items (TransactionConflict: DynamoDB
// cancels, it does not queue), or a version that moved between the read
// and the write. Every owner write of a survey writes (or checks) its
// survey item (the collection version, pubcache.go) and writes its own
// list item under a version (LAYOUT, VARIABLES, WEBHOOKS), so ten owners'
// scripts on one survey take turns, ~20-30 ms a write on DynamoDB (a
// two-phase commit's hold and a read); and on a survey going viral the
// tally writes the survey item once a batch from every stream shard.
// Writes that can all succeed must all succeed (contract section 3,
// "Contention"), within the function's time (10 s, the handler cut at
// 8.5 s: api.DeadlineMargin): a request with a deadline keeps trying until
// ownerReserve before it, which leaves its last try and the answer their
// time; ownerRetryFor bounds one without a deadline (make run, tests) the
// same way. On `make run`'s conflict model on a loaded 2-core machine, the
// slowest of 10 clients' 110 variable creates answered in 1.4-4.9 s, and
// 6.1 s once beside every other kind of owner write while a whole
// `make test` ran (docs/scale.md, "Owners' writes of one survey at once").
const ownerRetryFor = 7500 * time.Millisecond

// ownerReserve is the time an owner's write leaves itself before the
// request's deadline for its last try (one attempt of a call).
const ownerReserve = time.Second

// retryOwnerConflict waits before another try of an owner's change lost
// to a concurrent transaction (a TransactWriteItems cancelled for
// TransactionConflict, or a single write refused with
// TransactionConflictException after the SDK's own tries) and reports
// whether to try (ownerAgain); not when err is anything else.
func retryOwnerConflict(ctx context.Context, err error, attempt int, started time.Time) bool {
	if !conflicted(err) {
		return false
	}
	return ownerAgain(ctx, attempt, started)
}

// ownerTimeLeft reports whether an owner's write that started at started
// may try again: not within ownerReserve of the request's deadline, or,
// without one, within ownerRetryFor.
func ownerTimeLeft(ctx context.Context, started time.Time) bool {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl) >= ownerReserve
	}
	return time.Since(started) <= ownerRetryFor
}

// ownerAgain waits before try attempt+1 of an owner's write that lost a
// race (a jittered backoff that doubles from about 10 ms up to 200 ms, so
// that writers taking turns spread out) and reports whether to try: not
// once ownerRetryFor has passed since started, nor within ownerReserve of
// the request's deadline.
func ownerAgain(ctx context.Context, attempt int, started time.Time) bool {
	return ownerTimeLeft(ctx, started) && waitTurn(ctx, attempt)
}

// waitTurn waits before try attempt+1 of a write that lost a race (a
// jittered backoff that doubles from about 10 ms up to 200 ms, so that
// writers taking turns spread out), and reports whether ctx still allows
// it.
func waitTurn(ctx context.Context, attempt int) bool {
	ceiling := min(10*time.Millisecond<<min(attempt-1, 5), 200*time.Millisecond)
	d := ceiling/2 + rand.N(ceiling/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
