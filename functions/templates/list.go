package templates

import (
	"net/http"
	"slices"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// List paging, as the contract fixes it.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// listQuery is a validated list request.
type listQuery struct {
	page, pageSize           int
	category, language, kind *int
	terms                    []string
}

// parseListQuery reads page, page_size and the filters. A value that is not
// an integer answers 400 on its parameter; page_size is clamped to 100.
func parseListQuery(r *http.Request) (listQuery, error) {
	q := r.URL.Query()
	lq := listQuery{page: 1, pageSize: defaultPageSize}
	errs := survey.Fields{}
	intParam := func(name string) *int {
		vals, ok := q[name]
		if !ok {
			return nil
		}
		n, ok := api.ParseInt(strings.TrimSpace(vals[0]))
		if !ok {
			errs.Add(name, "A valid integer is required.")
			return nil
		}
		return &n
	}
	if p := intParam("page"); p != nil {
		lq.page = *p
	}
	if ps := intParam("page_size"); ps != nil {
		switch {
		case *ps < 1:
			errs.Add("page_size", "Ensure this value is greater than or equal to 1.")
		case *ps > maxPageSize:
			lq.pageSize = maxPageSize
		default:
			lq.pageSize = *ps
		}
	}
	lq.category = intParam("category")
	lq.language = intParam("language")
	lq.kind = intParam("type")
	lq.terms = strings.FieldsFunc(strings.ToLower(q.Get("search")), func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	if err := errs.Err(); err != nil {
		return listQuery{}, err
	}
	return lq, nil
}

func (lq listQuery) matches(t survey.Template) bool {
	if lq.category != nil && !slices.Contains(t.Categories, int64(*lq.category)) {
		return false
	}
	if lq.language != nil && t.Language != int64(*lq.language) {
		return false
	}
	if lq.kind != nil && t.Type != int64(*lq.kind) {
		return false
	}
	if len(lq.terms) > 0 {
		title := strings.ToLower(t.Title)
		for _, term := range lq.terms {
			if !strings.Contains(title, term) {
				return false
			}
		}
	}
	return true
}

// handleList answers a page of the catalog, ordered by score descending then
// id, from one Query of the catalog index. A page past the end is 404
// "Invalid page." (page 1 of an empty result is an empty page).
func handleList(d Deps) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		lq, err := parseListQuery(r)
		if err != nil {
			return err
		}
		if lq.page < 1 {
			return api.ErrInvalidPage
		}
		all, err := d.Catalog.Catalog(r.Context())
		if err != nil {
			return err
		}
		matched := all[:0]
		for _, t := range all {
			if lq.matches(t) {
				matched = append(matched, t)
			}
		}
		if err := api.PastTheEnd(lq.page, lq.pageSize, int64(len(matched))); err != nil {
			return err
		}
		off, _ := survey.PageOffset(lq.page, lq.pageSize)
		start := min(int(off), len(matched)) // page 1 of an empty result
		end := min(start+lq.pageSize, len(matched))
		w.Header().Set("Cache-Control", cacheControl)
		api.Respond(w, api.WithNote(r, note(d)), http.StatusOK, api.NewPage(r, lq.page, lq.pageSize, len(matched), matched[start:end]))
		return nil
	})
}
