package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A response claims what only one response may have, each in an item of
// its own, so that submissions of different sessions never touch one
// item: a file's in the survey's responses partitions (the shard from the
// claim's hash, as an Idempotency-Key's), a session's on the session's
// own partition key (with its partial, partials.go), which no other
// request of the survey writes:
//
//	a session's response  SESSION#<sid>#<token hash> / SESSION#<token hash> (contract section 11: one response a session;
//	                      RESPONSES#<sid>[#k] for a session sealed before: SessionLegacyPK)
//	a file's response     RESPONSES#<sid>[#k] / UPLOAD#<key hash>    (section 16: a file belongs to the first response)
//
// Both are written by the response's transaction on the condition that
// they are new (a file's also when it is already the response's own: an
// edit keeping its file), and taken back by its withdrawal.

// ResponseFile is a file a response answers with: its object key and the
// element it answers.
type ResponseFile struct {
	Key     string
	Element int64
}

// fileKeys are the files' object keys, as the response's AttrFiles lists
// them.
func fileKeys(files []ResponseFile) []string {
	var keys []string
	for _, f := range files {
		keys = append(keys, f.Key)
	}
	return keys
}

// SessionPK is the partition of a session's own items, its claim and
// its partial (hash: the hex SHA-256 of its token): one partition key a
// session, so that a survey's sessions share no partition however many
// save and submit at once (docs/scale.md), and a session's items are
// still one Query. Sessions sealed since carry the mark that says so
// (responding.Session.OwnPartition); one sealed before keeps its items
// where it wrote them, SessionLegacyPK.
func SessionPK(sid int64, hash string) string { return "SESSION#" + pad(sid) + "#" + hash }

// SessionLegacyPK is the partition of the items of a session sealed
// before sessions had partitions of their own: one of its survey's 16
// responses partitions, by the hash (as an Idempotency-Key's). Its token
// names no other place for as long as it is used (a session token does
// not expire unless the survey limits the time to respond), so these
// keys are still read and written, for such sessions only.
func SessionLegacyPK(sid int64, hash string) string {
	return ResponsesShardPK(sid, IdempotencyShard(hash))
}

// sessionPK is the partition of a session's items: its own, or for a
// session sealed before (legacy) the responses' shard.
func sessionPK(sid int64, hash string, legacy bool) string {
	if legacy {
		return SessionLegacyPK(sid, hash)
	}
	return SessionPK(sid, hash)
}

// SessionSK is a session's claim: the response it recorded.
func SessionSK(hash string) string { return "SESSION#" + hash }

// uploadHash is the hex SHA-256 of a file's object key.
func uploadHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// UploadPK is the partition of a file's claim.
func UploadPK(sid int64, key string) string {
	return ResponsesShardPK(sid, IdempotencyShard(uploadHash(key)))
}

// UploadSK is a file's claim: the response it belongs to.
func UploadSK(key string) string { return "UPLOAD#" + uploadHash(key) }

// claimFile puts a file's claim for response rid: new, or rid's already.
func (s *Store) claimFile(sid int64, f ResponseFile, rid int64) *dynamo.Put {
	return s.table.Put(map[string]any{
		AttrPK: UploadPK(sid, f.Key), AttrSK: UploadSK(f.Key), "key": f.Key, "response_id": rid,
	}).If("attribute_not_exists(PK) OR response_id = ?", rid)
}

// takenFiles are the elements of the files whose claims (at their indexes
// in a cancelled transaction) failed: another response's files.
func takenFiles(err error, files []ResponseFile, at []int) []int64 {
	var taken []int64
	for i, f := range files {
		if txFailedAt(err, at[i]) {
			taken = append(taken, f.Element)
		}
	}
	return taken
}

// raceVerdict is what a submission that lost a race answers: the earlier
// response of its Idempotency-Key (replay), a refusal, a retry marked as
// spam (a tag_spam survey's repeated responder), or, all zero, nothing
// yet (no winner shows: try again).
type raceVerdict struct {
	replay  *Submitted
	refusal error
	spam    bool
}

// claimRead is what lostRace reads of a held item: whether it exists, and
// the response or the use it records.
type claimRead struct {
	found      bool
	ResponseID int64  `dynamo:"response_id"`
	Used       bool   `dynamo:"used"`
	Session    string `dynamo:"session"`
}

// readClaim reads a held item of survey sid (pk, sk), strongly
// consistent: one GetItem, found false when there is none.
func (s *Store) readClaim(ctx context.Context, sid int64, pk, sk string) (claimRead, error) {
	var c claimRead
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Consistent(true).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return claimRead{}, nil
	}
	if err != nil {
		return claimRead{}, s.fail(fmt.Sprintf("read a claim of survey %d", sid), err)
	}
	c.found = true
	return c, nil
}

// SessionResponded reports whether the session whose claim is session
// (the hex hash responding.Session.Claim names; legacy for a session
// sealed before sessions had partitions of their own, as
// Submission.LegacySession) has recorded its response: one strongly
// consistent GetItem of the session's own item, which no other session
// shares. For the routes that would spend something on a session that
// can never respond again (sending a sign-in code: contract sections 11
// and 18).
func (s *Store) SessionResponded(ctx context.Context, sid int64, session string, legacy bool) (bool, error) {
	c, err := s.readClaim(ctx, sid, sessionPK(sid, session, legacy), SessionSK(session))
	return c.ResponseID != 0, err
}

// lostRace reads, strongly consistent, each item of a submission's
// cancelled transaction that a concurrent transaction held (its reason
// TransactionConflict), and answers what the winner's write implies
// (contract section 3, "Contention"): for its Idempotency-Key the replay
// (or 422), for its session 409, a gone or spent code 403, a used link
// 410, a responder or a proven identity that responded 403 (or, on a tag_spam survey, a retry
// marked spam), files claimed by other responses 400. A held item that
// shows no winner yet (the holder may still fail) decides nothing.
// GetItems never conflict, so reading adds no contention of its own.
func (s *Store) lostRace(ctx context.Context, r survey.Response, sub Submission, p submitWriteIndex, err error) (raceVerdict, error) {
	reasons := txReasons(err)
	held := func(i int) bool { return i >= 0 && i < len(reasons) && reasons[i] == "TransactionConflict" }
	sid := r.SurveyID
	if held(p.keyAt(sub)) {
		done, found, err := s.Replay(ctx, sid, sub)
		if err != nil || found {
			return raceVerdict{replay: &done}, err
		}
	}
	read := func(pk, sk string) (claimRead, error) { return s.readClaim(ctx, sid, pk, sk) }
	claims := []struct {
		at      int
		pk, sk  string
		won     func(claimRead) bool
		verdict raceVerdict
	}{
		{p.session, sessionPK(sid, sub.Session, sub.LegacySession), SessionSK(sub.Session),
			func(c claimRead) bool { return c.ResponseID != 0 }, raceVerdict{refusal: survey.ErrSessionResponded}},
		{p.code, CodesPK(sid), CodeSK(r.Code),
			func(c claimRead) bool { return !c.found || sub.CodeUnique && c.Used }, raceVerdict{refusal: survey.ErrCodeRefused}},
		{p.link, LinkPK(sub.LinkID), linkUsedSK,
			func(c claimRead) bool { return c.found }, raceVerdict{refusal: survey.ErrLinkUsed}},
		{p.responder, ResponderPK(sid, sub.Responder), responderSK,
			func(c claimRead) bool { return c.found }, responderVerdict(sub.TagSpam)},
	}
	for _, c := range claims {
		if !held(c.at) {
			continue
		}
		got, err := read(c.pk, c.sk)
		if err != nil {
			return raceVerdict{}, err
		}
		if c.won(got) {
			return c.verdict, nil
		}
	}
	for i, at := range p.identities {
		if !held(at) {
			continue
		}
		id := sub.Identities[i]
		got, err := read(IdentityPK(sid, id), IdentitySK(id))
		if err != nil {
			return raceVerdict{}, err
		}
		if got.found && got.ResponseID != r.ID {
			return raceVerdict{refusal: identityVerdict(got.Session, sub.Session)}, nil
		}
	}
	var taken []int64
	for i, at := range p.files {
		if !held(at) {
			continue
		}
		f := sub.Files[i]
		got, err := read(UploadPK(sid, f.Key), UploadSK(f.Key))
		if err != nil {
			return raceVerdict{}, err
		}
		if got.found && got.ResponseID != r.ID {
			taken = append(taken, f.Element)
		}
	}
	if len(taken) > 0 {
		return raceVerdict{refusal: survey.FilesTaken(taken)}, nil
	}
	return raceVerdict{}, nil
}

// responderVerdict is what a responder who responded meanwhile answers: a
// refusal, or on a tag_spam survey a retry marked spam.
func responderVerdict(tagSpam bool) raceVerdict {
	if tagSpam {
		return raceVerdict{spam: true}
	}
	return raceVerdict{refusal: survey.ErrAlreadyResponded}
}
