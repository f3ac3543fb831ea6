package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Custom domains (contract section 23). Three kinds of item:
//
//   - a claim, in the account's partition at domainClaimSK(id): the domain,
//     its TXT value, status and last check. Its SK starts with subdomainSK,
//     so one Query of the account's "SUBDOMAIN" prefix reads the subdomain,
//     every claim and the account's target: the survey detail's addresses
//     in one call.
//   - the account's domains record (domainsSK): the cname_target label and
//     the number of claims. Every claim and release updates it on the count
//     it read, so an account's racing claims cannot pass 5.
//   - a domain's own item (DomainPK), written by the first verify that
//     succeeds, on the condition that no other account has it: one domain
//     serves one account, and racing verifies have exactly one winner. It
//     carries what the daily check needs (GSI2PK domainsCheckKey, a Query,
//     never a Scan) and what the hosts read to serve.
//
// A released domain's claim and own item are deleted: claiming it again
// makes a new TXT value, so a record left behind proves nothing.

// KindDomain numbers custom domain claims.
const KindDomain = "domain"

const (
	domainsPfx      = subdomainSK + "#DOMAIN" // the claims and the record
	domainsSK       = domainsPfx + "S"
	domainClaimPfx  = domainsPfx + "#"
	domainSK        = "DOMAIN"
	domainsCheckKey = "DOMAINS#CHECK"
	targetSK        = "DTARGET"
)

func domainClaimSK(id int64) string { return domainClaimPfx + pad(id) }

// DomainPK is a domain's own item: which account it serves, if any.
func DomainPK(domain string) string { return "DOMAIN#" + domain }

// TargetPK keeps a cname_target label one account's forever.
func TargetPK(label string) string { return "DTARGET#" + label }

// accountDomainsItem is either a claim or the account's domains record
// (one Query reads both).
type accountDomainsItem struct {
	PK           string `dynamo:"PK"`
	SK           string `dynamo:"SK"`
	ID           int64  `dynamo:"id,omitempty"`
	Domain       string `dynamo:"domain,omitempty"`
	Status       string `dynamo:"status,omitempty"`
	TXT          string `dynamo:"txt,omitempty"`
	CheckedAt    string `dynamo:"checked_at,omitempty"`
	FailingSince int64  `dynamo:"failing_since,omitempty"`
	Target       string `dynamo:"target,omitempty"`
	Count        int    `dynamo:"count"`
}

// DomainOwner is a domain's own item: the account it is verified for.
type DomainOwner struct {
	PK           string `dynamo:"PK"`
	SK           string `dynamo:"SK"`
	Domain       string `dynamo:"domain"`
	AccountID    int64  `dynamo:"account_id"`
	DomainID     int64  `dynamo:"domain_id"`
	Status       string `dynamo:"status"`
	TXT          string `dynamo:"txt"`
	Target       string `dynamo:"target"`
	FailingSince int64  `dynamo:"failing_since,omitempty"`
	// Notice is a suspension (its time, Unix microseconds) whose owner is
	// not told yet: the suspension writes it, the notice's success clears
	// it (DomainNoticed), so a check cut short after the one tells on the
	// next run, and a retried check that finds it cleared tells nothing.
	Notice int64  `dynamo:"notice,omitempty"`
	GSI2PK string `dynamo:"GSI2PK"`
	GSI2SK string `dynamo:"GSI2SK"`
}

// DomainsConfig is what the store needs to answer claims.
type DomainsConfig struct {
	// TargetSuffix is DOMAINS_TARGET_SUFFIX: cname_target is
	// <label>.<TargetSuffix>.
	TargetSuffix string
}

// accountDomains reads the account's claims and domains record in one
// strongly consistent Query.
func (s *Store) accountDomains(ctx context.Context, aid int64) (claims []accountDomainsItem, rec *accountDomainsItem, err error) {
	var its []accountDomainsItem
	err = s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, domainsPfx).
		Consistent(true).All(ctx, &its)
	if err != nil {
		return nil, nil, s.fail("query domains", err)
	}
	for i := range its {
		if its[i].SK == domainsSK {
			rec = &its[i]
		} else if strings.HasPrefix(its[i].SK, domainClaimPfx) {
			claims = append(claims, its[i])
		}
	}
	return claims, rec, nil
}

func (it accountDomainsItem) domain(suffix, target string) survey.Domain {
	d := survey.Domain{ID: it.ID, Domain: it.Domain, Status: it.Status,
		Verification: survey.Verification{Type: "TXT", Name: survey.VerificationLabel + "." + it.Domain, Value: it.TXT},
		CNAMETarget:  target + "." + suffix}
	if it.CheckedAt != "" {
		at := it.CheckedAt
		d.CheckedAt = &at
	}
	return d
}

func targetOf(rec *accountDomainsItem) string {
	if rec == nil {
		return ""
	}
	return rec.Target
}

// AccountDomains lists the account's domains, oldest first.
func (s *Store) AccountDomains(ctx context.Context, aid int64, cfg DomainsConfig) ([]survey.Domain, error) {
	claims, rec, err := s.accountDomains(ctx, aid)
	if err != nil {
		return nil, err
	}
	out := make([]survey.Domain, 0, len(claims))
	for _, c := range claims {
		out = append(out, c.domain(cfg.TargetSuffix, targetOf(rec)))
	}
	return out, nil
}

// AccountDomain is one of the account's domains (ENOTFOUND otherwise).
func (s *Store) AccountDomain(ctx context.Context, aid, id int64, cfg DomainsConfig) (survey.Domain, error) {
	ds, err := s.AccountDomains(ctx, aid, cfg)
	if err != nil {
		return survey.Domain{}, err
	}
	for _, d := range ds {
		if d.ID == id {
			return d, nil
		}
	}
	return survey.Domain{}, survey.ErrNotFound
}

// ActiveDomains are the account's active domains' names (for custom_urls):
// one strongly consistent Query, so the owner API shows a change at once.
func (s *Store) ActiveDomains(ctx context.Context, aid int64) ([]string, error) {
	claims, _, err := s.accountDomains(ctx, aid)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range claims {
		if c.Status == survey.DomainActive {
			out = append(out, c.Domain)
		}
	}
	return out, nil
}

// addressItem is any item of the account's "SUBDOMAIN" prefix: its
// subdomain record, a domain claim or its domains record.
type addressItem struct {
	SK        string `dynamo:"SK"`
	ID        int64  `dynamo:"id"`
	Subdomain string `dynamo:"subdomain"`
	Domain    string `dynamo:"domain"`
	Status    string `dynamo:"status"`
}

// AccountAddresses is where the account's surveys live: its subdomain (nil
// without one) and its active custom domains, in one strongly consistent
// Query (the owner API shows a change at once, at the cost of the one
// read AccountSubdomain made before).
func (s *Store) AccountAddresses(ctx context.Context, aid int64) (*survey.Subdomain, []string, error) {
	var its []addressItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, subdomainSK).Consistent(true).All(ctx, &its)
	if err != nil {
		return nil, nil, s.fail(fmt.Sprintf("query addresses of account %d", aid), err)
	}
	var sub *survey.Subdomain
	domains := []string{}
	for _, it := range its {
		switch {
		case it.SK == subdomainSK:
			sub = &survey.Subdomain{ID: it.ID, Subdomain: it.Subdomain, IsActive: true}
		case strings.HasPrefix(it.SK, domainClaimPfx) && it.Status == survey.DomainActive:
			domains = append(domains, it.Domain)
		}
	}
	return sub, domains, nil
}

// domainOwner reads a domain's own item; nil when no account has it.
func (s *Store) domainOwner(ctx context.Context, domain string, consistent bool) (*DomainOwner, error) {
	var it DomainOwner
	err := s.table.Get(AttrPK, DomainPK(domain)).Range(AttrSK, dynamo.Equal, domainSK).Consistent(consistent).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("get domain "+domain, err)
	}
	return &it, nil
}

// ResolveDomain is the account an active domain serves, 0 for any other
// (unknown, pending only, suspended): one read.
func (s *Store) ResolveDomain(ctx context.Context, domain string) (int64, error) {
	it, err := s.domainOwner(ctx, domain, false)
	if err != nil || it == nil || it.Status != survey.DomainActive {
		return 0, err
	}
	return it.AccountID, nil
}

var (
	errDomainInUse  = survey.FieldError("domain", survey.MsgDomainInUse)
	errDomainsMax   = survey.FieldError("non_field_errors", survey.MsgDomainsMax)
	errDomainTwice  = survey.FieldError("domain", "Your account has claimed this domain already.")
	randomAlphabet  = "abcdefghijklmnopqrstuvwxyz0123456789"
	tokenAlphabet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	tokenLength     = 43 // 256 bits of URL-safe characters
	targetLabelSize = 20
)

// randomString is n characters of alphabet, uniformly (rand.Text's way).
func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	buf := make([]byte, 1)
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		if int(buf[0]) < 256-256%len(alphabet) {
			b[i] = alphabet[int(buf[0])%len(alphabet)]
			i++
		}
	}
	return string(b)
}

// ClaimDomain records the account's pending claim of domain (validated):
// a new TXT value, and the account's cname_target (made on its first
// claim, never another account's). A domain active for another account
// answers "in use" at once; the 6th claim 400.
func (s *Store) ClaimDomain(ctx context.Context, aid int64, domain string, cfg DomainsConfig) (survey.Domain, error) {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		own, err := s.domainOwner(ctx, domain, true)
		if err != nil {
			return survey.Domain{}, err
		}
		if own != nil && own.AccountID != aid && own.Status == survey.DomainActive {
			return survey.Domain{}, errDomainInUse
		}
		claims, rec, err := s.accountDomains(ctx, aid)
		if err != nil {
			return survey.Domain{}, err
		}
		for _, c := range claims {
			if c.Domain == domain {
				return survey.Domain{}, errDomainTwice
			}
		}
		if len(claims) >= survey.MaxDomains {
			return survey.Domain{}, errDomainsMax
		}
		id, err := s.NewID(ctx, KindDomain)
		if err != nil {
			return survey.Domain{}, err
		}
		claim := accountDomainsItem{PK: AccountPK(aid), SK: domainClaimSK(id), ID: id, Domain: domain, Status: survey.DomainPending,
			TXT: randomString(tokenAlphabet, tokenLength)}
		tx := s.db.WriteTx().Put(s.table.Put(claim).If("attribute_not_exists(PK)"))
		target := targetOf(rec)
		if rec == nil {
			target = randomString(randomAlphabet, targetLabelSize)
			tx = tx.Put(s.table.Put(accountDomainsItem{PK: AccountPK(aid), SK: domainsSK, Target: target, Count: 1}).If("attribute_not_exists(PK)")).
				Put(s.table.Put(map[string]any{AttrPK: TargetPK(target), AttrSK: targetSK, "account_id": aid}).If("attribute_not_exists(PK)"))
		} else {
			tx = tx.Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, domainsSK).Set("count", len(claims)+1).
				If("attribute_not_exists($) OR $ = ?", "count", "count", rec.Count))
		}
		err = s.runTx(ctx, tx) // with the request's activity entry
		if err == nil {
			return claim.domain(cfg.TargetSuffix, target), nil
		}
		if txFailedAt(err, 1) || txFailedAt(err, 2) || retryOwnerConflict(ctx, err, attempt, started) {
			// Another claim of the account's landed meanwhile (or, once in
			// 36^20, the label is another's): read again.
			if ownerAgain(ctx, attempt, started) {
				continue
			}
		}
		return survey.Domain{}, s.fail("claim domain "+domain, err)
	}
}

// DeleteDomain removes the account's claim id (ENOTFOUND without it) and,
// when it was verified, the domain's own item: it serves no more.
func (s *Store) DeleteDomain(ctx context.Context, aid, id int64) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		claims, rec, err := s.accountDomains(ctx, aid)
		if err != nil {
			return err
		}
		var c *accountDomainsItem
		for i := range claims {
			if claims[i].ID == id {
				c = &claims[i]
			}
		}
		if c == nil || rec == nil {
			return survey.ErrNotFound
		}
		// The claim goes only in the status read: a verify that made it
		// active meanwhile made the domain's own item too, which must go
		// with it (read again), or the domain would serve with no claim.
		err = s.runTx(ctx, s.releaseTx(aid, c.ID, c.Domain, c.Status, rec.Count, c.Status != survey.DomainPending))
		if err == nil {
			return nil
		}
		if txFailedAt(err, 0) || txFailedAt(err, 1) || retryOwnerConflict(ctx, err, attempt, started) {
			if ownerAgain(ctx, attempt, started) {
				continue
			}
		}
		return s.fail("delete domain", err)
	}
}

// releaseTx deletes claim id (of domain; in status, unless "") and, when
// owned, the domain's own item if it is still this claim's, and counts one
// claim less.
func (s *Store) releaseTx(aid, id int64, domain, status string, count int, owned bool) *dynamo.WriteTx {
	claim := s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, domainClaimSK(id)).If("attribute_exists(PK)")
	if status != "" {
		claim = claim.If("$ = ?", "status", status)
	}
	tx := s.db.WriteTx().
		Delete(claim).
		Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, domainsSK).Set("count", max(count-1, 0)).If("$ = ?", "count", count))
	if owned {
		tx = tx.Delete(s.table.Delete(AttrPK, DomainPK(domain)).Range(AttrSK, domainSK).
			If("attribute_not_exists(PK) OR (account_id = ? AND domain_id = ?)", aid, id))
	}
	return tx
}

// DomainClaim is what a verify needs of a claim.
type DomainClaim struct {
	Domain survey.Domain
	// TXT is the claim's value; Target the whole cname_target.
	TXT, Target string
}

// MarkDomainChecked sets the claim's checked_at (a verify that failed).
func (s *Store) MarkDomainChecked(ctx context.Context, aid, id int64, at time.Time) error {
	err := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, domainClaimSK(id)).Set("checked_at", isoZ(at)).
		If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail("mark domain checked", err)
	}
	return nil
}

// ActivateDomain makes the claim active after a verify that found both
// records: the domain's own item is written on the condition that no
// other account has it, so of racing verifies of one domain exactly one
// wins, and every loser reads it and answers "in use".
func (s *Store) ActivateDomain(ctx context.Context, aid int64, d DomainClaim, at time.Time) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		own := DomainOwner{PK: DomainPK(d.Domain.Domain), SK: domainSK, Domain: d.Domain.Domain, AccountID: aid, DomainID: d.Domain.ID,
			Status: survey.DomainActive, TXT: d.TXT, Target: d.Target, GSI2PK: domainsCheckKey, GSI2SK: d.Domain.Domain}
		err := s.runTx(ctx, s.db.WriteTx().
			Put(s.table.Put(own).If("attribute_not_exists(PK) OR (account_id = ? AND domain_id = ?)", aid, d.Domain.ID)).
			Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, domainClaimSK(d.Domain.ID)).
				Set("status", survey.DomainActive).Set("checked_at", isoZ(at)).Remove("failing_since").If("attribute_exists(PK)")))
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0):
			return errDomainInUse
		case txFailedAt(err, 1):
			return survey.ErrNotFound // deleted meanwhile
		}
		if !retryOwnerConflict(ctx, err, attempt, started) {
			return s.fail("activate domain", err)
		}
		// Lost a race: the winner may be another account's verify.
		if o, rerr := s.domainOwner(ctx, d.Domain.Domain, true); rerr != nil {
			return rerr
		} else if o != nil && o.AccountID != aid {
			return errDomainInUse
		}
	}
}

// DomainOwnerOf is the account that has domain verified, 0 for none.
func (s *Store) DomainOwnerOf(ctx context.Context, domain string) (int64, error) {
	o, err := s.domainOwner(ctx, domain, true)
	if err != nil || o == nil {
		return 0, err
	}
	return o.AccountID, nil
}

// ClaimForVerify is the claim's domain with its TXT value and whole target.
func (s *Store) ClaimForVerify(ctx context.Context, aid, id int64, cfg DomainsConfig) (DomainClaim, error) {
	claims, rec, err := s.accountDomains(ctx, aid)
	if err != nil {
		return DomainClaim{}, err
	}
	for _, c := range claims {
		if c.ID == id {
			d := c.domain(cfg.TargetSuffix, targetOf(rec))
			return DomainClaim{Domain: d, TXT: c.TXT, Target: d.CNAMETarget}, nil
		}
	}
	return DomainClaim{}, survey.ErrNotFound
}

// CheckedDomainsPage is one page of the verified domains (active and
// suspended) the daily check reads: a Query of their GSI2 partition.
func (s *Store) CheckedDomainsPage(ctx context.Context, start dynamo.PagingKey, limit int) ([]DomainOwner, dynamo.PagingKey, error) {
	var out []DomainOwner
	q := s.table.Get(AttrGSI2PK, domainsCheckKey).Index(IndexGSI2).SearchLimit(limit)
	if start != nil {
		q = q.StartFrom(start)
	}
	next, err := q.AllWithLastEvaluatedKey(ctx, &out)
	if err != nil {
		return nil, nil, s.fail("query verified domains", err)
	}
	return out, next, nil
}

// SetDomainStatus moves a verified domain (o, as read) to status after a
// check at at: suspended starts its failing time, active clears it. Both
// the domain's item and the claim change in one transaction, conditional
// on the domain's item being as read; changed is false when it was not
// (deleted or changed meanwhile: the next check sees it).
func (s *Store) SetDomainStatus(ctx context.Context, o DomainOwner, status string, at time.Time) (changed bool, err error) {
	own := s.table.Update(AttrPK, o.PK).Range(AttrSK, domainSK).Set("status", status).
		If("account_id = ? AND domain_id = ? AND $ = ?", o.AccountID, o.DomainID, "status", o.Status)
	claim := s.table.Update(AttrPK, AccountPK(o.AccountID)).Range(AttrSK, domainClaimSK(o.DomainID)).
		Set("status", status).Set("checked_at", isoZ(at)).If("attribute_exists(PK)")
	if status == survey.DomainSuspended {
		own, claim = own.Set("failing_since", at.Unix()).Set("notice", at.UnixMicro()), claim.Set("failing_since", at.Unix())
	} else {
		own, claim = own.Remove("failing_since"), claim.Remove("failing_since")
	}
	err = s.db.WriteTx().Update(own).Update(claim).Run(ctx)
	if txFailedAt(err, 0) || txFailedAt(err, 1) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("set domain status", err)
	}
	return true, nil
}

// TakeDomainMail claims the owner's email of o's suspension: true for the
// one caller that may send it (a conditional write on the domain's item,
// so a check retried on a stale read of the index sends no second email).
// A send that fails gives it back (ReturnDomainMail).
func (s *Store) TakeDomainMail(ctx context.Context, o DomainOwner) (bool, error) {
	err := s.table.Update(AttrPK, o.PK).Range(AttrSK, domainSK).Set("mailed", o.Notice).
		If("notice = ? AND (attribute_not_exists(mailed) OR mailed <> ?)", o.Notice, o.Notice).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("take a domain's email", err)
	}
	return true, nil
}

// ReturnDomainMail gives back a claim of TakeDomainMail whose send failed.
func (s *Store) ReturnDomainMail(ctx context.Context, o DomainOwner) error {
	err := s.table.Update(AttrPK, o.PK).Range(AttrSK, domainSK).Remove("mailed").If("mailed = ?", o.Notice).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail("give back a domain's email", err)
	}
	return nil
}

// DomainNoticed clears the notice of o's suspension (o.Notice) once its
// owner has been told; a newer suspension's notice stays.
func (s *Store) DomainNoticed(ctx context.Context, o DomainOwner) error {
	err := s.table.Update(AttrPK, o.PK).Range(AttrSK, domainSK).Remove("notice").If("notice = ?", o.Notice).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail("clear a domain's notice", err)
	}
	return nil
}

// MarkOwnerChecked sets checked_at on a verified domain's claim whose check
// changed nothing.
func (s *Store) MarkOwnerChecked(ctx context.Context, o DomainOwner, at time.Time) error {
	err := s.MarkDomainChecked(ctx, o.AccountID, o.DomainID, at)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil
	}
	return err
}

// ReleaseDomain deletes a domain that failed its checks too long: its own
// item and the claim. released is false when it changed meanwhile.
func (s *Store) ReleaseDomain(ctx context.Context, o DomainOwner) (released bool, err error) {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		_, rec, err := s.accountDomains(ctx, o.AccountID)
		if err != nil {
			return false, err
		}
		if rec == nil {
			return false, nil
		}
		tx := s.releaseTx(o.AccountID, o.DomainID, o.Domain, "", rec.Count, false).
			Delete(s.table.Delete(AttrPK, o.PK).Range(AttrSK, domainSK).
				If("account_id = ? AND domain_id = ? AND $ = ?", o.AccountID, o.DomainID, "status", o.Status))
		err = tx.Run(ctx)
		switch {
		case err == nil:
			return true, nil
		case txFailedAt(err, 0) || txFailedAt(err, 2):
			return false, nil
		case txFailedAt(err, 1) || retryOwnerConflict(ctx, err, attempt, started):
			if ownerAgain(ctx, attempt, started) {
				continue
			}
		}
		return false, s.fail("release domain", err)
	}
}

func isoZ(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// String names a verified domain in logs.
func (o DomainOwner) String() string {
	return fmt.Sprintf("%s (account %d, domain %d, %s)", o.Domain, o.AccountID, o.DomainID, o.Status)
}
