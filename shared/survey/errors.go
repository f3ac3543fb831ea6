// Package survey holds the domain of the survey service: entities, plans,
// element types, validation, and the one error type every layer returns. It
// imports nothing internal, so every other package may depend on it.
package survey

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. The HTTP edge (shared/api) maps each to one status; nothing
// else chooses a status.
const (
	EINVALID        = "invalid"         // 400: a field or the body is wrong
	EUNAUTHORIZED   = "unauthorized"    // 401: no or bad credentials
	EFORBIDDEN      = "forbidden"       // 403: plan or access refuses it
	ENOTFOUND       = "not_found"       // 404: missing or another account's
	EMETHOD         = "method"          // 405: method not allowed on the path
	ENOTACCEPT      = "not_acceptable"  // 406: no renderer satisfies Accept
	ECONFLICT       = "conflict"        // 409: the resource's state refuses it
	EGONE           = "gone"            // 410: consumed for good
	EUNPROCESSABLE  = "unprocessable"   // 422: well formed, but refused as a whole (a reused Idempotency-Key)
	ETOOLARGE       = "too_large"       // 413: the body is over the limit
	EMEDIATYPE      = "media_type"      // 415: the body is not JSON
	ETOOMANY        = "too_many"        // 429: too many attempts; wait RetryAfter
	EUNAVAILABLE    = "unavailable"     // 503: the store is throttled or down
	ENOTIMPLEMENTED = "not_implemented" // 501: a format the route does not serve (oEmbed xml)
	EINTERNAL       = "internal"        // 500: anything unexpected
)

// Error is a failure the client may see. Detail becomes {"detail": ...};
// Fields, when set, becomes the DRF field-error object instead.
type Error struct {
	Code   string
	Detail string
	// Fields maps a field name to []string messages or to a nested Fields
	// (for objects and items), as DRF serializers answer.
	Fields map[string]any
	// RetryAfter, when positive, is how long the client should wait before
	// trying again (the Retry-After header, in whole seconds rounded up).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		return fmt.Sprintf("survey error: code=%s fields=%v", e.Code, e.Fields)
	}
	return fmt.Sprintf("survey error: code=%s detail=%s", e.Code, e.Detail)
}

// Errorf returns an Error with the code and a formatted detail message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// FieldError returns an EINVALID error for a single field.
func FieldError(field string, messages ...string) *Error {
	return &Error{Code: EINVALID, Fields: map[string]any{field: messages}}
}

// ErrNotFound is the one answer for a missing resource and for another
// account's resource, so the two cannot be told apart.
var ErrNotFound = &Error{Code: ENOTFOUND, Detail: "Not found."}

// ErrorCode returns the code of err, EINTERNAL when err is not an *Error, and
// "" for a nil error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// Fields collects field errors while a request body is validated, in DRF's
// shape: each key holds a list of messages or a nested Fields.
type Fields map[string]any

// Add records a message for a field.
func (f Fields) Add(field, message string) {
	msgs, _ := f[field].([]string)
	f[field] = append(msgs, message)
}

// Err returns the collected errors as an EINVALID *Error, or nil when none.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Fields: map[string]any(f)}
}

// InvalidPK is DRF's message for a primary key that names no object (or
// another account's, which must look the same).
func InvalidPK(id int64) string {
	return fmt.Sprintf("Invalid pk \"%d\" - object does not exist.", id)
}
