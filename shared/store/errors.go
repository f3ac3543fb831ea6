package store

import (
	"errors"
	"fmt"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// fail wraps a DynamoDB error with what the store was doing. Throttles and
// outages become EUNAVAILABLE (503, retry later); domain errors pass through;
// anything else stays internal (500, cause logged).
func (s *Store) fail(op string, err error) error {
	var se *survey.Error
	if errors.As(err, &se) {
		return err
	}
	if awsenv.IsUnavailable(err) {
		return &wrapped{op: op, err: err, public: survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")}
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
