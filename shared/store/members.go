package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A member (sub-user) of an account lives in the account's partition:
//
//	ACCOUNT#<aid> / MEMBER#<sub>          the member: profile, key hash, shares
//	ACCOUNT#<aid> / MEMBEREMAIL#<email>   keeps emails unique in the account
//	APIKEY#<hash> / APIKEY                the member's key (sub_user set)
//
// The member item carries the folders shared with them (folder id to
// role), so that resolving a member's key reads everything the access
// decision needs; the folder item carries the same shares with the
// members' profiles, so that folder reads show shared_with without
// another read. One transaction writes both sides.
type memberItem struct {
	PK        string            `dynamo:"PK"`
	SK        string            `dynamo:"SK"`
	SubUser   int64             `dynamo:"sub_user"`
	AccountID int64             `dynamo:"account_id"`
	Email     string            `dynamo:"email"`
	FirstName string            `dynamo:"first_name"`
	LastName  string            `dynamo:"last_name"`
	KeyHash   string            `dynamo:"key_hash"`
	Shares    map[string]string `dynamo:"shares,allowempty"`
	// SharesRev moves with every write of Shares, so that a removal
	// decides over the shares as they are when it commits.
	SharesRev int64  `dynamo:"shares_rev,omitempty"`
	Created   string `dynamo:"created"`
}

// shareEntry is one member's share as the folder item keeps it, under
// the member's sub_user.
type shareEntry struct {
	Email     string `dynamo:"email"`
	FirstName string `dynamo:"first_name"`
	LastName  string `dynamo:"last_name"`
	Role      string `dynamo:"role"`
}

// attrMembers is the account's count of members (limits.go's counts).
const attrMembers = "members"

// MemberSK is the SK of a member's item in the account's partition.
func MemberSK(sub int64) string { return "MEMBER#" + pad(sub) }

func memberEmailSK(email string) string { return "MEMBEREMAIL#" + strings.ToLower(email) }

func (it memberItem) member() survey.Member {
	return survey.Member{SubUser: it.SubUser, Email: it.Email, FirstName: it.FirstName, LastName: it.LastName}
}

func (it memberItem) shares() map[int64]survey.Role {
	out := make(map[int64]survey.Role, len(it.Shares))
	for k, v := range it.Shares {
		if fid, err := strconv.ParseInt(k, 10, 64); err == nil {
			out[fid] = survey.Role(v)
		}
	}
	return out
}

// errMemberLimit is the 400 of the account's 51st member.
var errMemberLimit = &survey.Error{Code: survey.EINVALID,
	Fields: map[string]any{"non_field_errors": []string{fmt.Sprintf("An account holds at most %d members.", survey.MaxMembers)}}}

// CreateMember adds a member to the account with a fresh sub_user and a
// key of their own, and returns the member and the key (stored only as
// its hash). One idempotent transaction: the account's member count (at
// most survey.MaxMembers: 400), the member, the email guard (an email the
// account's members use: 400 on email) and the key.
func (s *Store) CreateMember(ctx context.Context, aid int64, m survey.Member) (survey.Member, string, error) {
	id, err := s.NewID(ctx, KindMember)
	if err != nil {
		return survey.Member{}, "", err
	}
	m.SubUser = id
	key := survey.NewKey()
	hash := survey.HashKey(key)
	now := s.timestamp()
	it := memberItem{PK: AccountPK(aid), SK: MemberSK(id), SubUser: id, AccountID: aid, Email: m.Email,
		FirstName: m.FirstName, LastName: m.LastName, KeyHash: hash, Shares: map[string]string{}, Created: now}
	guard := map[string]any{AttrPK: AccountPK(aid), AttrSK: memberEmailSK(m.Email), "sub_user": id}
	k := keyItem{PK: APIKeyPK(hash), SK: apiKeySK, AccountID: aid, SubUser: id, Created: now}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err = s.runTx(ctx, s.db.WriteTx().Idempotent(true).
			Update(s.countUp(aid, attrMembers, survey.MaxMembers)).
			Put(s.table.Put(it).If("attribute_not_exists(PK)")).
			Put(s.table.Put(guard).If("attribute_not_exists(PK)")).
			Put(s.table.Put(k).If("attribute_not_exists(PK)")))
		switch {
		case err == nil:
			return m, key, nil
		case txFailedAt(err, 0):
			if txItemAt(err, 0) == nil {
				return survey.Member{}, "", survey.ErrNotFound
			}
			return survey.Member{}, "", errMemberLimit
		case txFailedAt(err, 2):
			return survey.Member{}, "", survey.FieldError("email", "A member with this email already exists.")
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return survey.Member{}, "", s.fail("create member", err)
	}
}

// Members lists the account's members by sub_user: one Query of the
// account's partition.
func (s *Store) Members(ctx context.Context, aid int64) ([]survey.Member, error) {
	its, err := s.memberItems(ctx, aid)
	if err != nil {
		return nil, err
	}
	out := make([]survey.Member, len(its))
	for i, it := range its {
		out[i] = it.member()
	}
	return out, nil
}

func (s *Store) memberItems(ctx context.Context, aid int64) ([]memberItem, error) {
	var its []memberItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, "MEMBER#").Consistent(true).All(ctx, &its)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("query members of account %d", aid), err)
	}
	sort.Slice(its, func(i, j int) bool { return its[i].SubUser < its[j].SubUser })
	return its, nil
}

func (s *Store) memberItem(ctx context.Context, aid, sub int64) (memberItem, error) {
	var it memberItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, MemberSK(sub)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return memberItem{}, survey.ErrNotFound
	}
	if err != nil {
		return memberItem{}, s.fail(fmt.Sprintf("get member %d", sub), err)
	}
	return it, nil
}

// DeleteMember removes a member of the account: the member, their email
// and key go in one transaction with the end of their shares (each
// folder's shared_with loses them), so the key stops on the next request.
// An unknown member answers ENOTFOUND.
//
// The removal is decided over the member's shares at commit: the
// member's delete is conditional on the shares_rev (and key) it read,
// which every share write of theirs moves (SetFolderShares, endShares),
// so a share committed after the read cancels it and the removal reads
// again, and one committed after the removal finds no member (its
// attribute_exists) and is refused. That transaction also carries the
// request's activity entry (runTx) and the first memberTxFolders
// folders; a member of more folders than that has the rest's
// shared_with ended right after it, memberTxFolders (100 items) at a
// time: no share can be added to a removed member, and each is
// idempotent.
func (s *Store) DeleteMember(ctx context.Context, aid, sub int64) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		it, err := s.memberItem(ctx, aid, sub)
		if err != nil {
			return err // ENOTFOUND: unknown, or removed meanwhile
		}
		folders := make([]int64, 0, len(it.Shares))
		for f := range it.Shares {
			if fid, err := strconv.ParseInt(f, 10, 64); err == nil {
				folders = append(folders, fid)
			}
		}
		sort.Slice(folders, func(i, j int) bool { return folders[i] < folders[j] })
		first, rest := folders[:min(len(folders), memberTxFolders)], folders[min(len(folders), memberTxFolders):]
		changed, err := s.removeMember(ctx, aid, sub, it, first)
		switch {
		case err != nil:
			return err
		case changed && ownerAgain(ctx, attempt, started):
			continue // a share (or a key) committed since the read: decide on it
		case changed:
			return errBusy
		}
		return s.endMemberShares(ctx, aid, sub, rest)
	}
}

// memberTxFolders is how many folders a member's removal ends in its own
// transaction: 100 items less the member, email, key, count and entry.
const memberTxFolders = 95

// removeMember runs the removal's deciding transaction as read in it:
// changed when the member's shares or key moved since (read again).
func (s *Store) removeMember(ctx context.Context, aid, sub int64, it memberItem, folders []int64) (changed bool, err error) {
	const fixed = 4 // the parts before the folders'
	started := time.Now()
	for attempt := 1; ; attempt++ {
		del := s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(sub)).If("attribute_exists(PK) AND key_hash = ?", it.KeyHash)
		if it.SharesRev == 0 {
			del.If("attribute_not_exists(shares_rev)")
		} else {
			del.If("shares_rev = ?", it.SharesRev)
		}
		tx := s.db.WriteTx().Idempotent(true).Delete(del).
			Delete(s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, memberEmailSK(it.Email))).
			Delete(s.table.Delete(AttrPK, APIKeyPK(it.KeyHash)).Range(AttrSK, apiKeySK)).
			Update(s.countAdd(aid, attrMembers, -1))
		for _, fid := range folders {
			tx.Update(s.unlistMember(aid, fid, sub))
		}
		err = s.runTx(ctx, tx)
		switch {
		case err == nil:
			return false, nil
		case txFailedAt(err, 0):
			return true, nil
		}
		gone := false
		for i := len(folders) - 1; i >= 0; i-- {
			if txFailedAt(err, fixed+i) { // the folder was erased: nothing to end there
				folders = append(folders[:i:i], folders[i+1:]...)
				gone = true
			}
		}
		if gone && attempt < limitAttempts || retryConflict(ctx, err, attempt, started) {
			continue
		}
		return false, s.fail(fmt.Sprintf("delete member %d", sub), err)
	}
}

// unlistMember takes a member off a folder's shared_with (a folder
// erased meanwhile fails its condition: nothing to end there).
func (s *Store) unlistMember(aid, fid, sub int64) *dynamo.Update {
	return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).
		RemoveExpr("shared_with.$", strconv.FormatInt(sub, 10)).Add("shares_rev", 1).If("attribute_exists(PK)")
}

// endMemberShares takes a removed member off the shared_with of the
// folders its removal's transaction had no room for, 100 a transaction.
func (s *Store) endMemberShares(ctx context.Context, aid, sub int64, folders []int64) error {
	for len(folders) > 0 {
		chunk := folders[:min(len(folders), 100)]
		started := time.Now()
		for attempt := 1; ; attempt++ {
			tx := s.db.WriteTx().Idempotent(true)
			for _, fid := range chunk {
				tx.Update(s.unlistMember(aid, fid, sub))
			}
			err := tx.Run(ctx)
			if err == nil {
				break
			}
			gone := false
			for i := len(chunk) - 1; i >= 0; i-- {
				if txFailedAt(err, i) {
					chunk = append(chunk[:i:i], chunk[i+1:]...)
					gone = true
				}
			}
			if len(chunk) == 0 {
				break
			}
			if gone && attempt < limitAttempts || retryConflict(ctx, err, attempt, started) {
				continue
			}
			return s.fail(fmt.Sprintf("end the shares of removed member %d", sub), err)
		}
		folders = folders[min(len(folders), 100):]
	}
	return nil
}

// NewMemberKey issues the member's key and revokes the one they held, in
// one transaction, and returns the new key. An unknown member answers
// ENOTFOUND.
func (s *Store) NewMemberKey(ctx context.Context, aid, sub int64) (string, error) {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		it, err := s.memberItem(ctx, aid, sub)
		if err != nil {
			return "", err
		}
		key := survey.NewKey()
		hash := survey.HashKey(key)
		k := keyItem{PK: APIKeyPK(hash), SK: apiKeySK, AccountID: aid, SubUser: sub, Created: s.timestamp()}
		err = s.runTx(ctx, s.db.WriteTx().Idempotent(true).
			Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(sub)).Set("key_hash", hash).
				If("attribute_exists(PK) AND key_hash = ?", it.KeyHash)).
			Put(s.table.Put(k).If("attribute_not_exists(PK)")).
			Delete(s.table.Delete(AttrPK, APIKeyPK(it.KeyHash)).Range(AttrSK, apiKeySK)))
		switch {
		case err == nil:
			return key, nil
		case (txFailedAt(err, 0) || txConflict(err)) && ownerAgain(ctx, attempt, started):
			// Another request gave the member a key first, or held their
			// item (a share, the member's own writes): issuing one after
			// it succeeds too, so read again and issue this one (a removed
			// member answers ENOTFOUND on the read).
			continue
		case txFailedAt(err, 0):
			if _, err := s.memberItem(ctx, aid, sub); err != nil {
				return "", err
			}
			return "", errBusy
		}
		return "", s.fail(fmt.Sprintf("new key of member %d", sub), err)
	}
}

// PrincipalByKeyHash resolves a key's hash to who holds it, reading the
// key's item strongly consistent (a revoked key is refused at once,
// contract section 2): an owner's key then its account; a member's key
// then the account and the member in one BatchGetItem (strongly
// consistent), so a removed member or an ended share counts on the next
// request. Unknown, revoked or replaced keys answer ENOTFOUND.
func (s *Store) PrincipalByKeyHash(ctx context.Context, hashHex string) (survey.Principal, error) {
	k, err := s.liveKey(ctx, hashHex)
	if err != nil {
		return survey.Principal{}, err
	}
	if k.SubUser == 0 {
		a, err := s.Account(ctx, k.AccountID)
		return survey.Principal{Account: a}, err
	}
	var items []dynamo.Item
	err = s.table.Batch(AttrPK, AttrSK).Get(
		dynamo.Keys{AccountPK(k.AccountID), accountSK},
		dynamo.Keys{AccountPK(k.AccountID), MemberSK(k.SubUser)},
	).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Principal{}, s.fail("get member of key", err)
	}
	var p survey.Principal
	var acct, mem bool
	for _, item := range items {
		switch skOf(item) {
		case accountSK:
			var it accountItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return survey.Principal{}, fmt.Errorf("store: decode account: %w", err)
			}
			p.Account, acct = it.account(), true
		default:
			var it memberItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return survey.Principal{}, fmt.Errorf("store: decode member: %w", err)
			}
			if it.KeyHash != hashHex {
				return survey.Principal{}, survey.ErrNotFound
			}
			m := it.member()
			p.Member, p.Shares, mem = &m, it.shares(), true
		}
	}
	if !acct || !mem {
		return survey.Principal{}, survey.ErrNotFound
	}
	return p, nil
}

// KeyLive reads a key's item alone, strongly consistent: the account it
// belongs to, or ENOTFOUND when it is unknown or revoked. The
// authenticator asks it on every request of an owner's key whose account
// it keeps (api.KeyChecker), so that a revocation counts on the next one.
func (s *Store) KeyLive(ctx context.Context, hashHex string) (int64, error) {
	k, err := s.liveKey(ctx, hashHex)
	return k.AccountID, err
}

// liveKey reads a key's item, strongly consistent (a revocation counts at
// once): ENOTFOUND when it is unknown or revoked.
func (s *Store) liveKey(ctx context.Context, hashHex string) (keyItem, error) {
	var k keyItem
	err := s.table.Get(AttrPK, APIKeyPK(hashHex)).Range(AttrSK, dynamo.Equal, apiKeySK).Consistent(true).One(ctx, &k)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && k.Revoked) {
		return keyItem{}, survey.ErrNotFound
	}
	if err != nil {
		return keyItem{}, s.fail("get key", err)
	}
	return k, nil
}

// ShareRequest is one item of a folder's new shared_with list.
type ShareRequest struct {
	SubUser int64
	Role    survey.Role
}

// SetFolderShares replaces the members a folder of the account is shared
// with and returns the new list by sub_user. One transaction writes the
// folder's shared_with and each affected member's shares, so the folder's
// list and what each member reaches never disagree. A missing folder
// answers ENOTFOUND; a sub_user that is no member of the account, 400 on
// its index.
func (s *Store) SetFolderShares(ctx context.Context, aid, fid int64, list []ShareRequest) ([]survey.Share, error) {
	started := time.Now()
	var its []memberItem
	var first []survey.Share // the list as the first read allowed it
	var firstPuts int64
	for attempt := 1; ; attempt++ {
		var f folderItem
		err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, FolderSK(fid)).Consistent(true).One(ctx, &f)
		if errors.Is(err, dynamo.ErrNotFound) || (err == nil && f.Deleting) {
			return nil, survey.ErrNotFound
		}
		if err != nil {
			return nil, s.fail(fmt.Sprintf("get folder %d", fid), err)
		}
		if attempt > 1 && f.SharesPuts != firstPuts {
			// Another PUT of the whole list committed after this
			// request's first read: this one takes effect right after
			// that read, valid then, and is replaced by the later one
			// at once, which wrote the members' items from the list
			// before it. Nothing is left to write: 80 PUTs of one
			// folder at once take a few commits, not 80 in turn.
			return first, nil
		}
		if its == nil {
			// Read again only after a try failed on a member's item (a
			// member removed meanwhile): a try that lost to another
			// change of the folder's list alone needs no Query more.
			if its, err = s.memberItems(ctx, aid); err != nil {
				return nil, err
			}
		}
		members := map[int64]memberItem{}
		for _, it := range its {
			members[it.SubUser] = it
		}
		bad := map[string]any{}
		next := map[string]shareEntry{}
		for i, r := range list {
			m, ok := members[r.SubUser]
			if !ok {
				bad[strconv.Itoa(i)] = map[string]any{"sub_user": []string{survey.InvalidPK(r.SubUser)}}
				continue
			}
			next[strconv.FormatInt(r.SubUser, 10)] = shareEntry{Email: m.Email, FirstName: m.FirstName, LastName: m.LastName, Role: string(r.Role)}
		}
		if len(bad) > 0 {
			return nil, &survey.Error{Code: survey.EINVALID, Fields: bad}
		}
		if attempt == 1 {
			first, firstPuts = sharesOf(next), f.SharesPuts
		}
		folder := strconv.FormatInt(fid, 10)
		// The folder's write is conditional on the list read above: a
		// member's entry is written only where its role changes, so a PUT
		// that read an older list must not overwrite a newer one.
		put := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, FolderSK(fid)).Set("shared_with", next).Add("shares_rev", 1).Add("shares_puts", 1).If(folderLive)
		if f.SharesRev == 0 {
			put.If("attribute_not_exists(shares_rev)")
		} else {
			put.If("shares_rev = ?", f.SharesRev)
		}
		tx := s.db.WriteTx().Idempotent(true).Update(put)
		for sub, e := range next {
			if old, ok := f.SharedWith[sub]; ok && old.Role == e.Role {
				continue
			}
			n, _ := strconv.ParseInt(sub, 10, 64)
			tx.Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(n)).
				SetExpr("shares.$ = ?", folder, e.Role).Add("shares_rev", 1).If("attribute_exists(PK)"))
		}
		for sub := range f.SharedWith {
			n, _ := strconv.ParseInt(sub, 10, 64)
			if _, kept := next[sub]; kept || members[n].SubUser == 0 {
				continue // kept, or the member is gone (their removal ended it)
			}
			tx.Update(s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, MemberSK(n)).
				RemoveExpr("shares.$", folder).Add("shares_rev", 1).If("attribute_exists(PK)"))
		}
		err = s.runTx(ctx, tx)
		if reasons := txReasons(err); len(reasons) > 1 && slices.ContainsFunc(reasons[1:], func(r string) bool { return r != "" && r != "None" }) {
			its = nil
		}
		switch {
		case err == nil:
			return sharesOf(next), nil
		case txFailedAt(err, 0) && ownerAgain(ctx, attempt, started):
			continue // the folder's list changed since the read (or the folder went): read again
		case len(txReasons(err)) > 0 && !txConflict(err) && attempt < limitAttempts:
			continue // a member was removed meanwhile: read again, and answer for what is
		case retryConflict(ctx, err, attempt, started):
			continue
		case len(txReasons(err)) > 0:
			// Still losing to other changes of the list (or of its
			// members) when its time is up: busy, as any owner's write
			// that loses its race that long, never a 500.
			return nil, &wrapped{op: fmt.Sprintf("share folder %d", fid), err: err, public: errBusy}
		}
		return nil, s.fail(fmt.Sprintf("share folder %d", fid), err)
	}
}

// sharesOf renders a folder item's shared_with, by sub_user.
func sharesOf(m map[string]shareEntry) []survey.Share {
	out := make([]survey.Share, 0, len(m))
	for sub, e := range m {
		n, err := strconv.ParseInt(sub, 10, 64)
		if err != nil {
			continue
		}
		out = append(out, survey.Share{SubUser: n, Email: e.Email, FirstName: e.FirstName, LastName: e.LastName, Role: survey.Role(e.Role)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SubUser < out[j].SubUser })
	return out
}

// SetPlan changes an account's plan (a subscription changed). Owners'
// keys see it once the containers' caches expire; members' keys, which
// are never cached, on their next request. A missing account answers
// ENOTFOUND.
func (s *Store) SetPlan(ctx context.Context, aid int64, plan survey.Plan) error {
	if _, err := survey.ParsePlan(string(plan)); err != nil {
		return err
	}
	err := s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, accountSK).Set("plan", string(plan)).If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail(fmt.Sprintf("set plan of account %d", aid), err)
	}
	return nil
}
