package responses

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// listPage is the JSON list's answer: DRF's cursor pagination without
// "previous", with count as the survey's submitted_responses.
type listPage struct {
	Count   int64             `json:"count"`
	Next    *string           `json:"next"`
	Results []json.RawMessage `json:"results"`
}

// listQuery is a list request's parameters, read and checked.
type listQuery struct {
	store.ResponseQuery
	csv bool
	// partial lists partial responses (?status=partial, contract section 20).
	partial bool
}

// readListQuery reads page_size, submitted_after, submitted_before and the
// cursor; every bad parameter is reported at once (400), the cursor's
// after the others (opening it may touch the key store).
func (h handlers) readListQuery(ctx context.Context, r *http.Request, sid int64) (listQuery, error) {
	q := r.URL.Query()
	lq := listQuery{csv: api.RequestedFormat(r) == csvFormat.Name}
	max := maxPageSize
	if lq.csv {
		max = maxCSVPageSize
	}
	errs := survey.Fields{}
	lq.Limit = pageSizeParam(q, errs, defaultPageSize, max)
	lq.After = timeParam(q, errs, "submitted_after")
	lq.Before = timeParam(q, errs, "submitted_before")
	lq.Spam = spamParam(q, errs)
	lq.partial = statusParam(q, errs)
	if err := errs.Err(); err != nil {
		return listQuery{}, err
	}
	if vals, ok := q["cursor"]; ok && !lq.partial {
		pos, err := h.openCursor(ctx, sid, vals[0])
		if err != nil {
			return listQuery{}, err
		}
		lq.From = &pos
	}
	return lq, nil
}

// nextURL is the request's own address with the cursor after last, the
// other parameters kept.
func (h handlers) nextURL(ctx context.Context, r *http.Request, sid int64, last store.ResponsePosition) (string, error) {
	cursor, err := h.sealCursor(ctx, sid, last)
	if err != nil {
		return "", err
	}
	q := r.URL.Query()
	q.Set("cursor", cursor)
	return api.AbsoluteURL(r, q), nil
}

// list answers a page of the survey's responses, newest first: JSON
// (one Query of the page and one read of the survey, made at once), or a
// CSV page with ?format=csv.
func (h handlers) list() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		ctx := r.Context()
		lq, err := h.readListQuery(ctx, r, sid)
		if err != nil {
			return err
		}
		if lq.partial {
			return h.partialList(w, r, acct.ID, sid, lq)
		}
		if lq.csv {
			return h.csvPage(w, r, acct.ID, sid, lq)
		}
		sv, page, err := surveyAndPage(
			func() (survey.Survey, error) { return h.listSurvey(ctx, r, acct.ID, sid) },
			func() (store.ResponsePage, error) { return h.st.ResponsesPage(ctx, sid, lq.ResponseQuery) })
		if err != nil {
			return err
		}
		out := listPage{Count: countOf(sv, lq.Spam), Results: make([]json.RawMessage, 0, len(page.Responses))}
		budget := newBudget(pageBudget)
		for i, resp := range page.Responses {
			v, err := h.view(ctx, sid, resp)
			if err != nil {
				return err
			}
			item, err := encodeJSON(v)
			if err != nil {
				return err
			}
			if !budget.take(item) && i > 0 {
				// The answer would pass what Lambda can return: the page
				// ends here, and the next one starts at this response.
				page.Responses, page.More = page.Responses[:i], true
				break
			}
			out.Results = append(out.Results, item)
		}
		if page.More {
			next, err := h.nextURL(ctx, r, sid, *page.Last())
			if err != nil {
				return err
			}
			out.Next = &next
		}
		api.Respond(w, r, http.StatusOK, out)
		return nil
	})
}

// listSurvey reads the survey of a JSON list: its item, or with ?lang=
// its collection, whose languages the parameter is checked against (a
// response's answers are ids: nothing in it reads differently).
func (h handlers) listSurvey(ctx context.Context, r *http.Request, aid, sid int64) (survey.Survey, error) {
	q := r.URL.Query()
	if !hasLang(q) {
		return h.st.Survey(ctx, aid, sid)
	}
	c, err := h.st.SurveyCollection(ctx, aid, sid)
	if err != nil {
		return survey.Survey{}, err
	}
	if _, err := langParam(q, c); err != nil {
		return survey.Survey{}, err
	}
	return c.Survey, nil
}

// spamParam reads ?spam= (contract section 16): true or false (DRF's
// boolean spellings), nil when absent.
func spamParam(q url.Values, errs survey.Fields) *bool {
	vals, ok := q["spam"]
	if !ok {
		return nil
	}
	var v bool
	switch strings.ToLower(vals[0]) {
	case "true", "1":
		v = true
	case "false", "0":
	default:
		errs["spam"] = []string{"Must be a valid boolean."}
		return nil
	}
	return &v
}

// countOf is the list's count under the spam filter: the survey's counts,
// exact.
func countOf(sv survey.Survey, spam *bool) int64 {
	switch {
	case spam == nil:
		return sv.SubmittedResponses
	case *spam:
		return sv.SpamResponses
	}
	return sv.SubmittedResponses - sv.SpamResponses
}
