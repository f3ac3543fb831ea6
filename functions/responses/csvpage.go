package responses

import (
	"fmt"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
)

// csvContentType is what every CSV answer and export file is.
const csvContentType = "text/csv; charset=utf-8"

// csvPage answers a page of the list as CSV: the BOM, the header, then up
// to page_size rows, newest first. The survey's collection (whose it is,
// its columns) and the first Query of the page go at once; a page larger
// than one Query's 1 MB takes more Queries, and a page that would pass
// Lambda's response limit ends early. The next page is in the Link header.
func (h handlers) csvPage(w http.ResponseWriter, r *http.Request, aid, sid int64, lq listQuery) error {
	ctx := r.Context()
	coll, page, err := surveyAndPage(
		func() (store.SurveyCollection, error) { return h.st.SurveyCollection(ctx, aid, sid) },
		func() (store.ResponsePage, error) { return h.st.ResponsesPage(ctx, sid, lq.ResponseQuery) })
	if err != nil {
		return err
	}
	if coll, _, err = collectionIn(r.URL.Query(), coll); err != nil {
		return err
	}
	t := newTable(coll)
	cw := newCSVWriter()
	body := append([]byte(bom), cw.encode(t.header)...)
	budget := newBudget(pageBudget - escapedSize(body))
	var cells []string
	var last *store.ResponsePosition
	rows, more := 0, false
fill:
	for {
		for _, resp := range page.Responses {
			cells = t.row(resp, cells)
			line := cw.encode(cells)
			if !budget.take(line) && rows > 0 {
				more = true
				break fill
			}
			body = append(body, line...)
			rows++
			last = &store.ResponsePosition{SubmittedAt: resp.SubmittedAt, ID: resp.ID}
		}
		more = page.More
		if !page.More || rows >= lq.Limit || len(page.Responses) == 0 {
			break
		}
		q := lq.ResponseQuery
		q.From, q.Limit = last, lq.Limit-rows
		if page, err = h.st.ResponsesPage(ctx, sid, q); err != nil {
			return err
		}
	}
	if more && last != nil {
		next, err := h.nextURL(ctx, r, sid, *last)
		if err != nil {
			return err
		}
		w.Header().Set("Link", "<"+next+`>; rel="next"`)
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="survey-%d-responses.csv"`, sid))
	api.RespondBody(w, r, http.StatusOK, csvContentType, body)
	return nil
}
