package store

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/challenge"
)

// AttrSpamResponses is the survey item's count of responses marked spam
// (contract section 16): submitted_responses less it is the count of
// `?spam=false`, exactly.
const AttrSpamResponses = "spam_responses"

// ChallengePK is a spent proof-of-work challenge, named by its survey and
// salt: one item a challenge, written once (conditional put), gone by TTL
// after the challenge expired.
func ChallengePK(sid int64, salt string) string { return "CHALLENGE#" + pad(sid) + "#" + salt }

// ResponderPK is the responder of a survey that allows one response per
// responder: the survey and the hash of the responder cookie. Each
// responder's own item, so submissions of different responders never
// touch one item.
func ResponderPK(sid int64, hash string) string { return "RESPONDER#" + pad(sid) + "#" + hash }

const (
	challengeSK = "SPENT"
	responderSK = "RESPONDED"
)

var _ challenge.Spender = (*Store)(nil)

// SpendChallenge records a challenge as spent: one conditional PutItem,
// challenge.ErrSpent when it was spent before (of racing requests, one
// wins). The item expires (TTL) with the challenge, which is refused by
// its expiry from then on.
func (s *Store) SpendChallenge(ctx context.Context, sid int64, salt string, expiresAt time.Time) error {
	err := s.table.Put(map[string]any{
		AttrPK: ChallengePK(sid, salt), AttrSK: challengeSK, "expires_at": expiresAt.Add(time.Hour).Unix(),
	}).If("attribute_not_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return challenge.ErrSpent
	}
	if err != nil {
		return s.fail("spend a challenge", err)
	}
	return nil
}

// responderPut is the responder's item of a submission, conditional on
// being the responder's first.
func (s *Store) responderPut(sid int64, hash string, rid int64, submitted string) *dynamo.Put {
	return s.table.Put(map[string]any{
		AttrPK: ResponderPK(sid, hash), AttrSK: responderSK, "survey_id": sid, "response_id": rid, "submitted_at": submitted,
	}).If("attribute_not_exists(PK)")
}

// Responded reports whether the responder of hash (hex, the responder
// cookie's) has a response on the survey: one GetItem of the responder's
// item, which the first response writes (contract section 16: a no_spam
// survey refuses the responder when a session starts).
func (s *Store) Responded(ctx context.Context, sid int64, hash string) (bool, error) {
	var it map[string]any
	err := s.table.Get(AttrPK, ResponderPK(sid, hash)).Range(AttrSK, dynamo.Equal, responderSK).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("read a responder", err)
	}
	return true, nil
}
