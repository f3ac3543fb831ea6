package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// KindSubdomain numbers accounts' subdomain objects.
const KindSubdomain = "subdomain"

// subdomainSK is the SK of a name's item and of the account's record of
// its current name (in the account's partition).
const subdomainSK = "SUBDOMAIN"

// subdomainNameItem is a name's own item (SubdomainPK). HeldUntil is set
// (Unix seconds) once the account released or renamed it; until then the
// name is the account's alone; after it the name is free, and the table's
// TTL removes the item.
type subdomainNameItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
	ID        int64  `dynamo:"id"`
	HeldUntil int64  `dynamo:"held_until,omitempty"`
	Renamed   bool   `dynamo:"renamed,omitempty"`
	ExpiresAt int64  `dynamo:"expires_at,omitempty"`
}

// accountSubdomainItem is the account's current subdomain, in its partition.
type accountSubdomainItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	ID        int64  `dynamo:"id"`
	Subdomain string `dynamo:"subdomain"`
}

// AccountSubdomain returns the account's subdomain, or nil without one: a
// strongly consistent read, so the owner API shows a change at once.
func (s *Store) AccountSubdomain(ctx context.Context, aid int64) (*survey.Subdomain, error) {
	var it accountSubdomainItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, subdomainSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail(fmt.Sprintf("get subdomain of account %d", aid), err)
	}
	return &survey.Subdomain{ID: it.ID, Subdomain: it.Subdomain, IsActive: true}, nil
}

// subdomainName reads a name's item, strongly consistent; nil when absent.
func (s *Store) subdomainName(ctx context.Context, name string) (*subdomainNameItem, error) {
	var it subdomainNameItem
	err := s.table.Get(AttrPK, SubdomainPK(name)).Range(AttrSK, dynamo.Equal, subdomainSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("get subdomain "+name, err)
	}
	return &it, nil
}

// heldFrom reports whether the name's item keeps the name from account aid
// at now: another account holds it, active or within its hold.
func (it *subdomainNameItem) heldFrom(aid int64, now time.Time) bool {
	return it != nil && it.AccountID != aid && (it.HeldUntil == 0 || it.HeldUntil > now.Unix())
}

var errSubdomainTaken = survey.FieldError("subdomain", survey.MsgSubdomainTaken)

// ClaimSubdomain makes name (validated, lower-cased) the account's
// subdomain; a former name of the account is held for survey.SubdomainHold
// and its addresses redirect to the new one. One transaction writes the
// name's item on the condition that no other account holds it, the
// account's record and the former name's hold: of racing claims of one
// name exactly one wins, and every loser reads the winner and answers
// "taken" (contract section 3, "Contention"), never 503.
func (s *Store) ClaimSubdomain(ctx context.Context, aid int64, name string) (survey.Subdomain, error) {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		cur, err := s.AccountSubdomain(ctx, aid)
		if err != nil {
			return survey.Subdomain{}, err
		}
		if cur != nil && cur.Subdomain == name {
			return *cur, nil
		}
		now := s.Now()
		var id int64
		if cur != nil {
			id = cur.ID // a rename keeps the account's subdomain object
		} else if id, err = s.NewID(ctx, KindSubdomain); err != nil {
			return survey.Subdomain{}, err
		}
		tx := s.db.WriteTx().
			Put(s.table.Put(subdomainNameItem{PK: SubdomainPK(name), SK: subdomainSK, AccountID: aid, ID: id}).
				If("attribute_not_exists(PK) OR account_id = ? OR held_until < ?", aid, now.Unix()))
		mine := s.table.Put(accountSubdomainItem{PK: AccountPK(aid), SK: subdomainSK, ID: id, Subdomain: name})
		if cur == nil {
			mine = mine.If("attribute_not_exists(PK)")
		} else {
			mine = mine.If("subdomain = ?", cur.Subdomain)
		}
		tx = tx.Put(mine)
		if cur != nil {
			tx = tx.Update(s.hold(aid, cur.Subdomain, now, true))
		}
		err = s.runTx(ctx, tx)
		switch {
		case err == nil:
			return survey.Subdomain{ID: id, Subdomain: name, IsActive: true}, nil
		case txFailedAt(err, 0):
			return survey.Subdomain{}, errSubdomainTaken
		case txFailedAt(err, 1) || txFailedAt(err, 2):
			// The account's own subdomain changed meanwhile: read it again.
			if !ownerAgain(ctx, attempt, started) {
				return survey.Subdomain{}, s.fail("claim subdomain "+name, err)
			}
			continue
		}
		if !conflicted(err) {
			return survey.Subdomain{}, s.fail("claim subdomain "+name, err)
		}
		// Lost a race: the winner's write may be what held the name.
		it, rerr := s.subdomainName(ctx, name)
		if rerr != nil {
			return survey.Subdomain{}, rerr
		}
		if it.heldFrom(aid, s.Now()) {
			return survey.Subdomain{}, errSubdomainTaken
		}
		if !ownerAgain(ctx, attempt, started) {
			return survey.Subdomain{}, s.fail("claim subdomain "+name, err)
		}
	}
}

// hold is the update that keeps a former name the account's for
// survey.SubdomainHold from now; renamed tells a rename (its addresses
// redirect) from a release (they answer 404).
func (s *Store) hold(aid int64, name string, now time.Time, renamed bool) *dynamo.Update {
	until := now.Add(survey.SubdomainHold).Unix()
	u := s.table.Update(AttrPK, SubdomainPK(name)).Range(AttrSK, subdomainSK).
		Set("held_until", until).Set("expires_at", until).If("account_id = ?", aid)
	if renamed {
		return u.Set("renamed", true)
	}
	return u.Remove("renamed")
}

// ReleaseSubdomain removes the account's subdomain (ENOTFOUND without
// one); the name stays held for survey.SubdomainHold, its addresses
// answering 404.
func (s *Store) ReleaseSubdomain(ctx context.Context, aid int64) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		cur, err := s.AccountSubdomain(ctx, aid)
		if err != nil {
			return err
		}
		if cur == nil {
			return survey.ErrNotFound
		}
		err = s.runTx(ctx, s.db.WriteTx().
			Delete(s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, subdomainSK).If("subdomain = ?", cur.Subdomain)).
			Update(s.hold(aid, cur.Subdomain, s.Now(), false)))
		if err == nil {
			return nil
		}
		if txFailedAt(err, 0) || retryOwnerConflict(ctx, err, attempt, started) {
			continue
		}
		return s.fail("release subdomain", err)
	}
}

// SubdomainHost is what a subdomain name serves at a time.
type SubdomainHost struct {
	// AccountID is the account the name serves (Active), or redirects to
	// (Redirect); 0 for a name that serves nothing.
	AccountID int64
	// Active: the name is the account's current subdomain.
	Active bool
	// Redirect is the account's current name when this one was renamed and
	// is within its hold ("" otherwise, and when the account has none now).
	Redirect string
}

// ResolveSubdomain tells what the name serves at now: an active name its
// account's surveys; a renamed one, within its hold, a redirect to the
// account's current name; anything else nothing. One read, two for a
// renamed name (its account's current name).
func (s *Store) ResolveSubdomain(ctx context.Context, name string) (SubdomainHost, error) {
	it, err := s.subdomainName(ctx, name)
	if err != nil || it == nil {
		return SubdomainHost{}, err
	}
	if it.HeldUntil == 0 {
		return SubdomainHost{AccountID: it.AccountID, Active: true}, nil
	}
	if !it.Renamed || it.HeldUntil <= s.Now().Unix() {
		return SubdomainHost{}, nil
	}
	cur, err := s.AccountSubdomain(ctx, it.AccountID)
	if err != nil || cur == nil {
		return SubdomainHost{}, err
	}
	return SubdomainHost{AccountID: it.AccountID, Redirect: cur.Subdomain}, nil
}
