package survey

import "strconv"

// Refusals of a response: what starting or submitting one answers when the
// survey, the code, the link or the Idempotency-Key does not admit it
// (contract section 11). The store's submission transaction reports its
// failed conditions as these; the HTTP edge maps their codes to statuses.
var (
	// ErrReusedKey answers an Idempotency-Key sent before with another body.
	ErrReusedKey = Errorf(EUNPROCESSABLE, "Idempotency-Key was used with another request.")
	// ErrSurveyClosed answers a response to a survey that is stopped,
	// closed by its date, or in the trash.
	ErrSurveyClosed = Errorf(EGONE, "This survey is closed.")
	// ErrCodeRefused answers a code that is unknown or spent, the same in
	// every case.
	ErrCodeRefused = Errorf(EFORBIDDEN, "Authentication failed.")
	// ErrNumberRefused answers a number that is not on the list of a
	// survey whose responders' numbers are limited (contract section 18),
	// at the send and again at the submission.
	ErrNumberRefused = Errorf(EFORBIDDEN, "This number may not respond to this survey.")
	// ErrLinkUsed answers a one-use link that was used.
	ErrLinkUsed = Errorf(EGONE, "This link has been used.")
	// ErrSessionResponded answers a session that recorded a response
	// already, under another Idempotency-Key: a session records one.
	ErrSessionResponded = Errorf(ECONFLICT, "This session has already responded.")
	// ErrResponseTooLarge answers answers and variables over
	// MaxResponseBytes.
	ErrResponseTooLarge = Errorf(ETOOLARGE, "The response is larger than %d KiB.", MaxResponseBytes>>10)
)

// MsgFileTaken refuses an answer whose upload another response carries
// already: an upload belongs to the first response that carries it.
const MsgFileTaken = "This file belongs to another response."

// FilesTaken is the 400 of answers whose uploads belong to other
// responses, on each of those elements.
func FilesTaken(elements []int64) error {
	errs := Fields{}
	for _, e := range elements {
		errs.Add(strconv.FormatInt(e, 10), MsgFileTaken)
	}
	return &Error{Code: EINVALID, Fields: map[string]any{"answers": errs}}
}

// Refusals of an owner's write under a survey.
var (
	// ErrSurveyDeleted answers a write under a survey in the trash.
	ErrSurveyDeleted = Errorf(ECONFLICT, "Survey is deleted.")
	// ErrFolderGone answers a restore whose folder no longer exists.
	ErrFolderGone = Errorf(ECONFLICT, "The survey's folder no longer exists; send folder_id.")
)
