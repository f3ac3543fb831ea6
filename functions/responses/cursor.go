package responses

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// A cursor is the position of the last response a page showed, sealed
// under the links' data keys for the survey (so it costs no KMS call while
// the container's key is fresh): opaque to the client, and a forged,
// changed or another survey's cursor never opens.
//
// Plaintext (version 1): a version byte, the submission time in
// microseconds since 1970 (zigzag varint), the response id (uvarint).
const (
	cursorPurpose links.Purpose = "survey-responses-cursor/v1/survey:"
	cursorVersion               = 1
)

var (
	errInvalidCursor = survey.FieldError("cursor", "Invalid cursor.")
	errMalformed     = errors.New("responses: malformed cursor")
)

// encodeCursor writes a position.
func encodeCursor(p store.ResponsePosition) []byte {
	b := make([]byte, 0, 16)
	b = append(b, cursorVersion)
	b = binary.AppendVarint(b, p.SubmittedAt.UnixMicro())
	return binary.AppendUvarint(b, uint64(p.ID))
}

// decodeCursor reads a position. Only the canonical encoding of a valid
// position is accepted, so a cursor has exactly one plaintext.
func decodeCursor(b []byte) (store.ResponsePosition, error) {
	if len(b) < 3 || b[0] != cursorVersion {
		return store.ResponsePosition{}, errMalformed
	}
	b = b[1:]
	micros, n := binary.Varint(b)
	if n <= 0 || n != len(binary.AppendVarint(nil, micros)) {
		return store.ResponsePosition{}, errMalformed
	}
	b = b[n:]
	id, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) || n != len(binary.AppendUvarint(nil, id)) || id < 1 || id > 1<<31-1 {
		return store.ResponsePosition{}, errMalformed
	}
	return store.ResponsePosition{SubmittedAt: time.UnixMicro(micros).UTC(), ID: int64(id)}, nil
}

// sealCursor makes the cursor of the page that follows p.
func (h handlers) sealCursor(ctx context.Context, sid int64, p store.ResponsePosition) (string, error) {
	return h.sealer.SealFor(ctx, cursorPurpose, sid, encodeCursor(p))
}

// openCursor reads a client's cursor for the survey: errInvalidCursor for
// anything this service did not make for this survey's list.
func (h handlers) openCursor(ctx context.Context, sid int64, token string) (store.ResponsePosition, error) {
	plain, err := h.sealer.OpenFor(ctx, cursorPurpose, sid, token)
	if errors.Is(err, links.ErrInvalid) {
		return store.ResponsePosition{}, errInvalidCursor
	}
	if err != nil {
		return store.ResponsePosition{}, err
	}
	p, err := decodeCursor(plain)
	if err != nil {
		return store.ResponsePosition{}, errInvalidCursor
	}
	return p, nil
}
