package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// Submission is one response to record and everything it spends (contract
// section 11), written by Submit in one transaction.
type Submission struct {
	// Response is the response; Submit gives it its id and submitted_at.
	Response survey.Response
	// KeyHash is the hex SHA-256 of the request's Idempotency-Key, and
	// BodyHash the hex SHA-256 of its body.
	KeyHash, BodyHash string
	// KeyOnClaim marks a key that is its session's own (the hosted page's,
	// responding.SessionKey): no other session can send it, so its use is
	// recorded on the session's claim (key_hash, body_hash), which the
	// submission writes anyway, and the key has no item of its own (2
	// write units a response less). It needs Session.
	KeyOnClaim bool
	// CheckCode makes the response's Code a condition: it must still be a
	// code of the survey; with CodeUnique it must also be unspent, and the
	// response spends it.
	CheckCode, CodeUnique bool
	// ListedPhone is the proven number (E.164) that must still be on the
	// survey's list (phone_numbers_limited, contract section 18), or "":
	// a condition of the transaction, so a number taken off the list
	// after its code was confirmed no longer responds.
	ListedPhone string
	// LinkID is the token id of the one-use link the response spends, or "".
	LinkID string
	// NewlyRespondedVariables are the ids of the variables the response
	// carries whose has_response is not set yet: the submission sets it.
	NewlyRespondedVariables []int64
	// ReportAttrs are the aggregate attributes (ChoiceCount, ScaleCount)
	// the response adds one to, for the public report; "n" is always added.
	ReportAttrs []string
	// Responder is the responder cookie's hash (hex) on a survey that
	// allows one response per responder (contract section 16), or "".
	// The submission writes its item, RESPONDER#<sid>#<hash>, on the
	// condition that it is new: the first response of that responder wins,
	// also under racing submissions, and the item is that responder's own,
	// so no other responder's transaction touches it. A later one is
	// refused (survey.ErrAlreadyResponded), or, with TagSpam, recorded and
	// marked spam.
	Responder string
	// TagSpam keeps a repeated responder's response, marked.
	TagSpam bool
	// Session is the hex SHA-256 of the session token the response
	// carries, or "": a session records one response (contract section
	// 11), so the submission puts the session's own item (SessionSK) on
	// the condition that it is new.
	Session string
	// LegacySession marks a session sealed before sessions had partition
	// keys of their own: its items are in the survey's responses
	// partitions (SessionLegacyPK), not on its own (SessionPK).
	LegacySession bool
	// Identities are the proven identities the response claims, one
	// response each (contract section 18: "email:<address>" on a
	// service_auth_no_spam survey, "phone:<E.164>" on a
	// phone_number_auth_is_unique one): each its own item (IdentitySK),
	// put on the condition that it is new, so the first response of an
	// identity wins, also under racing submissions; a later one is
	// refused (survey.ErrAlreadyResponded).
	Identities []string
	// Files are the response's files (section 16), written as its
	// AttrFiles mark; each belongs to the first response that carries it,
	// which the submission claims (UploadSK).
	Files []ResponseFile
	// Caps are the exact caps the response takes a place of (contract
	// section 25, places.go): the response limit and the quotas it
	// matches. A cap with no place left refuses it (410).
	Caps []Cap
	// placed are the allowances the recorded response took its places
	// from, in Caps' order (the fence's withdrawal gives them back).
	placed []int
}

// Submitted is a recorded response: the one this request recorded, or,
// Replayed, the one an earlier request with the same Idempotency-Key and
// body recorded.
type Submitted struct {
	ID          int64
	SubmittedAt time.Time
	Replayed    bool
	// EditToken is the response's edit token on a survey with
	// edit_response_enabled (responding seals it), or "".
	EditToken string
	// Preview marks a submission to a template survey (contract section
	// 17): checked as any, stored and counted nowhere.
	Preview bool
}

// idemItem is RESPONSES#<sid> / IDEM#<key hash>: what an Idempotency-Key
// recorded, until it expires. A session's own key (Submission.KeyOnClaim)
// is recorded on the session's claim instead, which reads as one too:
// with KeyHash, and without an expiry.
type idemItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	BodyHash   string `dynamo:"body_hash"`
	ResponseID int64  `dynamo:"response_id"`
	Submitted  string `dynamo:"submitted_at"`
	ExpiresAt  int64  `dynamo:"expires_at,omitempty"`
	KeyHash    string `dynamo:"key_hash,omitempty"`
	// DecideBy (Unix milliseconds) is when the response's fence has
	// decided and any withdrawal committed: a second before the end of the
	// request that recorded it (decideDeadline; replayed). 0 on records
	// written before 1 December 2026.
	DecideBy int64 `dynamo:"decide_by,omitempty"`
	// LimitAttr is the counter of the response limit the response took a
	// place of, if any (Cap.Attr): a replay decides as its fence does.
	LimitAttr string `dynamo:"limit_attr,omitempty"`
	// Kept marks a response a replay of its key read standing: its fence
	// withdraws it no more.
	Kept bool `dynamo:"kept,omitempty"`
	// Withdraw is the withdrawal its fence decided and has not finished
	// (AttrWithdraw; withdrawal as JSON): a replay never answers it.
	Withdraw string `dynamo:"withdraw,omitempty"`
}

// replayOf is what the item answers sub's key: found when it recorded a
// response of that key (a claim: of that key, not of another key of its
// session), then the replay or survey.ErrReusedKey.
func (it idemItem) replayOf(sub Submission) (Submitted, bool, error) {
	if it.ResponseID == 0 || sub.KeyOnClaim && it.KeyHash != sub.KeyHash {
		return Submitted{}, false, nil
	}
	done, err := it.replay(sub.BodyHash)
	return done, true, err
}

// replay is what an Idempotency-Key recorded earlier answers now: the
// first response again for the same body, survey.ErrReusedKey for another.
func (it idemItem) replay(bodyHash string) (Submitted, error) {
	if it.BodyHash != bodyHash {
		return Submitted{}, survey.ErrReusedKey
	}
	at, err := time.Parse(survey.TimestampLayout, it.Submitted)
	if err != nil {
		return Submitted{}, fmt.Errorf("store: idempotency key %s: submitted_at: %w", it.SK, err)
	}
	return Submitted{ID: it.ResponseID, SubmittedAt: at, Replayed: true}, nil
}

// submitAttempts bounds the tries of a withdrawal and of an edit
// cancelled by a concurrent transaction on one of their items.
const submitAttempts = 5

// raceTimeLeft reports whether a submission cancelled by concurrent
// transactions may try again while no winner shows (lostRace): as an
// owner's write, until ownerReserve before the request's deadline. Its items are its
// responder's own (the response, its key, its session, its code, its
// link, its files), so only a racing submission of the same responder (a
// double click, a shared code or link) or an owner deleting that code
// holds one; the race is decided within a few holds on DynamoDB, and 50
// sends of one key took over 2 s on DynamoDB Local while a whole make
// test ran.
func raceTimeLeft(ctx context.Context, started time.Time) bool { return ownerTimeLeft(ctx, started) }

// Submit records a response exactly once, in one TransactWriteItems of
// items that belong to this responder alone, so that concurrent
// submissions of one survey never conflict: the Idempotency-Key
// (conditional on it being new, or expired), the response (in its shard:
// responses.go), the code's check or spending and the one-use link's
// spending. Either all of them are written or none. The survey's
// submitted_responses, the report's counts and the variables' has_response
// are added from the stream by the tally (tally.go), seconds later, exactly
// once.
//
// "Closed at the moment of submission" is decided by a strongly
// consistent read of the survey's state after the transaction (fence.go):
// open then, the response was written before any stop, trash or sweep that
// follows, and it stands; closed, the response is withdrawn in one more
// transaction (the same items, and the counts it will have added) and the
// answer is 410, as if it had never been written.
//
// The same key with the same body answers the first response, Replayed;
// with another body survey.ErrReusedKey (422). A closed, stopped or trashed
// survey answers survey.ErrSurveyClosed (410); a session that recorded a
// response survey.ErrSessionResponded (409); an unknown or spent code
// survey.ErrCodeRefused (403); a used link survey.ErrLinkUsed (410); a file
// of another response survey.FilesTaken (400). A transaction cancelled by
// a concurrent one (contract section 3, "Contention") reads what won and
// answers that (lostRace); it tries again only while no winner shows, and
// answers 503 only when the store throttles or fails.
func (s *Store) Submit(ctx context.Context, sub Submission) (Submitted, error) {
	r := sub.Response
	id, err := s.NewID(ctx, KindResponse)
	if err != nil {
		return Submitted{}, err
	}
	r.ID = id
	sub.Caps = slices.Clone(sub.Caps)
	if err := s.settledCaps(ctx, r.SurveyID, sub.Caps); err != nil {
		return Submitted{}, err
	}
	// The race's time counts from here: the wait for a limit's base
	// (settledCaps, up to limitHealAfter) is no race lost.
	started := time.Now()
	for attempt := 1; ; attempt++ {
		now := s.Now().UTC().Truncate(time.Microsecond)
		r.SubmittedAt = now
		picks, err := s.pickPlaces(ctx, r.SurveyID, sub.Caps)
		if err != nil {
			// Full: a retry of a success still answers the success.
			if done, found, rerr := s.Replay(ctx, r.SurveyID, sub); rerr != nil || found {
				return done, rerr
			}
			return Submitted{}, err
		}
		sub.placed = picks
		decideBy := decideDeadline(ctx)
		tx, parts, err := s.submitTx(r, sub, now, decideBy)
		if err != nil {
			return Submitted{}, err
		}
		if s.beforeSubmitTx != nil {
			s.beforeSubmitTx()
		}
		err = tx.Run(ctx)
		if err == nil && s.afterSubmitTx != nil {
			s.afterSubmitTx()
		}
		if err == nil {
			// The fence decides by decideBy, as the key's record says: a
			// withdrawal sent before decideMargin ahead of it has
			// committed by then.
			fctx, cancel := context.WithDeadline(ctx, decideBy.Add(-decideMargin))
			done, ferr := s.fence(fctx, r, sub, s.Now())
			cancel()
			var np errPlaceNeeded
			if !errors.As(ferr, &np) {
				return done, ferr
			}
			// Withdrawn: again, with a place of the limit set meanwhile.
			if sub.Caps, err = s.withLimitPlace(ctx, r.SurveyID, sub.Caps, np); err != nil {
				return Submitted{}, err
			}
			sub.placed = nil
			continue
		}
		reasons := txReasons(err)
		if reasons == nil {
			return Submitted{}, s.fail(fmt.Sprintf("submit a response to survey %d", r.SurveyID), err)
		}
		if keyAt := parts.keyAt(sub); txFailedAt(err, keyAt) {
			it, ok, derr := keyFromTx(err, keyAt)
			if derr == nil && !ok {
				// The item did not come back with the cancellation: read it.
				it, ok, derr = s.keyRecord(ctx, r.SurveyID, sub)
			}
			if derr != nil {
				return Submitted{}, derr
			}
			if ok {
				if sub.KeyOnClaim && it.ResponseID != 0 && it.KeyHash != sub.KeyHash {
					// The session's claim holds another key's response.
					return Submitted{}, survey.ErrSessionResponded
				}
				if done, found, rerr := s.replayed(ctx, r.SurveyID, sub, it); rerr != nil || found {
					return done, rerr
				}
				// Withdrawn by its fence while the replay waited: the
				// race's time counts from here.
				started = time.Now()
			}
			// Gone since (expired and deleted, or withdrawn): try again.
			if !raceTimeLeft(ctx, started) {
				return Submitted{}, errBusy
			}
			continue
		}
		if parts.responder >= 0 && txFailedAt(err, parts.responder) && sub.TagSpam && !r.Spam {
			// A repeated responder on a tag_spam survey: record it marked
			// (without its responder item, which the first one holds).
			r.Spam = true
			continue
		}
		refusal := parts.refusal(err, sub)
		if refusal == nil && len(parts.places) > 0 {
			// An allowance without room, or held: learn which, and pick
			// again (places.go).
			cancelled, lerr := s.learnPlaces(ctx, r.SurveyID, sub.Caps, parts.places, err)
			if lerr != nil {
				return Submitted{}, lerr
			}
			if cancelled && !txConflict(err) {
				continue
			}
		}
		if refusal == nil && txConflict(err) {
			// Lost to a concurrent transaction: what won decides.
			v, err := s.lostRace(ctx, r, sub, parts, err)
			switch {
			case err != nil:
				return Submitted{}, err
			case v.replay != nil:
				return *v.replay, nil
			case v.spam && !r.Spam:
				r.Spam = true
				continue
			}
			refusal = v.refusal
		}
		if refusal != nil {
			// Cancellation reasons need not name every failed condition:
			// the key may hold an earlier success that a retry should
			// answer, whatever the survey's state is now.
			if done, found, rerr := s.Replay(ctx, r.SurveyID, sub); rerr != nil || found {
				return done, rerr
			}
			return Submitted{}, refusal
		}
		if !txConflict(err) || !raceTimeLeft(ctx, started) {
			return Submitted{}, s.fail(fmt.Sprintf("submit a response to survey %d", r.SurveyID), err)
		}
		// No winner shows yet (the holder may still fail): try again.
		if err := backoff(ctx, min(attempt, 8)); err != nil {
			return Submitted{}, err
		}
	}
}

// settledCaps gives each cap of a response limit whose base is being
// counted its places, once counted (limitbase.go): the submission waits
// for them, and is stamped after.
func (s *Store) settledCaps(ctx context.Context, sid int64, caps []Cap) error {
	for i, c := range caps {
		if !c.pending {
			continue
		}
		b, err := s.limitBaseOf(ctx, sid, c.gen)
		if err != nil {
			return err
		}
		caps[i].Places, caps[i].pending = c.limit-b.Base, false
	}
	return nil
}

// withLimitPlace is the caps of a response the fence withdrew for want of
// a place of limit np.gen: its quotas, and that limit as its settings
// hold it now (none when it has been removed or replaced since: the next
// fence decides again).
func (s *Store) withLimitPlace(ctx context.Context, sid int64, caps []Cap, np errPlaceNeeded) ([]Cap, error) {
	out := make([]Cap, 0, len(caps)+1)
	for _, c := range caps {
		if c.Quota != 0 {
			out = append(out, c)
		}
	}
	cur, err := s.readLimit(ctx, sid)
	if err != nil {
		return nil, err
	}
	if cur.Limit != nil && cur.Gen == np.gen {
		out = append(out, Cap{Attr: limitAttr(cur.Gen), Places: *cur.Limit - np.base})
	}
	return out, nil
}

// keyAt is where the transaction records sub's key: its own item, or
// its session's claim.
func (p submitWriteIndex) keyAt(sub Submission) int {
	if sub.KeyOnClaim {
		return p.session
	}
	return p.idem
}

// submitWriteIndex is where each of a submission's writes is in its
// transaction (-1 for a write it does not have).
type submitWriteIndex struct {
	idem, response, session, code, link, responder, phone int
	// files are the indexes of the files' claims, in Submission.Files'
	// order; identities those of the identities' claims, in
	// Submission.Identities' order.
	files, identities []int
	// places are the allowances' writes (places.go).
	places []placeWrite
}

// refusal is the client's answer to a transaction cancelled by a failed
// condition other than the key's, or nil.
func (p submitWriteIndex) refusal(err error, sub Submission) error {
	taken := takenFiles(err, sub.Files, p.files)
	identity := identityRefusal(err, p.identities, sub.Session)
	switch {
	case p.session >= 0 && txFailedAt(err, p.session):
		return survey.ErrSessionResponded
	case p.code >= 0 && txFailedAt(err, p.code):
		return survey.ErrCodeRefused
	case p.link >= 0 && txFailedAt(err, p.link):
		return survey.ErrLinkUsed
	case p.phone >= 0 && txFailedAt(err, p.phone):
		return survey.ErrNumberRefused
	case p.responder >= 0 && txFailedAt(err, p.responder):
		return survey.ErrAlreadyResponded
	case identity != nil:
		return identity
	case len(taken) > 0:
		return survey.FilesTaken(taken)
	case txFailedAt(err, p.response):
		return survey.Errorf(survey.EINTERNAL, "store: a new response's id exists")
	}
	return nil
}

// submitTx builds a submission's transaction. decideBy is when its
// request ends (replayed).
func (s *Store) submitTx(r survey.Response, sub Submission, now, decideBy time.Time) (*dynamo.WriteTx, submitWriteIndex, error) {
	it, size, err := newResponseItem(r)
	if err != nil {
		return nil, submitWriteIndex{}, err
	}
	it.Shard, it.ReportAttrs = aggShard(), sub.ReportAttrs
	it.Tally, it.NewVariables = true, sub.NewlyRespondedVariables
	it.Files = fileKeys(sub.Files)
	it.Places = placesOf(sub.Caps, sub.placed)
	if size > survey.MaxResponseBytes {
		return nil, submitWriteIndex{}, survey.ErrResponseTooLarge
	}
	sid := r.SurveyID
	idem := idemItem{
		PK: ResponsesShardPK(sid, IdempotencyShard(sub.KeyHash)), SK: IdempotencySK(sub.KeyHash), BodyHash: sub.BodyHash, ResponseID: r.ID,
		Submitted: it.Submitted, ExpiresAt: now.Add(IdempotencyTTL).Unix(), DecideBy: decideBy.UnixMilli(), LimitAttr: sub.limitAttr(),
	}
	p := submitWriteIndex{idem: -1, response: 0, session: -1, code: -1, link: -1, responder: -1, phone: -1}
	tx, n := s.db.WriteTx(), 0
	if !sub.KeyOnClaim {
		tx.Put(s.table.Put(idem).If("attribute_not_exists(PK) OR expires_at < ?", now.Unix()).IncludeItemInCondCheckFail(true))
		p.idem, p.response, n = 0, 1, 1
	}
	tx.Put(s.table.Put(it).If("attribute_not_exists(PK)"))
	n++
	switch {
	case sub.Session != "":
		// The session's own item: no other session's submission touches it.
		claim := map[string]any{
			AttrPK: sessionPK(sid, sub.Session, sub.LegacySession), AttrSK: SessionSK(sub.Session), "response_id": r.ID, "submitted_at": it.Submitted,
		}
		if sub.KeyOnClaim {
			claim["key_hash"], claim["body_hash"], claim["decide_by"] = sub.KeyHash, sub.BodyHash, idem.DecideBy
			if idem.LimitAttr != "" {
				claim["limit_attr"] = idem.LimitAttr
			}
		}
		// A partial there is replaced (partials.go); a key on the claim
		// comes back with a refusal, to answer its replay.
		tx.Put(s.table.Put(claim).If("attribute_not_exists(response_id)").IncludeItemInCondCheckFail(sub.KeyOnClaim))
		p.session, n = n, n+1
	case sub.KeyOnClaim:
		return nil, submitWriteIndex{}, fmt.Errorf("store: a session's own key without its session")
	}
	if sub.Responder != "" && !r.Spam {
		// The responder's own item: no other responder's submission
		// touches it.
		tx.Put(s.responderPut(sid, sub.Responder, r.ID, it.Submitted))
		p.responder, n = n, n+1
	}
	switch {
	case sub.CheckCode && sub.CodeUnique:
		tx.Update(s.table.Update(AttrPK, CodesPK(sid)).Range(AttrSK, CodeSK(r.Code)).
			Set("used", true).Set("used_at", it.Submitted).Set("response_id", r.ID).
			If("attribute_exists(PK) AND attribute_not_exists(used)"))
		p.code, n = n, n+1
	case sub.CheckCode:
		tx.Check(s.table.Check(AttrPK, CodesPK(sid)).Range(AttrSK, CodeSK(r.Code)).If("attribute_exists(PK)"))
		p.code, n = n, n+1
	}
	if sub.ListedPhone != "" {
		tx.Check(s.table.Check(AttrPK, PhonesPK(sid)).Range(AttrSK, PhoneSK(sub.ListedPhone)).If("attribute_exists(PK)"))
		p.phone, n = n, n+1
	}
	if sub.LinkID != "" {
		tx.Put(s.table.Put(map[string]any{
			AttrPK: LinkPK(sub.LinkID), AttrSK: linkUsedSK, "used_at": it.Submitted, "survey_id": sid, "response_id": r.ID,
		}).If("attribute_not_exists(PK)"))
		p.link, n = n, n+1
	}
	for _, id := range sub.Identities {
		tx.Put(s.claimIdentity(sid, id, sub.Session, r.ID, it.Submitted))
		p.identities = append(p.identities, n)
		n++
	}
	for _, f := range sub.Files {
		tx.Put(s.claimFile(sid, f, r.ID))
		p.files = append(p.files, n)
		n++
	}
	p.places, _ = s.takePlaces(tx, sid, sub.Caps, sub.placed, n)
	return tx, p, nil
}

// keyFromTx is the idempotency key's item that the cancelled transaction
// returned (ReturnValuesOnConditionCheckFailure), if it did.
func keyFromTx(err error, i int) (it idemItem, ok bool, derr error) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) || tce.CancellationReasons[i].Item == nil {
		return idemItem{}, false, nil
	}
	if err := dynamo.UnmarshalItem(tce.CancellationReasons[i].Item, &it); err != nil {
		return idemItem{}, false, fmt.Errorf("store: decode idempotency key: %w", err)
	}
	return it, true, nil
}

// Replay tells whether sub's Idempotency-Key (KeyHash, KeyOnClaim and its
// session) recorded a response of the survey that has not expired: found,
// and that response for the same body (BodyHash: Replayed) or
// survey.ErrReusedKey for another. One strongly consistent GetItem (of the
// key's item, or of the session's claim for a session's own key), made
// only on a submission's way to a refusal, so that a retry of a success
// answers the success even when the survey has closed since.
//
// A response whose fence may still withdraw it is answered only once it
// stands (replayed).
func (s *Store) Replay(ctx context.Context, sid int64, sub Submission) (done Submitted, found bool, err error) {
	it, found, err := s.keyRecord(ctx, sid, sub)
	if err != nil || !found {
		return Submitted{}, false, err
	}
	return s.replayed(ctx, sid, sub, it)
}

// replayed is what the key's record it answers sub (its replay, or
// survey.ErrReusedKey), once the response it recorded stands: found
// false when that response was withdrawn (the key is free again).
//
// A response stands once its fence read the survey open (fence.go), and
// that fence writes nothing then; until its request ends (DecideBy) it
// may still read the survey closed, or a response limit set meanwhile,
// and withdraw it. So a replay of a response whose request may still be
// at work decides as the fence does (decide), after the commit:
//   - standing, it marks the key's record kept, in one conditional
//     UpdateItem (the fence's withdrawal is conditioned on no such mark,
//     so exactly one of the two writes wins), and answers the replay. A
//     response the replay reads standing may stand: it committed while
//     the survey was open, or is of a limit's base, as its fence's own
//     reading would have it;
//   - otherwise it waits (waitTurn) until the record is gone (withdrawn:
//     survey.ErrSurveyClosed when it read the survey closed, as that
//     fence did; found false after a limit, and the caller submits anew),
//     or kept, or its request has ended (the fence let it stand), and
//     answers that. If its own request's time runs out first, the answer
//     is 503;
//   - a record its fence marked withdrawn (AttrWithdraw) is never
//     answered, whatever the time: 410 when the fence read the survey
//     closed, otherwise it waits as above until the withdrawal, which
//     the stream finishes if the fence's request could not, is gone.
//
// Only a replay within a request's time of its original pays for this:
// one read of the survey's state and one write, or a few reads of the
// record a wait takes.
func (s *Store) replayed(ctx context.Context, sid int64, sub Submission, it idemItem) (Submitted, bool, error) {
	var stands, closed, decided bool
	for attempt := 1; ; attempt++ {
		done, found, err := it.replayOf(sub)
		if err != nil || !found {
			return done, found, err
		}
		if it.Withdraw != "" {
			// Its fence decided to withdraw it, and the withdrawal has
			// not committed yet (FinishWithdrawal finishes it).
			var w withdrawal
			if json.Unmarshal([]byte(it.Withdraw), &w) == nil && w.Closed {
				return Submitted{}, false, survey.ErrSurveyClosed
			}
			stands, closed, decided = false, false, true
		} else if it.Kept || time.Now().After(it.decided(s.Now)) {
			return done, found, err
		}
		if !decided {
			decided = true
			r := survey.Response{ID: it.ResponseID, SurveyID: sid, SubmittedAt: done.SubmittedAt}
			took := func(gen int64) bool { return it.LimitAttr == limitAttr(gen) }
			v, err := s.decide(ctx, r, took, s.Now())
			if err != nil {
				return Submitted{}, false, err
			}
			stands, closed = v.stands, v.closed
		}
		if stands {
			kept, err := s.keep(ctx, sid, sub, it.ResponseID)
			if err != nil || kept {
				return done, kept, err
			}
		} else {
			if attempt == 1 && s.replayWaits != nil {
				s.replayWaits()
			}
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < withdrawReserve || !waitTurn(ctx, attempt) {
				return Submitted{}, false, errBusy
			}
		}
		var ok bool
		prev := it.ResponseID
		if it, ok, err = s.keyRecord(ctx, sid, sub); err != nil || !ok || it.ResponseID != prev {
			if err == nil && !ok && closed && !stands {
				// Withdrawn by a fence that read the survey closed, as
				// this replay did: its answer, 410. Submitting anew
				// would only be withdrawn again, and a refusal read on
				// the way here (the session's claim, a code or a link
				// the response held) is that response's, taken back.
				return Submitted{}, false, survey.ErrSurveyClosed
			}
			// Withdrawn; a record of another response is a new submission's.
			return Submitted{}, false, err
		}
	}
}

// decided is when the response's fence has decided and any withdrawal
// committed (DecideBy); for a record written before DecideBy, its stamp
// and a function's time.
func (it idemItem) decided(now func() time.Time) time.Time {
	if it.DecideBy != 0 {
		return time.UnixMilli(it.DecideBy)
	}
	at, err := time.Parse(survey.TimestampLayout, it.Submitted)
	if err != nil {
		return time.Time{}
	}
	// The stamp is on the store's clock (Store.Now).
	return time.Now().Add(at.Sub(now()) + legacyDecideFor)
}

// keep marks sub's key's record kept while it holds response id: false
// when it does not (withdrawn). A withdrawal in flight on the record
// (TransactionConflictException) is waited out.
func (s *Store) keep(ctx context.Context, sid int64, sub Submission, id int64) (bool, error) {
	pk, sk := keyRecordKey(sid, sub)
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.table.Update(AttrPK, pk).Range(AttrSK, sk).Set("kept", true).If("response_id = ? AND attribute_not_exists($)", id, AttrWithdraw).Run(ctx)
		switch {
		case err == nil:
			return true, nil
		case dynamo.IsCondCheckFailed(err):
			return false, nil
		case !retryOwnerConflict(ctx, err, attempt, started):
			return false, s.fail(fmt.Sprintf("keep response %d of survey %d", id, sid), err)
		}
	}
}

const (
	// decideFor is a request's time when it has no deadline (make run,
	// tests): as withdrawFor, which bounded a withdrawal there before
	// decide_by. A replay on make run waits at most this long.
	decideFor = withdrawFor
	// decideEarly is how long before its request's deadline a
	// submission's fence has decided: a copy of the request sent at the
	// same instant (a double click: the same deadline) that waits for it
	// still answers in its own time (withdrawReserve before it).
	decideEarly = time.Second
	// decideMargin is how long a withdrawal sent just before the fence's
	// own deadline may take to commit.
	decideMargin = 500 * time.Millisecond
	// legacyDecideFor is a request's time for a record without DecideBy:
	// the responders' Lambda timeout (template.yaml).
	legacyDecideFor = 10 * time.Second
)

// decideDeadline is when a submission's attempt that starts now has
// decided (the key's record's decide_by): decideEarly before its
// request's deadline, or before decideFor from now without one.
func decideDeadline(ctx context.Context) time.Time {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(decideFor)
	}
	return dl.Add(-decideEarly)
}

// keyRecordKey is where sub's key is recorded: its item, or its
// session's claim for a session's own key.
func keyRecordKey(sid int64, sub Submission) (pk, sk string) {
	if sub.KeyOnClaim {
		return sessionPK(sid, sub.Session, sub.LegacySession), SessionSK(sub.Session)
	}
	return ResponsesShardPK(sid, IdempotencyShard(sub.KeyHash)), IdempotencySK(sub.KeyHash)
}

// limitAttr is the counter of the response limit sub takes a place of,
// or "".
func (sub Submission) limitAttr() string {
	for _, c := range sub.Caps {
		if c.Quota == 0 {
			return c.Attr
		}
	}
	return ""
}

// keyRecord reads, strongly consistent, where sub's key is recorded (its
// item, or its session's claim): found when it holds a response (an
// unexpired key's; a claim's of any key).
func (s *Store) keyRecord(ctx context.Context, sid int64, sub Submission) (idemItem, bool, error) {
	pk, sk := keyRecordKey(sid, sub)
	var it idemItem
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return idemItem{}, false, nil
	case err != nil:
		return idemItem{}, false, s.fail("read an idempotency key", err)
	}
	return it, it.ResponseID != 0 && (sub.KeyOnClaim || it.ExpiresAt >= s.Now().Unix()), nil
}
