package sweeper

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/cdn"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// DomainsCheckType is the detail-type of the daily schedule's event
// (template.yaml, DailyDomainsCheck): the sweeper then re-checks the
// verified custom domains instead of sweeping.
const DomainsCheckType = "Domains Check"

// DomainStore is what the daily domain check reads and writes;
// *store.Store implements it.
type DomainStore interface {
	CheckedDomainsPage(ctx context.Context, start dynamo.PagingKey, limit int) ([]store.DomainOwner, dynamo.PagingKey, error)
	SetDomainStatus(ctx context.Context, o store.DomainOwner, status string, at time.Time) (bool, error)
	MarkOwnerChecked(ctx context.Context, o store.DomainOwner, at time.Time) error
	ReleaseDomain(ctx context.Context, o store.DomainOwner) (bool, error)
	DomainNoticed(ctx context.Context, o store.DomainOwner) error
}

var _ DomainStore = (*store.Store)(nil)

// DNS looks a domain's records up; *dnscheck.Checker implements it.
type DNS interface {
	Check(ctx context.Context, domain, value, target string) (dnscheck.Result, error)
}

// DomainsResult is what a check did, as `admin domains check` prints it.
type DomainsResult struct {
	Checked   int `json:"checked"`
	Suspended int `json:"suspended"`
	Released  int `json:"released"`
}

// CheckDomains re-reads every verified domain's records as of now
// (contract section 23): an active domain whose TXT or CNAME no longer
// holds is suspended (it serves no more) and its owner told (notify,
// when set); a suspended one whose records hold again is active again,
// and one that has failed for survey.DomainRelease is released: its claim
// and own item deleted, so the records left behind prove nothing to
// anyone (a new claim makes a new TXT value). A resolver that does not
// answer decides nothing: the domain stays as it was until the next run.
// It reads one GSI2 partition page by page, never the table.
//
// tenants (nil: none) keeps CloudFront's side: a domain active again gets
// its tenant before it is marked active (a failure leaves it suspended
// until the next run); a suspended one's tenant is removed after the
// suspension, and again on every later run until it is gone (one read
// when it is), and before the release deletes the domain's records (a
// failure puts the release off to the next run). So a run cut short at
// any step converges on the next, and no step makes a second tenant.
func CheckDomains(ctx context.Context, st DomainStore, dns DNS, tenants cdn.Tenants, now time.Time, notify func(context.Context, store.DomainOwner) error) (DomainsResult, error) {
	var res DomainsResult
	var start dynamo.PagingKey
	for {
		page, next, err := st.CheckedDomainsPage(ctx, start, PageSize)
		if err != nil {
			return res, err
		}
		for _, o := range page {
			if err := checkDomain(ctx, st, dns, tenants, now, notify, o, &res); err != nil {
				return res, err
			}
		}
		if next == nil {
			return res, nil
		}
		start = next
	}
}

func checkDomain(ctx context.Context, st DomainStore, dns DNS, tenants cdn.Tenants, now time.Time, notify func(context.Context, store.DomainOwner) error,
	o store.DomainOwner, res *DomainsResult) error {
	if o.Notice != 0 {
		// A suspension an earlier run made and could not tell: told
		// first, before this check may release the domain.
		tell(ctx, st, notify, o)
	}
	found, err := dns.Check(ctx, o.Domain, o.TXT, o.Target)
	if errors.Is(err, dnscheck.ErrUnavailable) {
		slog.Warn("domain check: no DNS answer", "domain", o.Domain, "error", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	res.Checked++
	switch {
	case found.OK() && o.Status == survey.DomainSuspended:
		if terr := ensureTenant(ctx, tenants, o); terr != nil {
			return nil // stays suspended; the next run tries again
		}
		_, err = st.SetDomainStatus(ctx, o, survey.DomainActive, now)
		slog.Info("domain check: active again", "domain", o.Domain, "account_id", o.AccountID)
	case found.OK():
		err = st.MarkOwnerChecked(ctx, o, now)
	case o.Status == survey.DomainActive:
		var changed bool
		if changed, err = st.SetDomainStatus(ctx, o, survey.DomainSuspended, now); changed && err == nil {
			res.Suspended++
			slog.Info("domain check: suspended", "domain", o.Domain, "account_id", o.AccountID, "why", found.Detail(o.Domain, o.Target))
			o.Status, o.Notice = survey.DomainSuspended, now.UnixMicro()
			tell(ctx, st, notify, o)
			_ = removeTenant(ctx, tenants, o)
		}
	case now.Sub(time.Unix(o.FailingSince, 0)) >= survey.DomainRelease:
		if terr := removeTenant(ctx, tenants, o); terr != nil {
			return st.MarkOwnerChecked(ctx, o, now) // released on the next run
		}
		var released bool
		if released, err = st.ReleaseDomain(ctx, o); released && err == nil {
			res.Released++
			slog.Info("domain check: released", "domain", o.Domain, "account_id", o.AccountID)
		}
	default: // suspended, still failing
		_ = removeTenant(ctx, tenants, o)
		err = st.MarkOwnerChecked(ctx, o, now)
	}
	return err
}

// ensureTenant makes o's CloudFront tenant (tenants nil: nothing to do).
func ensureTenant(ctx context.Context, tenants cdn.Tenants, o store.DomainOwner) error {
	if tenants == nil {
		return nil
	}
	err := tenants.Create(ctx, o.Domain)
	if err != nil {
		slog.Error("domain check: create the CloudFront tenant; tried again on the next run", "domain", o.Domain, "error", err.Error())
	}
	return err
}

// removeTenant removes o's CloudFront tenant (tenants nil: nothing to do).
func removeTenant(ctx context.Context, tenants cdn.Tenants, o store.DomainOwner) error {
	if tenants == nil {
		return nil
	}
	err := tenants.Remove(ctx, o.Domain)
	if err != nil {
		slog.Error("domain check: remove the CloudFront tenant; tried again on the next run", "domain", o.Domain, "error", err.Error())
	}
	return err
}

// tell sends o's pending notice (notify, when set) and clears it once
// told. A failure leaves it pending for the next run: the suspension
// stands, and the owner sees it on the domain meanwhile.
func tell(ctx context.Context, st DomainStore, notify func(context.Context, store.DomainOwner) error, o store.DomainOwner) {
	if notify == nil {
		return
	}
	err := notify(ctx, o)
	if err == nil {
		err = st.DomainNoticed(ctx, o)
	}
	if err != nil {
		slog.Error("domain check: notify failed; told on the next run", "domain", o.Domain, "error", err.Error())
	}
}
