package account

import (
	"context"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// SubdomainStore is the account's subdomain (contract section 23).
type SubdomainStore interface {
	AccountSubdomain(ctx context.Context, aid int64) (*survey.Subdomain, error)
	ClaimSubdomain(ctx context.Context, aid int64, name string) (survey.Subdomain, error)
	ReleaseSubdomain(ctx context.Context, aid int64) error
}

// handleSubdomainGet answers the account's subdomain, or 404.
func handleSubdomainGet(st SubdomainStore) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		sd, err := st.AccountSubdomain(r.Context(), acct.ID)
		if err != nil {
			return err
		}
		if sd == nil {
			return survey.ErrNotFound
		}
		api.Respond(w, r, http.StatusOK, sd)
		return nil
	})
}

// handleSubdomainPut claims a name: the body is checked first (invalid,
// then reserved), then the plan (400 before 403, as every route), then the
// name's own item decides who has it.
func handleSubdomainPut(st SubdomainStore) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		raw, ok := form.String("subdomain", api.Str{Required: true})
		var name string
		if ok {
			if name, err = survey.CheckSubdomain(raw); err != nil {
				form.Merge(err)
			}
		}
		if err := form.Err(); err != nil {
			return err
		}
		acct, _ := api.AccountFrom(r.Context())
		if !acct.Plan.Includes(survey.PlanPro) {
			return survey.Errorf(survey.EFORBIDDEN, survey.MsgSubdomainPlan)
		}
		sd, err := st.ClaimSubdomain(r.Context(), acct.ID, name)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, sd)
		return nil
	})
}

// handleSubdomainDelete releases the account's subdomain: 204, or 404
// without one. The name stays held for 30 days.
func handleSubdomainDelete(st SubdomainStore) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		if err := st.ReleaseSubdomain(r.Context(), acct.ID); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
