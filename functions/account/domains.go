package account

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/cdn"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/hosts"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// DomainStore is the account's custom domains (contract section 23).
type DomainStore interface {
	AccountDomains(ctx context.Context, aid int64, cfg store.DomainsConfig) ([]survey.Domain, error)
	AccountDomain(ctx context.Context, aid, id int64, cfg store.DomainsConfig) (survey.Domain, error)
	ClaimDomain(ctx context.Context, aid int64, domain string, cfg store.DomainsConfig) (survey.Domain, error)
	DeleteDomain(ctx context.Context, aid, id int64) error
	ClaimForVerify(ctx context.Context, aid, id int64, cfg store.DomainsConfig) (store.DomainClaim, error)
	DomainOwnerOf(ctx context.Context, domain string) (int64, error)
	MarkDomainChecked(ctx context.Context, aid, id int64, at time.Time) error
	ActivateDomain(ctx context.Context, aid int64, d store.DomainClaim, at time.Time) error
}

// Domains is the configuration of the custom domain routes.
type Domains struct {
	// Config is DOMAINS_TARGET_SUFFIX.
	Config store.DomainsConfig
	// Own are the service's names no account may claim, nor any name
	// under them: its hosts, PUBLIC_SURVEY_DOMAIN, DOMAINS_TARGET_SUFFIX.
	Own []string
	// DNS reads the records (DNS_RESOLVER).
	DNS *dnscheck.Checker
	// Tenants makes and removes a verified domain's CloudFront tenant
	// (DOMAINS_DISTRIBUTION_ID); nil: none is kept.
	Tenants cdn.Tenants
	// Now is the clock of checked_at; nil is time.Now.
	Now func() time.Time
}

func (d Domains) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// DomainsFromEnv reads DOMAINS_TARGET_SUFFIX (default
// domains.<PUBLIC_SURVEY_DOMAIN>, or domains.<the host of
// PUBLIC_SURVEY_URL>), DNS_RESOLVER and the service's own names.
//
// Tenants is left to the caller (cdn.FromEnv needs the AWS configuration).
func DomainsFromEnv(getenv func(string) string) Domains {
	hc := hosts.ConfigFromEnv(getenv)
	suffix := strings.ToLower(strings.TrimSuffix(getenv("DOMAINS_TARGET_SUFFIX"), "."))
	if suffix == "" && hc.Domain != "" {
		suffix = "domains." + hc.Domain
	} else if suffix == "" && len(hc.Own) > 0 {
		suffix = "domains." + hc.Own[0]
	}
	own := append([]string{hc.Domain, suffix}, hc.Own...)
	return Domains{Config: store.DomainsConfig{TargetSuffix: suffix}, Own: own, DNS: dnscheck.New(getenv("DNS_RESOLVER"))}
}

// errTenant answers a CloudFront call that failed: nothing is decided.
var errTenant = survey.Errorf(survey.EUNAVAILABLE, "The domain's CloudFront set-up did not answer; try again shortly.")

// domainStore is the group's store as a DomainStore: every *store.Store is.
func domainStore(st Store) DomainStore {
	ds, _ := st.(DomainStore)
	return ds
}

func handleDomains(st DomainStore, cfg Domains) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, _ := api.AccountFrom(r.Context())
		ds, err := st.AccountDomains(r.Context(), acct.ID, cfg.Config)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, ds)
		return nil
	})
}

// handleDomainClaim validates the body first, then the plan (400 before
// 403), then claims: 201 with the records to publish.
func handleDomainClaim(st DomainStore, cfg Domains) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		raw, ok := form.String("domain", api.Str{Required: true, Max: 1024})
		var domain string
		if ok {
			if domain, err = survey.CheckDomain(raw, cfg.Own); err != nil {
				form.Merge(err)
			}
		}
		if err := form.Err(); err != nil {
			return err
		}
		acct, _ := api.AccountFrom(r.Context())
		if !acct.Plan.Includes(survey.PlanEnterprise) {
			return survey.Errorf(survey.EFORBIDDEN, survey.MsgDomainPlan)
		}
		d, err := st.ClaimDomain(r.Context(), acct.ID, domain, cfg.Config)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, d)
		return nil
	})
}

func handleDomainGet(st DomainStore, cfg Domains) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, ok := api.PathID(r, "domain_id")
		if !ok {
			return survey.ErrNotFound
		}
		acct, _ := api.AccountFrom(r.Context())
		d, err := st.AccountDomain(r.Context(), acct.ID, id, cfg.Config)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, d)
		return nil
	})
}

// handleDomainDelete removes a claim. A verified domain's CloudFront
// tenant goes first: should its removal fail (503), the claim stays and a
// DELETE again finishes it, so no tenant is left without its domain.
func handleDomainDelete(st DomainStore, cfg Domains) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, ok := api.PathID(r, "domain_id")
		if !ok {
			return survey.ErrNotFound
		}
		acct, _ := api.AccountFrom(r.Context())
		if cfg.Tenants != nil {
			d, err := st.AccountDomain(r.Context(), acct.ID, id, cfg.Config)
			if err != nil {
				return err
			}
			if d.Status != survey.DomainPending {
				if err := cfg.Tenants.Remove(r.Context(), d.Domain); err != nil {
					slog.Error("domain delete: remove the CloudFront tenant", "domain", d.Domain, "error", err.Error())
					return errTenant
				}
			}
		}
		if err := st.DeleteDomain(r.Context(), acct.ID, id); err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}

// handleDomainVerify checks the claim's records now: every verify sets
// checked_at. Another account's active domain answers "in use" before any
// lookup; both records found make the domain the account's alone (the
// store decides racing verifies); a record missing or wrong answers 400
// naming it; a resolver that does not answer 503 (no verdict is due).
func handleDomainVerify(st DomainStore, cfg Domains) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, ok := api.PathID(r, "domain_id")
		if !ok {
			return survey.ErrNotFound
		}
		acct, _ := api.AccountFrom(r.Context())
		if !acct.Plan.Includes(survey.PlanEnterprise) {
			return survey.Errorf(survey.EFORBIDDEN, survey.MsgDomainPlan)
		}
		ctx := r.Context()
		c, err := st.ClaimForVerify(ctx, acct.ID, id, cfg.Config)
		if err != nil {
			return err
		}
		now := cfg.now()
		owner, err := st.DomainOwnerOf(ctx, c.Domain.Domain)
		if err != nil {
			return err
		}
		if owner != 0 && owner != acct.ID {
			if err := st.MarkDomainChecked(ctx, acct.ID, id, now); err != nil {
				return err
			}
			return survey.FieldError("domain", survey.MsgDomainInUse)
		}
		res, err := cfg.DNS.Check(ctx, c.Domain.Domain, c.TXT, c.Target)
		if errors.Is(err, dnscheck.ErrUnavailable) {
			slog.Warn("domain verify: no DNS answer", "domain", c.Domain.Domain, "error", err.Error())
			return survey.Errorf(survey.EUNAVAILABLE, "The DNS resolver did not answer; try again shortly.")
		}
		if err != nil {
			return err
		}
		if !res.OK() {
			if err := st.MarkDomainChecked(ctx, acct.ID, id, now); err != nil {
				return err
			}
			return survey.Errorf(survey.EINVALID, "%s", res.Detail(c.Domain.Domain, c.Target))
		}
		// The tenant first, then the domain active: a failure between
		// leaves a tenant that serves the service's 404 until the verify
		// is asked again (it finds the tenant made), never an active
		// domain CloudFront does not serve.
		if cfg.Tenants != nil {
			if err := cfg.Tenants.Create(ctx, c.Domain.Domain); err != nil {
				slog.Error("domain verify: create the CloudFront tenant", "domain", c.Domain.Domain, "error", err.Error())
				return errTenant
			}
		}
		survey.AnswerStatus(ctx, http.StatusOK) // the entry commits with the activation as answered
		if err := st.ActivateDomain(ctx, acct.ID, c, now); err != nil {
			if survey.ErrorCode(err) == survey.EINVALID { // in use: the check still happened
				_ = st.MarkDomainChecked(ctx, acct.ID, id, now)
			}
			return err
		}
		d, err := st.AccountDomain(ctx, acct.ID, id, cfg.Config)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, d)
		return nil
	})
}
