package survey

// AccountLimits bound what one account holds: GET /api/folders/ answers
// every live folder with all its live surveys at once, and that answer
// must stay under the largest a Lambda may give.
type AccountLimits struct {
	// LiveSurveys bounds the surveys not in the trash (trashed ones are
	// not listed, so they do not count).
	LiveSurveys int64
	// Folders bounds the folders, including one whose deletion is under
	// way until it is gone.
	Folders int64
}

// DefaultAccountLimits keep the worst-case folder list (every field of
// every folder and survey at its limit) at 4.5 MB, under api.MaxAnswer
// (5 MiB) with 14% to spare; functions/folders TestFolderListBound computes
// it.
var DefaultAccountLimits = AccountLimits{LiveSurveys: 1500, Folders: 300}

// FolderLimitReached refuses a folder to an account that holds max: 400
// {"detail"}, as every account-wide limit's refusal (contract section 3
// as amended: "the one over it answering its 400").
func FolderLimitReached(max int64) error {
	return Errorf(EINVALID, "This account has reached its limit of %d folders; delete some first.", max)
}

// LiveSurveyLimitReached refuses a live survey (a create, a template's
// start, a copy or a restore) to an account that holds max: 400
// {"detail"}, as FolderLimitReached.
func LiveSurveyLimitReached(max int64) error {
	return Errorf(EINVALID, "This account has reached its limit of %d live surveys; move some to the trash first.", max)
}
