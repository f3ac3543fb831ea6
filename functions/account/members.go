package account

import (
	"context"
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	CreateMember(ctx context.Context, aid int64, m survey.Member) (survey.Member, string, error)
	Members(ctx context.Context, aid int64) ([]survey.Member, error)
	DeleteMember(ctx context.Context, aid, sub int64) error
	NewMemberKey(ctx context.Context, aid, sub int64) (string, error)
	Activity(ctx context.Context, aid int64, page, size int) ([]survey.Activity, int, error)
	SubdomainStore
}

// NewMember is POST /api/members/'s answer: the member and their key,
// shown once.
type NewMember struct {
	survey.Member
	APIKey string `json:"api_key"`
}

// teamAccount is the owner's account of a members route, or the 403
// naming its plan when the plan has no members.
func teamAccount(r *http.Request) (survey.Account, error) {
	acct, _ := api.AccountFrom(r.Context())
	if !acct.Plan.Includes(survey.TeamPlan) {
		return survey.Account{}, survey.TeamPlanNeeded(acct.Plan)
	}
	return acct, nil
}

func handleMembers(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, err := teamAccount(r)
		if err != nil {
			return err
		}
		ms, err := st.Members(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		if ms == nil {
			ms = []survey.Member{}
		}
		api.Respond(w, r, http.StatusOK, ms)
		return nil
	})
}

// handleCreateMember validates the body before the plan (400 before 403,
// as every route) and answers 201 with the member's key.
func handleCreateMember(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		acct, _ := api.AccountFrom(r.Context())
		form := api.NewForm(body)
		email, ok := form.String("email", api.Str{Required: true, Max: 254})
		if ok && !survey.ValidMemberEmail(email) {
			form.Fail("email", "Enter a valid email address.")
		} else if ok && strings.EqualFold(email, acct.Email) {
			form.Fail("email", "This is the owner's email.")
		}
		first, _ := form.String("first_name", api.Str{Max: 150, AllowBlank: true})
		last, _ := form.String("last_name", api.Str{Max: 150, AllowBlank: true})
		if err := form.Err(); err != nil {
			return err
		}
		if acct, err = teamAccount(r); err != nil {
			return err
		}
		m, key, err := st.CreateMember(r.Context(), acct.ID, survey.Member{Email: email, FirstName: first, LastName: last})
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, NewMember{Member: m, APIKey: key})
		return nil
	})
}

func handleDeleteMember(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sub, err := memberOf(r)
		if err != nil {
			return err
		}
		if err := st.DeleteMember(r.Context(), acct.ID, sub); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}

// memberOf is the team account and the member a {sub_user} route names.
func memberOf(r *http.Request) (survey.Account, int64, error) {
	_, sub, err := api.AccountAndID(r, "sub_user")
	if err != nil {
		return survey.Account{}, 0, err
	}
	acct, err := teamAccount(r)
	return acct, sub, err
}

// handleMemberKey issues the member's key and revokes the old one.
func handleMemberKey(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sub, err := memberOf(r)
		if err != nil {
			return err
		}
		key, err := st.NewMemberKey(r.Context(), acct.ID, sub)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, map[string]string{"api_key": key})
		return nil
	})
}

// activityPageSize is the activity log's page size (page_size up to 100).
const activityPageSize = 20

// handleActivity answers the account's writes, newest first, in DRF's
// page-number pagination.
func handleActivity(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		page, size, err := api.PageParams(r, activityPageSize, 100)
		if err != nil {
			return err
		}
		entries, count, err := st.Activity(r.Context(), acct.ID, page, size)
		if err != nil {
			return err
		}
		if err := api.PastTheEnd(page, size, int64(count)); err != nil {
			return err
		}
		views := make([]survey.ActivityView, len(entries))
		for i, e := range entries {
			views[i] = e.View()
		}
		api.Respond(w, r, http.StatusOK, api.NewPage(r, page, size, count, views))
		return nil
	})
}
