package survey

// Folder limits, as the specification fixes them.
const (
	MaxFolderName = 100
	MaxSurveyName = 255
)

// Folder groups an account's surveys.
type Folder struct {
	ID        int64
	AccountID int64
	Order     int64
	Name      string
	// SharedWith are the account's members the folder is shared with, by
	// sub_user.
	SharedWith []Share
}

// FolderView is a folder as GET answers it: shared_by is the owner's
// profile and shared_with the members it is shared with (contract
// section 19).
type FolderView struct {
	ID         int64           `json:"id"`
	Order      int64           `json:"order"`
	Name       string          `json:"name"`
	SharedBy   Profile         `json:"shared_by"`
	SharedWith []Share         `json:"shared_with"`
	Surveys    []SurveySummary `json:"surveys"`
}

// FolderRef is what PUT and PATCH answer.
type FolderRef struct {
	ID    int64  `json:"id"`
	Order int64  `json:"order"`
	Name  string `json:"name"`
}

// View returns the folder as GET shows it, with its surveys.
func (f Folder) View(owner Profile, surveys []SurveySummary) FolderView {
	if surveys == nil {
		surveys = []SurveySummary{}
	}
	shared := f.SharedWith
	if shared == nil {
		shared = []Share{}
	}
	return FolderView{ID: f.ID, Order: f.Order, Name: f.Name, SharedBy: owner, SharedWith: shared, Surveys: surveys}
}

// Ref returns the short form PUT and PATCH answer.
func (f Folder) Ref() FolderRef { return FolderRef{ID: f.ID, Order: f.Order, Name: f.Name} }
