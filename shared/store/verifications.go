package store

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"
)

// A verification is one code sent to prove an email address or a mobile
// number (contract section 18): its own item, named by a random id that
// the responder's sealed verification token carries,
//
//	VERIFY#<sid>#<id> / CODE   hash, salt, tries, expires_at (TTL), spent
//
// holding the code only as a salted hash. Each try of a code is one
// conditional UpdateItem that counts it (ADD tries 1 while fewer than the
// limit were made, the code unspent and unexpired) and answers the hash to
// compare, so concurrent confirms can never make more tries than the limit
// between them; a right code then spends the verification with one more
// conditional update, which exactly one of racing confirms wins.

// ErrVerificationGone answers a try of a verification that is spent,
// expired, past its tries or unknown: a new code must be asked for.
var ErrVerificationGone = errors.New("store: verification gone")

// VerificationPK is a verification's item (id: hex).
func VerificationPK(sid int64, id string) string { return "VERIFY#" + pad(sid) + "#" + id }

const verificationSK = "CODE"

// VerificationCode is what a verification's item keeps of its code: its
// salted hash and the salt (hex), never the code.
type VerificationCode struct {
	Hash  string `dynamo:"hash"`
	Salt  string `dynamo:"salt"`
	Tries int    `dynamo:"tries"`
}

// PutVerification records a new verification's code, expiring at
// expiresAt (the table's TTL removes it an hour later). One PutItem,
// conditional on the id being new.
func (s *Store) PutVerification(ctx context.Context, sid int64, id string, code VerificationCode, expiresAt time.Time) error {
	err := s.table.Put(map[string]any{
		AttrPK: VerificationPK(sid, id), AttrSK: verificationSK, "hash": code.Hash, "salt": code.Salt, "tries": 0,
		"valid_until": expiresAt.Unix(), AttrTTL: expiresAt.Add(time.Hour).Unix(),
	}).If("attribute_not_exists(PK)").Run(ctx)
	if err != nil {
		return s.fail("put a verification", err)
	}
	return nil
}

// TryVerification counts one try of a verification's code and answers its
// hash and salt to compare: one conditional UpdateItem, which succeeds
// only while fewer than maxTries were counted, the verification is
// unspent and now is before its expiry; otherwise ErrVerificationGone.
func (s *Store) TryVerification(ctx context.Context, sid int64, id string, maxTries int, now time.Time) (VerificationCode, error) {
	var out VerificationCode
	err := s.table.Update(AttrPK, VerificationPK(sid, id)).Range(AttrSK, verificationSK).Add("tries", 1).
		If("attribute_exists(PK) AND tries < ? AND attribute_not_exists(spent) AND valid_until > ?", maxTries, now.Unix()).
		Value(ctx, &out)
	if dynamo.IsCondCheckFailed(err) {
		return VerificationCode{}, ErrVerificationGone
	}
	if err != nil {
		return VerificationCode{}, s.fail("try a verification", err)
	}
	return out, nil
}

// SpendVerification marks a verification whose code was right as spent:
// one conditional UpdateItem; ErrVerificationGone when a racing confirm
// spent it first.
func (s *Store) SpendVerification(ctx context.Context, sid int64, id string) error {
	err := s.table.Update(AttrPK, VerificationPK(sid, id)).Range(AttrSK, verificationSK).Set("spent", true).
		If("attribute_exists(PK) AND attribute_not_exists(spent)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return ErrVerificationGone
	}
	if err != nil {
		return s.fail("spend a verification", err)
	}
	return nil
}

// DropVerification removes a verification whose code could not be sent,
// so that it never counts as one a responder holds.
func (s *Store) DropVerification(ctx context.Context, sid int64, id string) error {
	if err := s.table.Delete(AttrPK, VerificationPK(sid, id)).Range(AttrSK, verificationSK).Run(ctx); err != nil {
		return s.fail("drop a verification", err)
	}
	return nil
}
