package responses

import (
	"context"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// resultsTable is the real service's results-table answer, as its clients
// read it (contract section 21): header objects, each response's cells in
// the headers' order, and the survey's number of responses.
type resultsTable struct {
	Header                   []resultsColumn `json:"header"`
	Body                     []resultsRow    `json:"body"`
	RespondersCount          int64           `json:"responders_count"`
	InvisibleRespondersCount int64           `json:"invisible_responders_count"`
}

// resultsRow is one response; Data holds a cell per meta column, per
// single-answer question and per choice of a multi-select question.
type resultsRow struct {
	ResponderID   int64   `json:"responder_id"`
	ResponderCode *string `json:"responder_code"`
	Data          []any   `json:"data"`
}

var (
	errInvalidPage  = api.ErrInvalidPage
	errPageTooLarge = survey.FieldError("page_size", "This page is too large to send at once; ask for a smaller page_size.")
)

// tableQuery is a results-table request's parameters.
type tableQuery struct {
	store.ResponseQuery
	page int
	// partial reads partial responses (?status=partial, contract section 20).
	partial bool
}

func readTableQuery(r *http.Request) (tableQuery, error) {
	q := r.URL.Query()
	page, err := api.PageNumber(q)
	if err != nil {
		return tableQuery{}, err
	}
	tq := tableQuery{page: page}
	errs := survey.Fields{}
	tq.Limit = pageSizeParam(q, errs, defaultPageSize, maxPageSize)
	tq.After, tq.Before = storeBounds(timeParam(q, errs, "since"), timeParam(q, errs, "until"))
	tq.Spam = spamParam(q, errs)
	tq.partial = statusParam(q, errs)
	if vals, ok := q["sort"]; ok {
		asc, err := parseSort(vals[0])
		if err != "" {
			errs.Add("sort", err)
		}
		tq.Ascending = asc
	}
	if err := errs.Err(); err != nil {
		return tq, err
	}
	if _, ok := survey.PageOffset(tq.page, tq.Limit); !ok {
		// Past the end of any survey's responses, and of int's range
		// where the page is multiplied: nothing to read.
		return tableQuery{}, errInvalidPage
	}
	return tq, nil
}

// resultsTable answers a page (page-number pagination) of the survey's
// responses in the real service's shape. Its survey collection (whose it
// is, the columns, the count) and the page are read at once. A page past
// the first that holds nothing answers 404 "Invalid page.".
func (h handlers) resultsTable() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		tq, err := readTableQuery(r)
		if err != nil {
			return err
		}
		if tq.partial {
			return h.partialResultsTable(w, r, acct.ID, sid, tq)
		}
		ctx := r.Context()
		coll, rows, err := surveyAndPage(
			func() (store.SurveyCollection, error) { return h.st.SurveyCollection(ctx, acct.ID, sid) },
			func() ([]survey.Response, error) { return h.tablePage(ctx, sid, tq) })
		if err != nil {
			return err
		}
		if coll, _, err = collectionIn(r.URL.Query(), coll); err != nil {
			return err
		}
		if len(rows) == 0 && tq.page > 1 {
			return errInvalidPage
		}
		t := newResultsLayout(coll, false)
		out := resultsTable{Header: t.header, Body: make([]resultsRow, 0, len(rows)), RespondersCount: countOf(coll.Survey, tq.Spam)}
		budget := newBudget(pageBudget)
		for _, resp := range rows {
			row := resultsRow{ResponderID: resp.ID, Data: t.row(resp)}
			if resp.Code != "" {
				code := resp.Code
				row.ResponderCode = &code
			}
			if err := out.add(budget, row); err != nil {
				return err
			}
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// tablePage reads the responses of page tq.page: it starts where the
// container remembers the page (or an earlier one) starting, passes over
// the rest of the pages before it keys only, then reads the page, in as
// many Queries as its items' megabytes. Where the next page starts is
// remembered.
func (h handlers) tablePage(ctx context.Context, sid int64, tq tableQuery) ([]survey.Response, error) {
	key := pageKey{sid: sid, ascending: tq.Ascending, size: tq.Limit, page: tq.page}
	if !tq.After.IsZero() {
		key.after = tq.After.UnixMicro()
	}
	if !tq.Before.IsZero() {
		key.before = tq.Before.UnixMicro()
	}
	q := tq.ResponseQuery
	known, start := h.pages.nearest(key)
	q.From = start
	if known < tq.page {
		pos, _, err := h.st.SkipResponses(ctx, sid, q, (tq.page-known)*tq.Limit)
		if err != nil || pos == nil {
			return nil, err
		}
		q.From = pos
		h.pages.remember(key, *pos)
	}
	var rows []survey.Response
	for len(rows) < tq.Limit {
		q.Limit = tq.Limit - len(rows)
		page, err := h.st.ResponsesPage(ctx, sid, q)
		if err != nil {
			return nil, err
		}
		rows = append(rows, page.Responses...)
		if !page.More || len(page.Responses) == 0 {
			break
		}
		q.From = page.Last()
	}
	if len(rows) == tq.Limit {
		last := rows[len(rows)-1]
		next := key
		next.page++
		h.pages.remember(next, store.ResponsePosition{SubmittedAt: last.SubmittedAt, ID: last.ID})
	}
	return rows, nil
}

// add appends row to the table's page, within the page's byte budget:
// page numbers fix a page's rows, so a page over it cannot end early and
// answers errPageTooLarge.
func (t *resultsTable) add(b *budget, row resultsRow) error {
	t.Body = append(t.Body, row)
	item, err := encodeJSON(row)
	if err != nil {
		return err
	}
	if !b.take(item) {
		return errPageTooLarge
	}
	return nil
}
