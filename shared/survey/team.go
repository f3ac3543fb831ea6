package survey

import (
	"net/mail"
	"strings"
	"time"
)

// UserTypeMember is the user_type of a member of an account (a sub-user).
const UserTypeMember = 2

// MaxMembers is how many members an account holds (contract section 19).
const MaxMembers = 50

// TeamPlan is the plan that includes members.
const TeamPlan = PlanEnterprise

// Role is what a member may do in a folder shared with them.
type Role string

// The roles of a share: an editor writes what the owner writes under the
// folder's surveys, a viewer reads it.
const (
	RoleEditor Role = "editor"
	RoleViewer Role = "viewer"
)

// Member is a person of an account with a key of their own (a sub-user).
type Member struct {
	SubUser   int64  `json:"sub_user"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Share is one member's role on a folder, as a folder's shared_with lists
// it.
type Share struct {
	SubUser   int64  `json:"sub_user"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Role      Role   `json:"role"`
}

// Principal is who makes a request: the account, and for a member the
// member and the folders shared with them. The owner has Member nil.
type Principal struct {
	Account Account
	Member  *Member
	// Shares are the member's roles by folder id (nil for the owner).
	Shares map[int64]Role
}

// SubUser is the member's id, or nil for the owner (as activity and
// updated_by show it).
func (p Principal) SubUser() *int64 {
	if p.Member == nil {
		return nil
	}
	id := p.Member.SubUser
	return &id
}

// Action is what a request does to its target.
type Action int

// The actions the access decision tells apart.
const (
	// ActRead reads.
	ActRead Action = iota
	// ActWrite writes under a folder's surveys (editors may).
	ActWrite
	// ActManage is the owner's alone: folders themselves, sharing,
	// members, the activity log.
	ActManage
)

// ErrNoPermission is the 403 of a member's refused action.
var ErrNoPermission = Errorf(EFORBIDDEN, "You do not have permission to perform this action.")

// ErrNoTeamPlan is the 403 of a member's key once the account has left
// the plan that includes members.
var ErrNoTeamPlan = Errorf(EFORBIDDEN, "This plan does not include team members.")

// MayFolder is the one access decision: may the principal do act to the
// folder (or to a survey in it)? The owner may do anything to the
// account's (the store checks the account); a member reaches only folders
// shared with them: elsewhere ErrNotFound, exactly as another account's,
// and in them ErrNoPermission for what their role does not include.
func (p Principal) MayFolder(act Action, folderID int64) error {
	if p.Member == nil {
		return nil
	}
	role, ok := p.Shares[folderID]
	if !ok {
		return ErrNotFound
	}
	switch {
	case act == ActRead:
		return nil
	case act == ActWrite && role == RoleEditor:
		return nil
	}
	return ErrNoPermission
}

// MayAccount decides an action on the account itself, not on a folder
// (members, activity, creating folders): the owner's alone.
func (p Principal) MayAccount(act Action) error {
	if p.Member == nil || act == ActRead {
		return nil
	}
	return ErrNoPermission
}

// ValidMemberEmail reports whether s is an address DRF's EmailField
// accepts (the plain addr-spec, at most 254 characters).
func ValidMemberEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && strings.Contains(s, "@") && len([]rune(s)) <= 254
}

// Activity is one successful write of an account, as GET /api/activity/
// lists it (without bodies).
type Activity struct {
	At        time.Time
	AccountID int64
	// SubUser is the member who wrote, nil for the owner.
	SubUser *int64
	Method  string
	Path    string
	Status  int
	// SurveyID is the survey written under, 0 where none.
	SurveyID int64
	// EditsSurvey moves the survey's updated_by and updated_at.
	EditsSurvey bool
	// Key is the entry item's own key in the account's log (the time it
	// was first recorded and a random suffix; no two writes share one),
	// set by the store; put again under it, an entry is replaced, not
	// doubled. Empty: not recorded yet.
	Key string
}

// ActivityView is an activity entry as the API answers it.
type ActivityView struct {
	At       string `json:"at"`
	SubUser  *int64 `json:"sub_user"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Status   int    `json:"status"`
	SurveyID *int64 `json:"survey_id"`
}

// View renders the entry.
func (e Activity) View() ActivityView {
	v := ActivityView{At: e.At.UTC().Format(TimestampLayout), SubUser: e.SubUser, Method: e.Method, Path: e.Path, Status: e.Status}
	if e.SurveyID != 0 {
		sid := e.SurveyID
		v.SurveyID = &sid
	}
	return v
}

// ActivityKept is how long the activity log keeps an entry.
const ActivityKept = 90 * 24 * time.Hour

// UpdatedBy is who last wrote under a survey, as its detail shows it.
type UpdatedBy struct {
	SubUser int64 `json:"sub_user"`
}

// TeamPlanNeeded is the 403 of the members routes on a plan without
// members: it names the account's plan and the one needed.
func TeamPlanNeeded(plan Plan) error {
	return Errorf(EFORBIDDEN, "Your %s plan does not include team members; they need the %s plan.", plan, TeamPlan)
}
