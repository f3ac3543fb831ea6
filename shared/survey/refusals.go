package survey

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
	// ErrLinkUsed answers a one-use link that was used.
	ErrLinkUsed = Errorf(EGONE, "This link has been used.")
	// ErrResponseTooLarge answers answers and variables over
	// MaxResponseBytes.
	ErrResponseTooLarge = Errorf(ETOOLARGE, "The response is larger than %d KiB.", MaxResponseBytes>>10)
)

// Refusals of an owner's write under a survey.
var (
	// ErrSurveyDeleted answers a write under a survey in the trash.
	ErrSurveyDeleted = Errorf(ECONFLICT, "Survey is deleted.")
	// ErrFolderGone answers a restore whose folder no longer exists.
	ErrFolderGone = Errorf(ECONFLICT, "The survey's folder no longer exists; send folder_id.")
)
