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
}

// FolderView is a folder as GET answers it: shared_by is the owner's
// profile and shared_with is always empty (sharing is not offered).
type FolderView struct {
	ID         int64           `json:"id"`
	Order      int64           `json:"order"`
	Name       string          `json:"name"`
	SharedBy   Profile         `json:"shared_by"`
	SharedWith []SharedWith    `json:"shared_with"`
	Surveys    []SurveySummary `json:"surveys"`
}

// SharedWith is a user a folder is shared with.
type SharedWith struct {
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	SubUser   int    `json:"sub_user"`
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
	return FolderView{ID: f.ID, Order: f.Order, Name: f.Name, SharedBy: owner, SharedWith: []SharedWith{}, Surveys: surveys}
}

// Ref returns the short form PUT and PATCH answer.
func (f Folder) Ref() FolderRef { return FolderRef{ID: f.ID, Order: f.Order, Name: f.Name} }
