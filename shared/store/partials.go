package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// A partial response (contract section 20) lives on its session's own
// item, RESPONSES#<sid>[#k] / SESSION#<session hash> (claims.go), the
// item the session's response later claims: no responder's partial
// shares an item with another's, and the submission's Put of the claim
// replaces the partial in the submission's transaction. The item carries
// GSI1PK PARTIALS#<sid> and GSI1SK <updated_at>#<id>, so that the owner
// lists a survey's partials, newest first, with one Query of GSI1.
//
// A survey's partials share one GSI1 partition: each page turn writes
// about 1 KB there, so one survey takes some 1,000 page turns a second
// before that partition throttles (its submissions, sharded, take more).

// PartialTTL is how long a partial is kept after its last change.
const PartialTTL = 30 * 24 * time.Hour

// PartialNotifyEvery is how often at most a session's partial is sent to
// the response.partial webhooks.
const PartialNotifyEvery = time.Minute

// AttrPartialID is the attribute that marks a session's item as holding a
// partial: the partial's id (of the responses' id space).
const AttrPartialID = "partial_id"

// AttrPartialCount is the survey item's count of partials, added by the
// tally from the stream (tally.go): the detail's partial_responses_count.
const AttrPartialCount = "partial_responses_count"

// PartialsKey is GSI1PK of a survey's partials.
func PartialsKey(sid int64) string { return "PARTIALS#" + pad(sid) }

// PartialsSK is GSI1SK of a partial: its last change and its id.
func PartialsSK(updated time.Time, id int64) string {
	return updated.UTC().Format(survey.TimestampLayout) + "#" + pad(id)
}

// Partial is a session's unfinished response as the owner sees it.
type Partial struct {
	ID        int64
	SurveyID  int64
	Answers   map[int64]json.RawMessage
	Variables map[string]any
	LastPage  int
	StartedAt time.Time
	UpdatedAt time.Time
	// Notified is when the partial was last sent to webhooks.
	Notified time.Time
}

// PartialWrite is one PUT of a partial: the session's hash (as a
// Submission's Session) and what it saves.
type PartialWrite struct {
	SurveyID  int64
	Session   string
	Answers   map[int64]json.RawMessage
	Variables map[string]any
	Page      int
	StartedAt time.Time
}

// partialItem is the session's item holding a partial.
type partialItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	GSI1PK     string `dynamo:"GSI1PK,omitempty"`
	GSI1SK     string `dynamo:"GSI1SK,omitempty"`
	ID         int64  `dynamo:"partial_id"`
	SurveyID   int64  `dynamo:"survey_id"`
	Answers    string `dynamo:"answers"`
	Variables  string `dynamo:"variables"`
	LastPage   int    `dynamo:"last_page"`
	Started    string `dynamo:"started_at"`
	Updated    string `dynamo:"updated_at"`
	Notified   string `dynamo:"notified_at"`
	ExpiresAt  int64  `dynamo:"expires_at"`
	ResponseID int64  `dynamo:"response_id,omitempty"`
	// Notify marks the write that is the session's first in
	// PartialNotifyEvery: the stream's response.partial (functions/dispatch).
	Notify bool `dynamo:"notify,omitempty"`
}

func (it partialItem) partial() (Partial, error) {
	p := Partial{ID: it.ID, SurveyID: it.SurveyID, LastPage: it.LastPage}
	var err error
	if p.StartedAt, err = time.Parse(survey.TimestampLayout, it.Started); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: started_at: %w", it.ID, err)
	}
	if p.UpdatedAt, err = time.Parse(survey.TimestampLayout, it.Updated); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: updated_at: %w", it.ID, err)
	}
	if it.Notified != "" {
		if p.Notified, err = time.Parse(survey.TimestampLayout, it.Notified); err != nil {
			return Partial{}, fmt.Errorf("store: partial %d: notified_at: %w", it.ID, err)
		}
	}
	if err := json.Unmarshal([]byte(it.Answers), &p.Answers); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: answers: %w", it.ID, err)
	}
	if err := json.Unmarshal([]byte(it.Variables), &p.Variables); err != nil {
		return Partial{}, fmt.Errorf("store: partial %d: variables: %w", it.ID, err)
	}
	return p, nil
}

// sessionItem reads a session's item, strongly consistent: found false
// when the session has neither a partial nor a response.
func (s *Store) sessionItem(ctx context.Context, sid int64, session string) (it partialItem, found bool, err error) {
	err = s.table.Get(AttrPK, SessionPK(sid, session)).Range(AttrSK, dynamo.Equal, SessionSK(session)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return partialItem{}, false, nil
	}
	if err != nil {
		return partialItem{}, false, s.fail(fmt.Sprintf("read a session of survey %d", sid), err)
	}
	return it, true, nil
}

// SavePartial writes a session's partial, replacing the one before: one
// strongly consistent GetItem of the session's item and one conditional
// PutItem of it (the item is the session's own, so only the session's
// own requests race on it). notify reports whether this write is the
// session's first in PartialNotifyEvery, which the response.partial
// webhooks are sent for: the gate is the item's notified_at, so it needs
// no item shared with other sessions. A session whose response is
// recorded answers survey.ErrSessionResponded (409) and writes nothing.
func (s *Store) SavePartial(ctx context.Context, w PartialWrite) (p Partial, notify bool, err error) {
	answers, err := json.Marshal(w.Answers)
	if err != nil {
		return Partial{}, false, fmt.Errorf("store: encode a partial's answers: %w", err)
	}
	vars := w.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	variables, err := json.Marshal(vars)
	if err != nil {
		return Partial{}, false, fmt.Errorf("store: encode a partial's variables: %w", err)
	}
	if len(answers)+len(variables) > survey.MaxResponseBytes {
		return Partial{}, false, survey.ErrResponseTooLarge
	}
	sid := w.SurveyID
	started := time.Now()
	for attempt := 1; ; attempt++ {
		old, found, err := s.sessionItem(ctx, sid, w.Session)
		if err != nil {
			return Partial{}, false, err
		}
		if old.ResponseID != 0 {
			return Partial{}, false, survey.ErrSessionResponded
		}
		now := s.Now().UTC().Truncate(time.Microsecond)
		id := old.ID
		if id == 0 {
			if id, err = s.NewID(ctx, KindResponse); err != nil {
				return Partial{}, false, err
			}
		}
		notified := old.Notified
		notify = true
		if t, err := time.Parse(survey.TimestampLayout, old.Notified); err == nil && now.Sub(t) < PartialNotifyEvery {
			notify = false
		}
		if notify {
			notified = now.Format(survey.TimestampLayout)
		}
		it := partialItem{
			PK: SessionPK(sid, w.Session), SK: SessionSK(w.Session),
			GSI1PK: PartialsKey(sid), GSI1SK: PartialsSK(now, id),
			ID: id, SurveyID: sid, Answers: string(answers), Variables: string(variables), LastPage: w.Page,
			Started: w.StartedAt.UTC().Format(survey.TimestampLayout), Updated: now.Format(survey.TimestampLayout),
			Notified: notified, ExpiresAt: now.Add(PartialTTL).Unix(), Notify: notify,
		}
		put := s.table.Put(it)
		if found {
			put.If("attribute_not_exists(response_id) AND updated_at = ?", old.Updated)
		} else {
			put.If("attribute_not_exists(PK)")
		}
		err = put.Run(ctx)
		if err == nil {
			p, err := it.partial()
			return p, notify, err
		}
		var tce *types.TransactionConflictException
		held := errors.As(err, &tce) // the session's submission holds the item in its transaction
		if !dynamo.IsCondCheckFailed(err) && !txConflict(err) && !held {
			return Partial{}, false, s.fail(fmt.Sprintf("save a partial of survey %d", sid), err)
		}
		// The session's own concurrent request (a partial, or its
		// submission) wrote first, or holds the item while its transaction
		// commits: read what it wrote and decide again (a recorded response
		// answers 409, never 503: contract section 3, amended), until the
		// request's deadline. A fixed number of tries answered 500 to 6
		// partials of one session saved at once while it submitted
		// (TestPartialRacesItsSubmission): each may lose to its siblings
		// more often than that, and they can all succeed.
		if !ownerAgain(ctx, attempt, started) {
			return Partial{}, false, &wrapped{op: fmt.Sprintf("save a partial of survey %d", sid), err: err, public: errBusy}
		}
	}
}

// SessionPartial reads a session's partial: found false when it has none
// (or it expired, which reads hide at once), survey.ErrSessionResponded
// when the session's response is recorded. One strongly consistent GetItem.
func (s *Store) SessionPartial(ctx context.Context, sid int64, session string) (p Partial, found bool, err error) {
	it, found, err := s.sessionItem(ctx, sid, session)
	switch {
	case err != nil:
		return Partial{}, false, err
	case it.ResponseID != 0:
		return Partial{}, false, survey.ErrSessionResponded
	case !found || it.ID == 0 || it.ExpiresAt <= s.Now().Unix():
		return Partial{}, false, nil
	}
	p, err = it.partial()
	return p, err == nil, err
}

// PartialQuery is a page of a survey's partials: newest change first,
// changed after After and before Before (zero: unbounded), after the
// partial named by Cursor (its GSI1SK; "" for the first page).
type PartialQuery struct {
	After, Before time.Time
	Cursor        string
	Limit         int
}

// PartialPage is a page of partials and the cursor of the next ("" at the
// end).
type PartialPage struct {
	Partials []Partial
	Next     string
}

// PartialsPage reads a page of a survey's partials: one Query of GSI1
// (PARTIALS#<sid>, newest first), partials past their 30 days filtered out
// at once (the TTL deletes them later).
func (s *Store) PartialsPage(ctx context.Context, sid int64, q PartialQuery) (PartialPage, error) {
	qr := s.table.Get(AttrGSI1PK, PartialsKey(sid)).Index(IndexGSI1).Order(dynamo.Descending).
		Filter("expires_at > ?", s.Now().Unix())
	low, high := "0", "\xff" // timestamps start with a digit
	if !q.After.IsZero() {
		low = q.After.UTC().Format(survey.TimestampLayout) + "#\xff"
	}
	if !q.Before.IsZero() {
		high = q.Before.UTC().Format(survey.TimestampLayout) + "#"
	}
	if q.Cursor != "" && q.Cursor < high {
		high = q.Cursor
	}
	if low >= high {
		return PartialPage{}, nil
	}
	qr.Range(AttrGSI1SK, dynamo.Between, low, high)
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	var items []partialItem
	if err := qr.Limit(limit+2).All(ctx, &items); err != nil {
		return PartialPage{}, s.fail(fmt.Sprintf("query partials of survey %d", sid), err)
	}
	if len(items) > 0 && items[0].GSI1SK == high {
		items = items[1:] // Between is inclusive: the cursor's own partial
	}
	var page PartialPage
	if len(items) > limit {
		items, page.Next = items[:limit], items[limit-1].GSI1SK
	}
	for _, it := range items {
		p, err := it.partial()
		if err != nil {
			return PartialPage{}, err
		}
		page.Partials = append(page.Partials, p)
	}
	return page, nil
}

// View is the partial as its owner sees it (contract section 20): the
// answers as a response's, no submitted_at, code, spam, responder or
// location; its duration runs to its last change.
func (p Partial) View() survey.PartialView {
	v := survey.Response{ID: p.ID, SurveyID: p.SurveyID, StartedAt: p.StartedAt, SubmittedAt: p.UpdatedAt, Answers: p.Answers, Variables: p.Variables}.View()
	return survey.PartialView{
		ID: p.ID, Answers: v.Answers, Variables: v.Variables, LastPage: p.LastPage,
		StartedAt: v.StartedAt, UpdatedAt: v.SubmittedAt, DurationSeconds: v.DurationSeconds,
	}
}
