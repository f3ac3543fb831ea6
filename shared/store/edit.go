package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// ResponseEdit replaces a response's answers (contract section 16's
// edit_response_enabled).
type ResponseEdit struct {
	SurveyID, ResponseID int64
	Answers              map[int64]json.RawMessage
	// Variables replace the response's, unless nil (kept as they are).
	Variables map[string]any
	// ReportAttrs are the report attributes of the new answers.
	ReportAttrs []string
	// Files are the new answers' files (section 16): they replace the
	// response's AttrFiles mark, and each must be the response's own or
	// no other response's (the edit claims it: claims.go).
	Files []ResponseFile
	// Quotas are the quotas' caps the new answers match (QuotaCap): the
	// edit takes a place of each the response holds none of, and gives
	// back its places of the others (contract section 25), in its
	// transaction; a full one refuses it (survey.ErrQuotaFull).
	Quotas []Cap
}

// editedResponse reads what an edit needs of a stored response: its
// submission time, its report attributes and shard, its variables, and
// when it was last edited (the edit's condition), and whether the report
// counts it. One strongly consistent BatchGetItem (its shard, and shard 0);
// ENOTFOUND when there is none.
func (s *Store) editedResponse(ctx context.Context, sid, rid int64) (it responseItem, counted bool, err error) {
	item, err := s.responseItemByID(ctx, sid, rid)
	if err != nil {
		return responseItem{}, false, err
	}
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return responseItem{}, false, fmt.Errorf("store: decode response %d: %w", rid, err)
	}
	_, counted = item["agg_shard"] // imported responses were never counted
	return it, counted, nil
}

// StoredResponse is one response of a survey, read strongly consistent
// (no owner check: the public edit route has the response's edit token).
func (s *Store) StoredResponse(ctx context.Context, sid, rid int64) (survey.Response, error) {
	it, _, err := s.editedResponse(ctx, sid, rid)
	if err != nil {
		return survey.Response{}, err
	}
	return it.response()
}

// editGuardSK is a response's edit guard, in the response's partition.
func editGuardSK(rid int64) string { return "EDITING#" + pad(rid) }

// editGuardTTL is how long an unsettled edit holds off the next one.
const editGuardTTL = 15 * time.Second

// EditResponse replaces a response's answers and variables in one
// transaction of the response (conditional on it being as read: its
// edited_at unchanged, so racing edits do not lose counts) and its edit
// guard (conditional on no other edit being unsettled), then reads the
// survey's state. It answers the response as it now is. A
// closed, stopped or trashed survey answers survey.ErrSurveyClosed; a gone
// response ENOTFOUND; an edit that lost to a racing one is retried on the
// new state, for up to ownerRetryFor (then EUNAVAILABLE). A response counted before the tally (no tally mark) has its
// report counts moved in the same transaction, as before the tally.
//
// An edit touches only its responder's items and is settled like a
// submission, by reading the survey after it:
// docs/data-model.md#edits-of-a-response.
func (s *Store) EditResponse(ctx context.Context, e ResponseEdit) (survey.Response, error) {
	answers, err := json.Marshal(e.Answers)
	if err != nil {
		return survey.Response{}, fmt.Errorf("store: encode answers: %w", err)
	}
	var variables []byte
	if e.Variables != nil {
		if variables, err = json.Marshal(e.Variables); err != nil {
			return survey.Response{}, fmt.Errorf("store: encode variables: %w", err)
		}
	}
	if len(answers)+len(variables) > survey.MaxResponseBytes {
		return survey.Response{}, survey.ErrResponseTooLarge
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		old, counted, err := s.editedResponse(ctx, e.SurveyID, e.ResponseID)
		if err != nil {
			return survey.Response{}, err
		}
		now := s.Now().UTC().Truncate(time.Microsecond)
		edited := now.Format(survey.TimestampLayout)
		if edited <= old.Edited {
			// The clock must move the guard's condition on: never the
			// same edited_at twice.
			now = now.Add(time.Microsecond)
			edited = now.Format(survey.TimestampLayout)
		}
		_, kept, err := old.docs()
		if err != nil {
			return survey.Response{}, fmt.Errorf("store: response %d: %w", e.ResponseID, err)
		}
		if variables != nil {
			kept = string(variables)
		}
		give, take := quotaMoves(old.Places, e.Quotas)
		picks, err := s.pickPlaces(ctx, e.SurveyID, take)
		if err != nil {
			return survey.Response{}, err
		}
		next := old
		next.Edited, next.ReportAttrs, next.Files = edited, e.ReportAttrs, fileKeys(e.Files)
		next.Places = movedPlaces(old.Places, give, take, picks)
		next.setDocs(string(answers), kept)
		tx := s.db.WriteTx().Update(s.rewriteResponse(old, next)).
			Put(s.table.Put(map[string]any{
				AttrPK: old.PK, AttrSK: editGuardSK(e.ResponseID), "edited_at": edited, AttrTTL: now.Add(editGuardTTL).Unix(),
			}).If("attribute_not_exists(PK) OR expires_at < ?", now.Unix()))
		n := 2
		if agg := s.moveReport(e.SurveyID, old, e.ReportAttrs); counted && !old.Tally && agg != nil {
			tx.Update(agg)
			n++
		}
		claims := make([]int, len(e.Files))
		for i, f := range e.Files {
			tx.Put(s.claimFile(e.SurveyID, f, e.ResponseID))
			claims[i], n = n, n+1
		}
		writes, _ := s.movePlaces(tx, e.SurveyID, give, take, picks, n)
		err = tx.Run(ctx)
		if taken := takenFiles(err, e.Files, claims); len(taken) > 0 {
			return survey.Response{}, survey.FilesTaken(taken)
		}
		if err != nil && len(writes) > 0 && !txFailedAt(err, 0) && !txFailedAt(err, 1) {
			// An allowance without room, or held: learn which, and pick
			// again (as a submission does).
			cancelled, lerr := s.learnPlaces(ctx, e.SurveyID, take, writes, err)
			if lerr != nil {
				return survey.Response{}, lerr
			}
			if cancelled && !txConflict(err) {
				continue
			}
		}
		switch {
		case err == nil:
			if len(give) > 0 {
				s.caps.forget(e.SurveyID)
				s.reopenAfter(ctx, e.SurveyID, give)
			}
			return s.settleEdit(ctx, e.SurveyID, old, next, counted, now)
		case txFailedAt(err, 0) || txFailedAt(err, 1) || txConflict(err):
			// A racing edit changed the response, or has not settled yet:
			// edits of one response take turns, each a transaction, a read
			// and the guard's delete (~30 ms), so ten at once all land
			// (contract section 3, "Contention").
			again, err := s.editAgain(ctx, old.PK, e.ResponseID, txFailedAt(err, 1), &attempt, started)
			if err != nil {
				return survey.Response{}, err
			}
			if !again {
				return survey.Response{}, errBusy
			}
		default:
			return survey.Response{}, s.fail(fmt.Sprintf("edit response %d", e.ResponseID), err)
		}
	}
}

// quotaMoves are what an edit changes of a response's quota places: the
// quota counters it holds a place of that its new answers no longer match
// (give, counter -> allowance) and the quota caps they match that it
// holds no place of (take). Places of the response limit stay.
func quotaMoves(held map[string]int, matched []Cap) (give map[string]int, take []Cap) {
	give = map[string]int{}
	for attr, k := range held {
		if strings.HasPrefix(attr, "q") && !slices.ContainsFunc(matched, func(c Cap) bool { return c.Attr == attr }) {
			give[attr] = k
		}
	}
	for _, c := range matched {
		if _, ok := held[c.Attr]; !ok {
			take = append(take, c)
		}
	}
	return give, take
}

// restorePlaces adds to tx the Updates that take a response's places from
// what from holds to what to holds: 1 given back of each counter of from
// that to holds elsewhere or not at all, 1 taken again of each counter of
// to that from does not hold there (unconditional: an edit's revert), one
// Update an allowance.
func (s *Store) restorePlaces(tx *dynamo.WriteTx, sid int64, from, to map[string]int) {
	w := s.allowanceWrites(sid)
	for attr, k := range from {
		if nk, ok := to[attr]; !ok || nk != k {
			w.at(k).Add(attr, -1).Add(givenAttr(attr), 1)
		}
	}
	for attr, k := range to {
		if fk, ok := from[attr]; !ok || fk != k {
			w.at(k).Add(attr, 1)
		}
	}
	w.addTo(tx, 0, nil)
}

// movedPlaces is a response's places after an edit: held, less give,
// with take's caps at their picks.
func movedPlaces(held, give map[string]int, take []Cap, picks []int) map[string]int {
	out := maps.Clone(held)
	for attr := range give {
		delete(out, attr)
	}
	for i, c := range take {
		if out == nil {
			out = map[string]int{}
		}
		out[c.Attr] = picks[i]
	}
	return out
}

// editAgain waits before the next try of an edit that lost a race and
// reports whether to try (ownerAgain), counting *attempt. When the guard
// refused it (guarded: an edit before it has not settled), it waits until
// the guard is gone or has lapsed, reading it (a consistent GetItem, which
// holds nothing) a turn: waiting edits that sent transactions instead
// would hold the guard themselves, and the settling edit's delete of it
// would meet their transactions (TransactionConflict) again and again.
func (s *Store) editAgain(ctx context.Context, pk string, rid int64, guarded bool, attempt *int, started time.Time) (bool, error) {
	for {
		if !ownerAgain(ctx, *attempt, started) {
			return false, nil
		}
		*attempt++
		if !guarded {
			return true, nil
		}
		var g struct {
			Expires int64 `dynamo:"expires_at"`
		}
		err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, editGuardSK(rid)).Consistent(true).One(ctx, &g)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			return true, nil
		case err != nil:
			return false, s.fail(fmt.Sprintf("get the edit guard of response %d", rid), err)
		case g.Expires < s.Now().Unix():
			return true, nil
		}
	}
}

// rewriteResponse is the update of a response from what it was (from:
// its edited_at the condition) to next: its answers and variables (in
// next's form, the other one removed: setDocs), report attributes, files
// and edited_at.
func (s *Store) rewriteResponse(from, next responseItem) *dynamo.Update {
	upd := s.table.Update(AttrPK, from.PK).Range(AttrSK, from.SK)
	if len(next.Docs) > 0 {
		upd.Set(attrDocs, next.Docs).Remove("answers", "variables")
	} else {
		upd.Set("answers", next.Answers).Set("variables", next.Variables).Remove(attrDocs)
	}
	if len(next.ReportAttrs) > 0 {
		upd.SetSet("agg", next.ReportAttrs)
	} else {
		upd.Remove("agg")
	}
	if len(next.Files) > 0 {
		upd.SetSet(AttrFiles, next.Files)
	} else {
		upd.Remove(AttrFiles)
	}
	if next.Edited != "" {
		upd.Set("edited_at", next.Edited)
	} else {
		upd.Remove("edited_at")
	}
	if !maps.Equal(from.Places, next.Places) {
		if len(next.Places) > 0 {
			upd.Set("places", next.Places)
		} else {
			upd.Remove("places")
		}
	}
	if from.Edited == "" {
		return upd.If("attribute_exists(PK) AND attribute_not_exists(edited_at)")
	}
	return upd.If("edited_at = ?", from.Edited)
}

// settleEdit decides an edit that committed: the survey read
// open at its time, the guard is lifted and the edited response answered;
// read closed (or not read), the edit is reverted and the answer is
// survey.ErrSurveyClosed (or the read's error).
func (s *Store) settleEdit(ctx context.Context, sid int64, old, next responseItem, counted bool, at time.Time) (survey.Response, error) {
	open, err := s.surveyOpen(ctx, sid, at)
	guard := s.table.Delete(AttrPK, old.PK).Range(AttrSK, editGuardSK(old.ID)).If("edited_at = ?", next.Edited)
	if err == nil && open {
		// The guard's delete is tried again while other edits' transactions
		// hold the guard (TransactionConflictException): left, it would
		// hold them off for editGuardTTL.
		started := time.Now()
		for attempt := 1; ; attempt++ {
			gerr := guard.Run(ctx)
			if gerr != nil && retryOwnerConflict(ctx, gerr, attempt, started) {
				continue
			}
			if gerr != nil && !dynamo.IsCondCheckFailed(gerr) {
				// The guard lapses by itself; the edit stands.
				slog.WarnContext(ctx, "edit guard left", "response", old.ID, "error", gerr.Error())
			}
			return next.response()
		}
	}
	if rerr := s.revertEdit(context.WithoutCancel(ctx), sid, old, next, counted); rerr != nil {
		return survey.Response{}, rerr
	}
	if err != nil {
		return survey.Response{}, err
	}
	return survey.Response{}, survey.ErrSurveyClosed
}

// revertEdit writes a response back as it was before an edit the survey's
// close refused, and lifts the guard, in one transaction; the tally moves
// the counts back from its record (or, for a response counted before the
// tally, the transaction does).
func (s *Store) revertEdit(ctx context.Context, sid int64, old, next responseItem, counted bool) error {
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx().Update(s.rewriteResponse(next, old)).
			Delete(s.table.Delete(AttrPK, old.PK).Range(AttrSK, editGuardSK(old.ID)).If("edited_at = ?", next.Edited))
		if agg := s.moveReport(sid, next, old.ReportAttrs); counted && !old.Tally && agg != nil {
			tx.Update(agg)
		}
		// The places the edit took go back, and those it gave back are
		// the response's again (its survey has closed: nothing competes).
		s.restorePlaces(tx, sid, next.Places, old.Places)
		err := tx.Run(ctx)
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0):
			return nil // deleted by its owner meanwhile: nothing to revert
		case txConflict(err) && attempt < submitAttempts:
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		default:
			return s.fail(fmt.Sprintf("revert the edit of response %d", old.ID), err)
		}
	}
}

// surveyOpen reads (strongly consistent) whether survey sid is open at
// at: see surveyOpenAt.
func (s *Store) surveyOpen(ctx context.Context, sid int64, at time.Time) (bool, error) {
	open, _, err := s.surveyOpenAt(ctx, survey.Response{SurveyID: sid, SubmittedAt: at})
	return open, err
}

// moveReport is the update of a response's report shard that moves its
// counts from the old answers' attributes to the new ones (weights
// included: ReportAttr); nil when nothing moves. Only for responses
// counted before the tally: the tally moves the others' counts from the
// stream.
func (s *Store) moveReport(sid int64, old responseItem, next []string) *dynamo.Update {
	delta := map[string]int64{}
	for sign, attrs := range map[int64][]string{-1: old.ReportAttrs, 1: next} {
		for _, a := range attrs {
			if name, w, ok := ReportAttr(a); ok {
				delta[name] += sign * w
			}
		}
	}
	agg := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(old.Shard))
	moved := false
	for name, n := range delta {
		if n != 0 {
			agg.Add(name, n)
			moved = true
		}
	}
	if !moved {
		return nil
	}
	return agg
}
