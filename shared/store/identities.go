package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A survey that admits one response per proven identity (contract section
// 18: service_auth_no_spam one per email address, phone_number_auth_is_unique
// one per number) has the response claim it, as a session's response and a
// file are claimed (claims.go): an item of the identity's own in the
// survey's responses partitions, the shard from the claim's hash,
//
//	an identity's response  RESPONSES#<sid>[#k] / IDENTITY#<hash>
//
// written by the response's transaction on the condition that it is new
// and taken back by its withdrawal. Two responders never share the item (a
// different identity is a different hash), so claims never make
// submissions of different responders conflict.

// identityHash is the hex SHA-256 of an identity as Submission.Identities
// names it ("email:<address>", "phone:<E.164>"): the item never holds the
// address itself.
func identityHash(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:])
}

// IdentityPK is the partition of an identity's claim on a survey.
func IdentityPK(sid int64, identity string) string {
	return identityPKOfHash(sid, identityHash(identity))
}

// identityPKOfHash is IdentityPK by the identity's hash.
func identityPKOfHash(sid int64, hash string) string {
	return ResponsesShardPK(sid, IdempotencyShard(hash))
}

// IdentitySK is an identity's claim: the response it recorded.
func IdentitySK(identity string) string { return identitySKOfHash(identityHash(identity)) }

// identitySKOfHash is IdentitySK by the identity's hash.
func identitySKOfHash(hash string) string { return "IDENTITY#" + hash }

// claimIdentity puts an identity's claim for response rid, on the
// condition that it is new. The claim names the session that recorded it
// (the hash Submission.Session is), so that a submission refused by it
// tells its own session's earlier response (409) from another
// responder's (403), and comes back with a cancelled transaction.
func (s *Store) claimIdentity(sid int64, identity, session string, rid int64, submitted string) *dynamo.Put {
	return s.table.Put(map[string]any{
		AttrPK: IdentityPK(sid, identity), AttrSK: IdentitySK(identity), "response_id": rid, "submitted_at": submitted,
		"session": session,
	}).If("attribute_not_exists(PK)").IncludeItemInCondCheckFail(true)
}

// identityVerdict is what an identity's claim held by a recorded
// response answers a submission of session: the session's own response
// (the same session sent again under another key) 409, as section 11
// says; another one 403.
func identityVerdict(claimSession, session string) error {
	if session != "" && claimSession == session {
		return survey.ErrSessionResponded
	}
	return survey.ErrAlreadyResponded
}

// identityRefusal is the refusal of a transaction cancelled by an
// identity's claim (at one of the indexes at), or nil: the claim comes
// back with the cancellation (IncludeItemInCondCheckFail), so no read is
// needed to tell whose it is.
func identityRefusal(err error, at []int, session string) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	for _, i := range at {
		if !txFailedAt(err, i) {
			continue
		}
		var c struct {
			Session string `dynamo:"session"`
		}
		if i < len(tce.CancellationReasons) && tce.CancellationReasons[i].Item != nil {
			if derr := dynamo.UnmarshalItem(tce.CancellationReasons[i].Item, &c); derr != nil {
				return fmt.Errorf("store: decode an identity's claim: %w", derr)
			}
		}
		return identityVerdict(c.Session, session)
	}
	return nil
}
