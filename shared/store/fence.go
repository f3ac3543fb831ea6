package store

import (
	"context"
	"errors"
	"fmt"
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
func (s *Store) fence(ctx context.Context, r survey.Response, sub Submission, done time.Time) (Submitted, error) {
	v, err := s.decide(ctx, r, sub.tookLimit, done)
	if err == nil && v.stands {
		return Submitted{ID: r.ID, SubmittedAt: r.SubmittedAt}, nil
	}
	switch werr := s.withdraw(ctx, r, sub); {
	case errors.Is(werr, errKept):
		return Submitted{ID: r.ID, SubmittedAt: r.SubmittedAt}, nil
	case werr != nil:
		return Submitted{}, werr
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
// deadline does (its Lambda ends there).
func (s *Store) withdraw(ctx context.Context, r survey.Response, sub Submission) error {
	sid := r.SurveyID
	pk := ResponsesShardPK(sid, ResponseShard(r.ID))
	started := time.Now()
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), dl)
		defer cancel()
	} else {
		ctx = context.WithoutCancel(ctx)
	}
	for attempt := 1; ; attempt++ {
		tx, n := s.db.WriteTx().Idempotent(true).
			Delete(s.table.Delete(AttrPK, pk).Range(AttrSK, ResponseSK(r.ID)).If("attribute_exists(PK)")), 1
		keyAt := -1          // where the key's record is deleted: unless a replay kept the response
		if !sub.KeyOnClaim { // a session's own key goes with its claim, below
			tx.Delete(s.table.Delete(AttrPK, ResponsesShardPK(sid, IdempotencyShard(sub.KeyHash))).Range(AttrSK, IdempotencySK(sub.KeyHash)).
				If("response_id = ? AND attribute_not_exists(kept)", r.ID))
			keyAt, n = n, n+1
		}
		if sub.Session != "" {
			tx.Delete(s.table.Delete(AttrPK, sessionPK(sid, sub.Session, sub.LegacySession)).Range(AttrSK, SessionSK(sub.Session)).
				If("response_id = ? AND attribute_not_exists(kept)", r.ID))
			if sub.KeyOnClaim {
				keyAt = n
			}
			n++
		}
		_, pages, err := s.readResponsePagesState(ctx, sid)
		if err != nil {
			return err
		}
		moved := s.takeBackResponsePage(tx, n, sid, ResponseTimeSK(r.SubmittedAt, r.ID), pages)
		if sub.CheckCode && sub.CodeUnique {
			tx.Update(s.table.Update(AttrPK, CodesPK(sid)).Range(AttrSK, CodeSK(r.Code)).
				Remove("used", "used_at", "response_id").If("response_id = ?", r.ID))
		}
		if sub.LinkID != "" {
			tx.Delete(s.table.Delete(AttrPK, LinkPK(sub.LinkID)).Range(AttrSK, linkUsedSK).If("response_id = ?", r.ID))
		}
		if sub.Responder != "" && !r.Spam {
			// The responder has not responded after all (no_spam).
			tx.Delete(s.table.Delete(AttrPK, ResponderPK(sid, sub.Responder)).Range(AttrSK, responderSK).If("response_id = ?", r.ID))
		}
		for _, id := range sub.Identities {
			tx.Delete(s.table.Delete(AttrPK, IdentityPK(sid, id)).Range(AttrSK, IdentitySK(id)).If("response_id = ?", r.ID))
		}
		for _, f := range sub.Files {
			tx.Delete(s.table.Delete(AttrPK, UploadPK(sid, f.Key)).Range(AttrSK, UploadSK(f.Key)).If("response_id = ?", r.ID))
		}
		s.givePlacesBack(tx, sid, placesOf(sub.Caps, sub.placed))
		err = tx.Run(ctx)
		switch {
		case err == nil:
			s.caps.forget(sid)
			return nil
		case txFailedAt(err, keyAt):
			return errKept
		case txFailedAt(err, 0):
			return nil // withdrawn by a concurrent run
		case moved(err) && attempt < submitAttempts:
			// The page index rolled up past the response: again, below it.
		case txConflict(err) && withdrawTimeLeft(ctx, started) && waitTurn(ctx, attempt):
		default:
			return s.fail(fmt.Sprintf("withdraw response %d of survey %d", r.ID, sid), err)
		}
	}
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
