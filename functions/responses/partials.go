package responses

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Partial responses in the owner's list (contract section 20):
// `?status=partial` lists them, newest change first, as JSON, CSV and the
// results table; `submitted_after` and `submitted_before` (`since` and
// `until`) bound their last change. One Query of each GSI1 shard a page
// (store.PartialsPage).

// statusParam reads ?status=: submitted (the default) or partial.
func statusParam(q url.Values, errs survey.Fields) (partial bool) {
	vals, ok := q["status"]
	if !ok {
		return false
	}
	switch vals[0] {
	case "submitted":
		return false
	case "partial":
		return true
	}
	errs.Add("status", fmt.Sprintf("%q is not a valid choice.", vals[0]))
	return false
}

// partialCursorPurpose seals a partials page's cursor: the last partial's
// index key (store.PartialsSK), so a responses cursor never opens here.
const partialCursorPurpose links.Purpose = "survey-partials-cursor/v1/survey:"

// openPartialCursor reads a partials cursor of the survey.
func (h handlers) openPartialCursor(ctx context.Context, sid int64, token string) (string, error) {
	plain, err := h.sealer.OpenFor(ctx, partialCursorPurpose, sid, token)
	if errors.Is(err, links.ErrInvalid) {
		return "", errInvalidCursor
	}
	if err != nil {
		return "", err
	}
	s := string(plain)
	ts, id, ok := cutLast(s, '#')
	if _, err := time.Parse(survey.TimestampLayout, ts); err != nil || !ok || len(id) != 20 {
		return "", errInvalidCursor
	}
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", errInvalidCursor
	}
	return s, nil
}

func cutLast(s string, sep byte) (before, after string, ok bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// partialNextURL is the request's own address with the cursor after the
// partial of key next.
func (h handlers) partialNextURL(ctx context.Context, r *http.Request, sid int64, next string) (string, error) {
	cursor, err := h.sealer.SealFor(ctx, partialCursorPurpose, sid, []byte(next))
	if err != nil {
		return "", err
	}
	q := r.URL.Query()
	q.Set("cursor", cursor)
	return api.AbsoluteURL(r, q), nil
}

// partialQuery is the store's query of a list request with ?status=partial.
func (h handlers) partialQuery(ctx context.Context, r *http.Request, sid int64, lq listQuery) (store.PartialQuery, error) {
	pq := store.PartialQuery{After: lq.After, Before: lq.Before, Limit: lq.Limit}
	if vals, ok := r.URL.Query()["cursor"]; ok {
		c, err := h.openPartialCursor(ctx, sid, vals[0])
		if err != nil {
			return store.PartialQuery{}, err
		}
		pq.Cursor = c
	}
	return pq, nil
}

// partialView is a partial as the owner sees it, its files with download
// links.
func (h handlers) partialView(ctx context.Context, sid int64, p store.Partial) (survey.PartialView, error) {
	v := p.View()
	if h.uploads == nil {
		return v, nil
	}
	rv, err := h.view(ctx, sid, survey.Response{ID: p.ID, Answers: p.Answers})
	if err != nil {
		return v, err
	}
	v.Answers = rv.Answers
	return v, nil
}

// partialList answers a page of the survey's partials: JSON, or CSV with
// ?format=csv. count is the survey's partial_responses_count.
func (h handlers) partialList(w http.ResponseWriter, r *http.Request, aid, sid int64, lq listQuery) error {
	ctx := r.Context()
	pq, err := h.partialQuery(ctx, r, sid, lq)
	if err != nil {
		return err
	}
	coll, page, err := surveyAndPage(
		func() (store.SurveyCollection, error) { return h.st.SurveyCollection(ctx, aid, sid) },
		func() (store.PartialPage, error) { return h.st.PartialsPage(ctx, sid, pq) })
	if err != nil {
		return err
	}
	if coll, _, err = collectionIn(r.URL.Query(), coll); err != nil {
		return err
	}
	var next *string
	if page.Next != "" {
		u, err := h.partialNextURL(ctx, r, sid, page.Next)
		if err != nil {
			return err
		}
		next = &u
	}
	if lq.csv {
		t := newPartialTable(coll)
		cw := newCSVWriter()
		body := append([]byte(bom), cw.encode(t.header)...)
		var cells []string
		for _, p := range page.Partials {
			cells = t.partialRow(p, cells)
			body = append(body, cw.encode(cells)...)
		}
		if next != nil {
			w.Header().Set("Link", "<"+*next+`>; rel="next"`)
		}
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="survey-%d-partial-responses.csv"`, sid))
		api.RespondBody(w, r, http.StatusOK, csvContentType, body)
		return nil
	}
	out := struct {
		Count   int64                `json:"count"`
		Next    *string              `json:"next"`
		Results []survey.PartialView `json:"results"`
	}{Count: coll.Survey.PartialResponses, Next: next, Results: make([]survey.PartialView, 0, len(page.Partials))}
	for _, p := range page.Partials {
		v, err := h.partialView(ctx, sid, p)
		if err != nil {
			return err
		}
		out.Results = append(out.Results, v)
	}
	api.Respond(w, r, http.StatusOK, out)
	return nil
}

// partialColumns come first in a partial's row: updated_at where a
// response's submitted_at is, and last_page where its spam is (a partial
// is never spam).
var partialColumns = []string{"id", "updated_at", "duration_seconds", "last_page"}

// newPartialTable is the survey's table of partials: partialColumns, then
// the elements and variables as a response's.
func newPartialTable(c store.SurveyCollection) table {
	c.Settings.ShowAnswerSheetEnabled = false // a partial has no score
	t := tableOf(c, false)
	t.header = append(append([]string(nil), partialColumns...), t.header[len(fixedColumns):]...)
	return t
}

// partialRow renders a partial's cells into dst.
func (t table) partialRow(p store.Partial, dst []string) []string {
	v := p.View()
	dst = t.row(survey.Response{ID: p.ID, StartedAt: p.StartedAt, SubmittedAt: p.UpdatedAt, Answers: p.Answers, Variables: p.Variables}, dst)
	dst[1], dst[3] = v.UpdatedAt, strconv.Itoa(p.LastPage)
	return dst
}

// partialResultsTable answers a page (page numbers) of the survey's
// partials in the results table's shape: updated_date_time where the
// submission time is, and a last_page column after it. The page is read
// with the pages before it in one Query (the partials index has no
// offset); responders_count is the survey's partial_responses_count.
func (h handlers) partialResultsTable(w http.ResponseWriter, r *http.Request, aid, sid int64, tq tableQuery) error {
	ctx := r.Context()
	skip, _ := survey.PageOffset(tq.page, tq.Limit) // readTableQuery refused a page without one
	// DynamoDB's Limit is an int32: a page beyond it reads every partial
	// and, finding none on it, answers 404.
	pq := store.PartialQuery{After: tq.After, Before: tq.Before, Limit: int(min(skip+int64(tq.Limit), math.MaxInt32-2))}
	coll, page, err := surveyAndPage(
		func() (store.SurveyCollection, error) { return h.st.SurveyCollection(ctx, aid, sid) },
		func() (store.PartialPage, error) { return h.st.PartialsPage(ctx, sid, pq) })
	if err != nil {
		return err
	}
	if coll, _, err = collectionIn(r.URL.Query(), coll); err != nil {
		return err
	}
	rows := page.Partials
	if skip < int64(len(rows)) {
		rows = rows[skip:]
	} else {
		rows = nil
	}
	if len(rows) == 0 && tq.page > 1 {
		return errInvalidPage
	}
	t := newResultsLayout(coll, true)
	t.header[len(t.header)-1] = metaColumn("updated_date_time", colSubmittedAt, "datetime")
	t.header = append(t.header, metaColumn("last_page", colLastPage, "number"))
	out := resultsTable{Header: t.header, Body: make([]resultsRow, 0, len(rows)), RespondersCount: coll.Survey.PartialResponses}
	budget := newBudget(pageBudget)
	for _, p := range rows {
		cells := t.row(survey.Response{ID: p.ID, StartedAt: p.StartedAt, SubmittedAt: p.UpdatedAt, Answers: p.Answers, Variables: p.Variables})
		if err := out.add(budget, resultsRow{ResponderID: p.ID, Data: append(cells, p.LastPage)}); err != nil {
			return err
		}
	}
	api.Respond(w, r, http.StatusOK, out)
	return nil
}
