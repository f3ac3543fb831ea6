package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

type accountItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	ID        int64  `dynamo:"id"`
	Email     string `dynamo:"email"`
	FirstName string `dynamo:"first_name"`
	LastName  string `dynamo:"last_name"`
	UserType  int    `dynamo:"user_type"`
	Plan      string `dynamo:"plan"`
	Created   string `dynamo:"created"`
	// PutToken tells the create's own earlier attempt from another item
	// (see puttoken.go).
	PutToken string `dynamo:"put_token,omitempty"`
}

type emailItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
}

type keyItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
	// SubUser names the member holding the key; 0 for the owner's keys.
	SubUser  int64  `dynamo:"sub_user,omitempty"`
	Created  string `dynamo:"created"`
	Revoked  bool   `dynamo:"revoked"`
	PutToken string `dynamo:"put_token,omitempty"` // see puttoken.go
}

const (
	accountSK = "ACCOUNT"
	emailSK   = "EMAIL"
	apiKeySK  = "APIKEY"
)

func (it accountItem) account() survey.Account {
	return survey.Account{ID: it.ID, Email: it.Email, FirstName: it.FirstName, LastName: it.LastName,
		UserType: it.UserType, Plan: survey.Plan(it.Plan)}
}

// CreateAccount stores a new account with a fresh id and returns it. An email
// already in use answers ECONFLICT. A taken id takes a fresh one (idTaken);
// a retried transaction that had landed finds its own put token and
// succeeds (see puttoken.go).
func (s *Store) CreateAccount(ctx context.Context, a survey.Account) (survey.Account, error) {
	if a.UserType == 0 {
		a.UserType = survey.UserTypeOwner
	}
	if err := a.Validate(); err != nil {
		return survey.Account{}, err
	}
	token := newPutToken()
	for range idAttempts {
		id, err := s.NewID(ctx, KindAccount)
		if err != nil {
			return survey.Account{}, err
		}
		a.ID = id
		it := accountItem{PK: AccountPK(id), SK: accountSK, ID: id, Email: a.Email, FirstName: a.FirstName,
			LastName: a.LastName, UserType: a.UserType, Plan: string(a.Plan), Created: s.timestamp(), PutToken: token}
		guard := emailItem{PK: EmailPK(a.Email), SK: emailSK, AccountID: id}
		err = s.db.WriteTx().
			Put(s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true)).
			Put(s.table.Put(guard).If("attribute_not_exists(PK)")).
			Run(ctx)
		switch {
		case err == nil:
			return a, nil
		case txFailedAt(err, 0) && ownEarlierPut(txItemAt(err, 0), token):
			return a, nil // an earlier attempt of this very transaction landed
		case txFailedAt(err, 1):
			return survey.Account{}, survey.Errorf(survey.ECONFLICT, "an account with email %s exists", a.Email)
		case txFailedAt(err, 0):
			if err := s.idTaken(ctx, KindAccount, id); err != nil {
				return survey.Account{}, err
			}
		default:
			return survey.Account{}, s.fail("create account", err)
		}
	}
	return survey.Account{}, errIDsTaken
}

// Account returns the account with the id, or ENOTFOUND.
func (s *Store) Account(ctx context.Context, id int64) (survey.Account, error) {
	var it accountItem
	err := s.table.Get(AttrPK, AccountPK(id)).Range(AttrSK, dynamo.Equal, accountSK).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Account{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Account{}, s.fail(fmt.Sprintf("get account %d", id), err)
	}
	return it.account(), nil
}

// CreateKey issues a new API key for an existing account and returns the key
// itself; only its hash is stored. A missing account answers ENOTFOUND.
func (s *Store) CreateKey(ctx context.Context, accountID int64) (string, error) {
	key := survey.NewKey()
	token := newPutToken()
	it := keyItem{PK: APIKeyPK(survey.HashKey(key)), SK: apiKeySK, AccountID: accountID, Created: s.timestamp(), PutToken: token}
	err := s.db.WriteTx().
		Check(s.table.Check(AttrPK, AccountPK(accountID)).Range(AttrSK, accountSK).IfExists()).
		Put(s.table.Put(it).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true)).
		Run(ctx)
	switch {
	case err == nil, txFailedAt(err, 1) && ownEarlierPut(txItemAt(err, 1), token):
		return key, nil
	case txFailedAt(err, 0):
		return "", survey.ErrNotFound
	}
	// A key is 32 random bytes: its hash is never taken by another.
	return "", s.fail("create key", err)
}

// RevokeKey marks a key revoked; it stops working once caches expire. An
// unknown key answers ENOTFOUND.
func (s *Store) RevokeKey(ctx context.Context, key string) error {
	err := s.table.Update(AttrPK, APIKeyPK(survey.HashKey(strings.TrimSpace(key)))).Range(AttrSK, apiKeySK).
		Set("revoked", true).Set("revoked_at", s.timestamp()).
		If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail("revoke key", err)
	}
	return nil
}

// AccountByKeyHash returns the account owning the key with this hash, or
// ENOTFOUND when the key is unknown or revoked.
func (s *Store) AccountByKeyHash(ctx context.Context, hashHex string) (survey.Account, error) {
	k, err := s.liveKey(ctx, hashHex)
	if err != nil {
		return survey.Account{}, err
	}
	return s.Account(ctx, k.AccountID)
}

func (s *Store) timestamp() string { return s.Now().UTC().Format("2006-01-02T15:04:05.000000Z") }

// AccountByEmail returns the account registered with the email, or
// ENOTFOUND.
func (s *Store) AccountByEmail(ctx context.Context, email string) (survey.Account, error) {
	var g emailItem
	err := s.table.Get(AttrPK, EmailPK(email)).Range(AttrSK, dynamo.Equal, emailSK).One(ctx, &g)
	if errors.Is(err, dynamo.ErrNotFound) {
		return survey.Account{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Account{}, s.fail("get account by email", err)
	}
	return s.Account(ctx, g.AccountID)
}
