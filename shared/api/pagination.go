package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"surveyservice/shared/survey"
)

// Page is DRF's page-number pagination envelope.
type Page[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// NewPage builds the envelope for page (1-based) of pageSize items out of
// count, with absolute next and previous links that keep the request's other
// query parameters; as in DRF, the link to page 1 drops the page parameter.
func NewPage[T any](r *http.Request, page, pageSize, count int, results []T) Page[T] {
	if results == nil {
		results = []T{}
	}
	p := Page[T]{Count: count, Results: results}
	if page*pageSize < count {
		next := pageURL(r, page+1)
		p.Next = &next
	}
	if page > 1 {
		prev := pageURL(r, page-1)
		p.Previous = &prev
	}
	return p
}

func pageURL(r *http.Request, page int) string {
	q := r.URL.Query()
	if page <= 1 {
		q.Del("page")
	} else {
		q.Set("page", strconv.Itoa(page))
	}
	return AbsoluteURL(r, q)
}

// AbsoluteURL is the request's own path with the query q under the API's
// configured address (ServeAt, API_BASE_URL): the Host header and any
// X-Forwarded-* header are the client's to choose, and never reach a link.
func AbsoluteURL(r *http.Request, q url.Values) string {
	u := url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: q.Encode()}
	return BaseURL(r) + u.String()
}

// ParseInt reads a query integer as the contract wants it: optional sign and
// digits only. ok is false for anything else; a value beyond int range
// saturates (it is still an integer, only a huge one).
func ParseInt(s string) (n int, ok bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		if strings.HasPrefix(s, "-") {
			return -int(^uint(0) >> 1), true
		}
		return int(^uint(0) >> 1), true
	}
	return v, true
}

// errInvalidPage is DRF's 404 of a page that is not a positive integer or
// lies past the end.
var errInvalidPage = survey.Errorf(survey.ENOTFOUND, "Invalid page.")

// PageParams reads DRF's page-number parameters: page (a positive
// integer, else 404 "Invalid page."), and page_size as DRF's
// page_size_query_param reads it (clamped to max; not a positive integer:
// def).
func PageParams(r *http.Request, def, max int) (page, size int, err error) {
	q := r.URL.Query()
	if page, err = PageNumber(q); err != nil {
		return 0, 0, err
	}
	size = def
	if vals, ok := q["page_size"]; ok {
		if n, isInt := ParseInt(vals[0]); isInt && n > 0 {
			size = min(n, max)
		}
	}
	return page, size, nil
}

// PageNumber reads DRF's page parameter: absent, 1; a positive integer,
// itself (however large: survey.PageOffset decides whether it lies past
// the end); anything else 404 "Invalid page.", as DRF answers.
func PageNumber(q url.Values) (int, error) {
	vals, ok := q["page"]
	if !ok {
		return 1, nil
	}
	n, isInt := ParseInt(vals[0])
	if !isInt || n < 1 {
		return 0, errInvalidPage
	}
	return n, nil
}

// ErrInvalidPage is DRF's 404 of a page that is not a positive integer or
// lies past the end, for the routes that decide it themselves.
var ErrInvalidPage = errInvalidPage

// PastTheEnd answers 404 "Invalid page." for a page after the last (page
// 1 always answers, empty or not), without overflowing for any page
// (survey.PagePastEnd).
func PastTheEnd(page, size int, count int64) error {
	if survey.PagePastEnd(page, size, count) {
		return errInvalidPage
	}
	return nil
}
