package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// EditResponse replaces a response's answers and variables in one
// transaction: the response (conditional on it being as read: its
// edited_at unchanged, so racing edits do not lose counts), the report's
// shard moved from the old answers' attributes to the new ones (the count
// n unchanged), and the survey checked open. It answers the response as
// it now is. A closed, stopped or trashed survey answers
// survey.ErrSurveyClosed; a gone response ENOTFOUND; an edit that lost to
// a racing one is retried on the new state.
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
	for attempt := 1; ; attempt++ {
		old, counted, err := s.editedResponse(ctx, e.SurveyID, e.ResponseID)
		if err != nil {
			return survey.Response{}, err
		}
		now := s.Now().UTC().Truncate(time.Microsecond)
		edited := now.Format(survey.TimestampLayout)
		upd := s.table.Update(AttrPK, old.PK).Range(AttrSK, ResponseSK(e.ResponseID)).
			Set("answers", string(answers)).Set("edited_at", edited)
		if variables != nil {
			upd.Set("variables", string(variables))
		}
		if len(e.ReportAttrs) > 0 {
			upd.SetSet("agg", e.ReportAttrs)
		} else {
			upd.Remove("agg")
		}
		if old.Edited == "" {
			upd.If("attribute_exists(PK) AND attribute_not_exists(edited_at)")
		} else {
			upd.If("edited_at = ?", old.Edited)
		}
		tx := s.db.WriteTx().Update(upd).
			Check(s.table.Check(AttrPK, SurveyPK(e.SurveyID)).Range(AttrSK, SurveySK).If(surveyOpenCondition, false, false, false, survey.Today(now)))
		if agg := s.moveReport(e.SurveyID, old, e.ReportAttrs); counted && agg != nil {
			tx.Update(agg)
		}
		err = tx.Run(ctx)
		switch {
		case err == nil:
			old.Answers, old.Edited, old.ReportAttrs = string(answers), edited, e.ReportAttrs
			if variables != nil {
				old.Variables = string(variables)
			}
			return old.response()
		case txFailedAt(err, 1):
			return survey.Response{}, survey.ErrSurveyClosed
		case (txFailedAt(err, 0) || txConflict(err)) && attempt < submitAttempts:
			if err := backoff(ctx, attempt); err != nil {
				return survey.Response{}, err
			}
		default:
			return survey.Response{}, s.fail(fmt.Sprintf("edit response %d", e.ResponseID), err)
		}
	}
}

// moveReport is the update of the response's report shard that takes one
// from the attributes only the old answers had and adds one to those only
// the new ones have (an attribute may be named once an update); nil when
// nothing moves.
func (s *Store) moveReport(sid int64, old responseItem, next []string) *dynamo.Update {
	agg := s.table.Update(AttrPK, AggPK(sid)).Range(AttrSK, AggSK(old.Shard))
	moved := false
	for _, a := range old.ReportAttrs {
		if !slices.Contains(next, a) {
			agg.Add(a, -1)
			moved = true
		}
	}
	for _, a := range next {
		if !slices.Contains(old.ReportAttrs, a) {
			agg.Add(a, 1)
			moved = true
		}
	}
	if !moved {
		return nil
	}
	return agg
}

// surveyOpenCondition is the survey item's condition in an edit: it
// exists, is neither trashed nor stopped nor closed, and its expiration
// date (if any) is after today (deleted, is_stopped, closed, today).
const surveyOpenCondition = "attribute_exists(PK) AND deleted = ? AND is_stopped = ? AND (attribute_not_exists(closed) OR closed = ?) AND (attribute_not_exists(expiration_date) OR expiration_date > ?)"
