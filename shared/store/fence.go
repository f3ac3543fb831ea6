package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// surveyOpenAt reads whether the survey is open at now: it exists, is not
// in the trash, not stopped, not closed by the sweep, and its expiration
// date (if any) is after now's day (survey.Survey.Active).
//
// It reads a copy of the survey's state (surveystate.go), not the survey
// item, when that copy is whole. limitGen is the generation of the
// survey's response limit (limitbase.go), 0 when it has none or set it
// before 30 November 2026.
func (s *Store) surveyOpenAt(ctx context.Context, r survey.Response) (open bool, limitGen int64, err error) {
	if open, gen, known, err := s.stateOpen(ctx, r); err != nil || known {
		return open, gen, err
	}
	var item dynamo.Item
	err = s.table.Get(AttrPK, SurveyPK(r.SurveyID)).Range(AttrSK, dynamo.Equal, SurveySK).Consistent(true).One(ctx, &item)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, s.fail(fmt.Sprintf("read the state of survey %d", r.SurveyID), err)
	}
	var it surveyItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return false, 0, fmt.Errorf("store: decode survey: %w", err)
	}
	sv, err := it.state() // the theme plays no part
	if err != nil {
		return false, 0, err
	}
	return sv.Active(r.SubmittedAt), it.LimitGen, nil
}

// errPlaceNeeded is the fence's answer to a response it withdrew because
// it took no place of the survey's response limit, set while it was in
// flight, and is not one of the limit's base (limitbase.go): Submit
// submits it again, with a place of that limit.
type errPlaceNeeded struct{ gen, base int64 }

func (e errPlaceNeeded) Error() string {
	return fmt.Sprintf("store: a response needs a place of response limit %d", e.gen)
}

// tookLimit reports whether the submission takes a place of response
// limit gen.
func (sub Submission) tookLimit(gen int64) bool {
	for _, c := range sub.Caps {
		if c.Quota == 0 && c.Attr == limitAttr(gen) {
			return true
		}
	}
	return false
}

// verdict is the fence's decision on a committed response: it stands,
// or the survey is closed (withdraw it: 410), or it needs a place of
// response limit gen (withdraw it and submit it again: errPlaceNeeded).
type verdict struct {
	stands, closed bool
	// gen and base are the limit the response took no place of, and the
	// responses of its base, when it needs a place.
	gen, base int64
}

// decide reads what the fence decides of response r (its ID, SurveyID and
// SubmittedAt, the stamp) now: took reports whether it took a place of a
// response limit's generation; done is when its transaction returned (a
// later time only ever decides "needs a place" where an earlier one
// decides "stands": limitBase.place). Both the submission's own fence and
// a replay of its key (replayed) decide with it.
func (s *Store) decide(ctx context.Context, r survey.Response, took func(gen int64) bool, done time.Time) (verdict, error) {
	open, gen, err := s.surveyOpenAt(ctx, r)
	if err != nil || !open {
		return verdict{closed: true}, err
	}
	if gen == 0 || took(gen) {
		return verdict{stands: true}, nil
	}
	b, err := s.limitBaseOf(ctx, r.SurveyID, gen)
	if err != nil {
		return verdict{closed: true}, err
	}
	in, err := s.stands(ctx, r.SurveyID, gen, b, r.ID, r.SubmittedAt, done)
	return verdict{stands: in && err == nil, gen: gen, base: b.Base}, err
}

// fence answers a submission whose transaction committed: its response,
// or, the survey having closed meanwhile, survey.ErrSurveyClosed after
// withdrawing it. When the state cannot be read, the response is
// withdrawn too (nothing is lost: the client's retry, with its key,
// submits again) and the answer is 503.
//
// A submission reads the survey's state after its transaction instead of
// conditioning the transaction on the survey item:
// docs/data-model.md#the-close-fence.
//
// A response that took no place of a response limit the survey has now
// (set while it was in flight) stands only when it is one of the limit's
// base; otherwise it is withdrawn and the answer is errPlaceNeeded
// (limitbase.go). done is when its transaction returned.
//
// A response a replay of its key kept (replayed: the replay read it
// standing, after it committed) stands whatever this fence read: the
// withdrawal finds the mark and writes nothing.
//
// The decision to withdraw outlives the request: the fence first keeps
// it on the key's record (markWithdrawal), and a withdrawal that does not
// commit in the request's time (its transactions lost to the page
// index's other writers, its Lambda ended) is finished from the stream
// (FinishWithdrawal). A replay of the key never answers such a response
// 201 (replayed). Found by an outside test (hostile8): a survey with a
// limit of 20 ended 36 responses over it, each withdrawal out of time
// and each replay after its decide_by answered 201.
func (s *Store) fence(ctx context.Context, r survey.Response, sub Submission, done time.Time) (Submitted, error) {
	v, err := s.decide(ctx, r, sub.tookLimit, done)
	if err == nil && v.stands {
		return Submitted{ID: r.ID, SubmittedAt: r.SubmittedAt}, nil
	}
	w := sub.withdrawal(r, err == nil && v.closed)
	marked, werr := s.markWithdrawal(ctx, w)
	if !errors.Is(werr, errKept) {
		werr = s.withdraw(ctx, w) // unmarked too: the mark may fail where the withdrawal does not
	}
	switch {
	case errors.Is(werr, errKept):
		return Submitted{ID: r.ID, SubmittedAt: r.SubmittedAt}, nil
	case werr != nil && !marked:
		return Submitted{}, werr
	case werr != nil:
		// Decided, and kept on the key's record: the stream finishes it.
		slog.WarnContext(ctx, "store: a withdrawal out of the request's time goes to the stream", "survey", r.SurveyID, "response", r.ID,
			"error", werr.Error())
	}
	switch {
	case err != nil:
		return Submitted{}, err
	case !v.closed:
		return Submitted{}, errPlaceNeeded{gen: v.gen, base: v.base}
	}
	return Submitted{}, survey.ErrSurveyClosed
}

// errKept is withdraw's answer when a replay of the response's key kept
// it (replayed): it stands.
var errKept = errors.New("store: the response was kept by a replay of its key")

// withdrawal is what withdraw takes back of a response the fence refused:
// the response, and the items of its responder its submission wrote. The
// fence keeps it, as JSON, on the key's record (AttrWithdraw) before it
// withdraws, and the stream finishes a withdrawal its request could not
// (FinishWithdrawal): it names every item, so that the finishing needs no
// other read. Identities are named by their hashes (their claims' keys),
// never in the clear.
type withdrawal struct {
	Survey      int64     `json:"survey"`
	Response    int64     `json:"response"`
	SubmittedAt time.Time `json:"submitted_at"`
	// KeyHash, KeyOnClaim, Session and LegacySession are the
	// Submission's: where its key and its session's claim are.
	KeyHash       string `json:"key_hash"`
	KeyOnClaim    bool   `json:"key_on_claim,omitempty"`
	Session       string `json:"session,omitempty"`
	LegacySession bool   `json:"legacy_session,omitempty"`
	// Code is the code the response spent (a unique code's), or "".
	Code string `json:"code,omitempty"`
	// Link is the personalised link the response spent, or "".
	Link string `json:"link,omitempty"`
	// Responder is the responder whose guard item the response holds
	// (not a spam-tagged one's), or "".
	Responder  string   `json:"responder,omitempty"`
	Identities []string `json:"identities,omitempty"`
	Files      []string `json:"files,omitempty"`
	// Places are the places the response took, by cap counter.
	Places map[string]int `json:"places,omitempty"`
	// Closed is the fence's verdict: the survey closed (a replay answers
	// 410), or not (a place of a limit is needed, or its state could not
	// be read: a replay waits for the withdrawal and submits again).
	Closed bool `json:"closed,omitempty"`
}

// withdrawal is what withdrawing sub's response r takes back; closed is
// the fence's verdict.
func (sub Submission) withdrawal(r survey.Response, closed bool) withdrawal {
	w := withdrawal{Survey: r.SurveyID, Response: r.ID, SubmittedAt: r.SubmittedAt, KeyHash: sub.KeyHash, KeyOnClaim: sub.KeyOnClaim,
		Session: sub.Session, LegacySession: sub.LegacySession, Link: sub.LinkID, Places: placesOf(sub.Caps, sub.placed), Closed: closed}
	if sub.CheckCode && sub.CodeUnique {
		w.Code = r.Code
	}
	if !r.Spam {
		w.Responder = sub.Responder
	}
	for _, id := range sub.Identities {
		w.Identities = append(w.Identities, identityHash(id))
	}
	w.Files = fileKeys(sub.Files)
	return w
}

// keyed is the submission whose key's record w's response is on (for
// keyRecord and keyRecordKey).
func (w withdrawal) keyed() Submission {
	return Submission{KeyHash: w.KeyHash, KeyOnClaim: w.KeyOnClaim, Session: w.Session, LegacySession: w.LegacySession}
}

// AttrWithdraw is the attribute of a key's record that keeps its
// response's withdrawal (withdrawal, as JSON) from the fence's decision
// until the withdrawal commits: the dispatch's stream filter names it.
const AttrWithdraw = "withdraw"

// markWithdrawal keeps w on its key's record, unless a replay kept the
// response (errKept: it stands). marked is false when the record holds
// another response, or none: the withdrawal then goes on unmarked, as it
// finds what is left. One conditional UpdateItem; a keep in flight on the
// record is waited out, as keep waits out a withdrawal.
func (s *Store) markWithdrawal(ctx context.Context, w withdrawal) (marked bool, err error) {
	plan, err := json.Marshal(w)
	if err != nil {
		return false, fmt.Errorf("store: encode a withdrawal: %w", err)
	}
	pk, sk := keyRecordKey(w.Survey, w.keyed())
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.table.Update(AttrPK, pk).Range(AttrSK, sk).Set(AttrWithdraw, string(plan)).
			If("response_id = ? AND attribute_not_exists(kept)", w.Response).Run(ctx)
		switch {
		case err == nil:
			return true, nil
		case dynamo.IsCondCheckFailed(err):
			it, ok, rerr := s.keyRecord(ctx, w.Survey, w.keyed())
			if rerr == nil && ok && it.ResponseID == w.Response && it.Kept {
				return false, errKept
			}
			return false, rerr
		case !retryOwnerConflict(ctx, err, attempt, started):
			return false, s.fail(fmt.Sprintf("mark the withdrawal of response %d of survey %d", w.Response, w.Survey), err)
		}
	}
}

// ErrNotWithdrawal is FinishWithdrawal's answer to a record whose mark it
// cannot read: no retry mends it.
var ErrNotWithdrawal = errors.New("store: not a withdrawal")

// FinishWithdrawal finishes the withdrawal a fence kept on a key's record
// (plan, its AttrWithdraw; markWithdrawal) when the record still holds it:
// the dispatch calls it for each record the stream shows marked. A
// withdrawal that committed already (the record gone, or holding another
// response) costs one strongly consistent GetItem and writes nothing; one
// that is finished twice at once commits once (withdraw).
func (s *Store) FinishWithdrawal(ctx context.Context, plan string) error {
	var w withdrawal
	if err := json.Unmarshal([]byte(plan), &w); err != nil || w.Survey == 0 || w.Response == 0 || w.KeyHash == "" {
		return ErrNotWithdrawal
	}
	it, ok, err := s.keyRecord(ctx, w.Survey, w.keyed())
	if err != nil || !ok || it.ResponseID != w.Response || it.Withdraw == "" {
		return err
	}
	if err := s.withdraw(ctx, w); err != nil && !errors.Is(err, errKept) {
		return err
	}
	return nil
}

// WithdrawalsScan is what a scan for marked withdrawals found.
type WithdrawalsScan struct {
	Scanned  int `json:"scanned"`
	Marked   int `json:"marked"`
	Finished int `json:"finished"`
}

// FinishMarkedWithdrawals finishes every withdrawal a fence marked and
// nothing finished (FinishWithdrawal): the operator's repair when the
// dispatch's stream gave a marked record up (admin finish-withdrawals). A
// parallel Scan of the table (segments at once) filtered to marked
// records; never on a request's path. A marked record the fence or the
// dispatch is finishing at the same time is finished once.
func (s *Store) FinishMarkedWithdrawals(ctx context.Context, segments int) (WithdrawalsScan, error) {
	var out WithdrawalsScan
	var sm dynamo.ScanMetrics
	it := s.table.Scan().Filter("attribute_exists($)", AttrWithdraw).Project(AttrWithdraw).ScanMetrics(&sm).IterParallel(ctx, max(segments, 1))
	var item struct {
		Plan string `dynamo:"withdraw"`
	}
	for it.Next(ctx, &item) {
		out.Marked++
		switch err := s.FinishWithdrawal(ctx, item.Plan); {
		case errors.Is(err, ErrNotWithdrawal):
			slog.ErrorContext(ctx, "store: an unreadable withdrawal's mark; passed over", "mark", item.Plan)
		case err != nil:
			return out, err
		default:
			out.Finished++
		}
		item.Plan = ""
	}
	out.Scanned = int(sm.Scanned)
	if err := it.Err(); err != nil {
		return out, s.fail("scan for marked withdrawals", err)
	}
	return out, nil
}

// withdraw takes back a response the fence refused, in one transaction of
// the responder's own items: the response and its Idempotency-Key
// deleted, its code and its link spent no more (each only if this
// response spent it), its responder's guard item, its session's, its identities' and
// its files' claims removed, and its count in the responses' page index
// taken back (takeBackResponsePage). Its counts need
// no write here: the tally adds them when the response's insertion
// reaches it on the stream and takes them back when its removal does,
// exactly once each. Only a variable's has_response flag, which is not a
// count, may stay set by a withdrawn response.
//
// Conflicts are retried, with a jittered backoff, while withdrawTimeLeft:
// the page index's items (ROLL, or its nodes in a survey's first hours)
// are every withdrawal's and deletion's of the survey, and a limit set or
// a close while a survey is busy withdraws many responses at once (at
// most 5 tries failed under load, leaving responses recorded past a
// limit). The client leaving does not stop a withdrawal; the request's
// deadline does (its Lambda ends there), and the stream finishes what
// the fence marked (FinishWithdrawal).
func (s *Store) withdraw(ctx context.Context, w withdrawal) error {
	sid := w.Survey
	pk := ResponsesShardPK(sid, ResponseShard(w.Response))
	started := time.Now()
	ctx, cancel := keepDeadline(ctx)
	defer cancel()
	for attempt := 1; ; attempt++ {
		// The response of this attempt, by its stamp: a submission's next
		// attempt records the same id (its new stamp), and a withdrawal
		// finished late (the stream's) must not take that one.
		tx, n := s.db.WriteTx().Idempotent(true).
			Delete(s.table.Delete(AttrPK, pk).Range(AttrSK, ResponseSK(w.Response)).
				If("submitted_at = ?", w.SubmittedAt.UTC().Format(survey.TimestampLayout))), 1
		keyAt := -1        // where the key's record is deleted: unless a replay kept the response
		if !w.KeyOnClaim { // a session's own key goes with its claim, below
			tx.Delete(s.table.Delete(AttrPK, ResponsesShardPK(sid, IdempotencyShard(w.KeyHash))).Range(AttrSK, IdempotencySK(w.KeyHash)).
				If("response_id = ? AND attribute_not_exists(kept)", w.Response).IncludeItemInCondCheckFail(true))
			keyAt, n = n, n+1
		}
		if w.Session != "" {
			tx.Delete(s.table.Delete(AttrPK, sessionPK(sid, w.Session, w.LegacySession)).Range(AttrSK, SessionSK(w.Session)).
				If("response_id = ? AND attribute_not_exists(kept)", w.Response).IncludeItemInCondCheckFail(w.KeyOnClaim))
			if w.KeyOnClaim {
				keyAt = n
			}
			n++
		}
		_, pages, err := s.readResponsePagesState(ctx, sid)
		if err != nil {
			return err
		}
		moved := s.takeBackResponsePage(tx, n, sid, ResponseTimeSK(w.SubmittedAt, w.Response), pages)
		if w.Code != "" {
			tx.Update(s.table.Update(AttrPK, CodesPK(sid)).Range(AttrSK, CodeSK(w.Code)).
				Remove("used", "used_at", "response_id").If("response_id = ?", w.Response))
		}
		if w.Link != "" {
			tx.Delete(s.table.Delete(AttrPK, LinkPK(w.Link)).Range(AttrSK, linkUsedSK).If("response_id = ?", w.Response))
		}
		if w.Responder != "" {
			// The responder has not responded after all (no_spam).
			tx.Delete(s.table.Delete(AttrPK, ResponderPK(sid, w.Responder)).Range(AttrSK, responderSK).If("response_id = ?", w.Response))
		}
		for _, h := range w.Identities {
			tx.Delete(s.table.Delete(AttrPK, identityPKOfHash(sid, h)).Range(AttrSK, identitySKOfHash(h)).If("response_id = ?", w.Response))
		}
		for _, key := range w.Files {
			tx.Delete(s.table.Delete(AttrPK, UploadPK(sid, key)).Range(AttrSK, UploadSK(key)).If("response_id = ?", w.Response))
		}
		s.givePlacesBack(tx, sid, w.Places)
		if s.beforeWithdrawTx != nil {
			s.beforeWithdrawTx(ctx)
		}
		err = tx.Run(ctx)
		switch {
		case err == nil:
			s.caps.forget(sid)
			return nil
		case txFailedAt(err, keyAt):
			// Kept by a replay (the response stands), or withdrawn by a
			// concurrent run (the stream's finish, or the fence's own):
			// the record tells. Answering "kept" for a record gone
			// answered 201 for a response the stream had withdrawn.
			return s.keptOrGone(ctx, w, err, keyAt)
		case txFailedAt(err, 0):
			return nil // withdrawn by a concurrent run
		case moved(err) && attempt < submitAttempts:
			// The page index rolled up past the response: again, below it.
		case txConflict(err) && withdrawTimeLeft(ctx, started) && waitTurn(ctx, attempt):
		default:
			return s.fail(fmt.Sprintf("withdraw response %d of survey %d", w.Response, sid), err)
		}
	}
}

// keptOrGone is withdraw's answer when its transaction failed on the
// key's record (the keyAt-th write): errKept when a replay kept the
// response there; nil when the record is gone or holds another response
// and the response's delete failed too (a concurrent run withdrew it).
// The record comes back with the cancellation, or is read (strongly
// consistent) when it does not. A response still there whose record is
// not this response's stands, as before.
func (s *Store) keptOrGone(ctx context.Context, w withdrawal, err error, keyAt int) error {
	it, ok, derr := keyFromTx(err, keyAt)
	if derr == nil && !ok {
		it, _, derr = s.keyRecord(ctx, w.Survey, w.keyed())
	}
	switch {
	case derr != nil:
		return derr
	case it.ResponseID == w.Response && it.Kept, !txFailedAt(err, 0):
		return errKept
	}
	return nil
}

// keepDeadline is ctx without its cancellation, its deadline kept: work
// that must not stop when the request's client leaves (make run cancels
// the request then; Lambda does not), or that is shared with requests
// other than the one that started it, and still ends with its Lambda.
func keepDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	out := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(out, dl)
	}
	return out, func() {}
}

// withdrawFor bounds a withdrawal's tries when its request has no
// deadline (make run, tests).
const withdrawFor = 20 * time.Second

// withdrawTimeLeft reports whether a withdrawal that started at started
// may try again: until withdrawReserve before the request's deadline, or
// for withdrawFor without one.
func withdrawTimeLeft(ctx context.Context, started time.Time) bool {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl) >= withdrawReserve
	}
	return time.Since(started) < withdrawFor
}

// withdrawReserve is the time a withdrawal leaves itself before the
// request's deadline for its last try.
const withdrawReserve = 200 * time.Millisecond
