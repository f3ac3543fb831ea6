package responses

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Page sizes, from the contract.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
	maxCSVPageSize  = 5000
)

// msgDatetime is DRF's message for a datetime it cannot read.
const msgDatetime = "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."

// pageSizeParam reads page_size: an integer from 1 to max, def when absent.
func pageSizeParam(q url.Values, errs survey.Fields, def, max int) int {
	vals, ok := q["page_size"]
	if !ok {
		return def
	}
	n, isInt := api.ParseInt(vals[0])
	switch {
	case !isInt:
		errs.Add("page_size", api.MsgNotInteger)
	case n < 1:
		errs.Add("page_size", "Ensure this value is greater than or equal to 1.")
	case n > max:
		errs.Add("page_size", fmt.Sprintf("Ensure this value is less than or equal to %d.", max))
	default:
		return n
	}
	return def
}

// timeParam reads an ISO 8601 date-time parameter; zero when absent.
func timeParam(q url.Values, errs survey.Fields, name string) time.Time {
	vals, ok := q[name]
	if !ok {
		return time.Time{}
	}
	t, ok := parseDateTime(vals[0])
	if !ok {
		errs.Add(name, msgDatetime)
	}
	return t
}

// dateTimeLayouts are the ISO 8601 forms accepted, after a space between
// date and time has become 'T'. A time without a zone is UTC.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseDateTime reads an ISO 8601 date or date-time, as DRF's DateTimeField
// does: YYYY-MM-DD[Thh:mm[:ss[.uuuuuu]]][Z|±HH:MM]. A '+' of the offset
// that reached us as a space (an unencoded '+' in a query string) is read
// as '+'.
func parseDateTime(s string) (time.Time, bool) {
	if len(s) < 10 || len(s) > 40 {
		return time.Time{}, false
	}
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	if i := strings.LastIndexByte(s, ' '); i > 10 && len(s)-i == 6 && s[i+3] == ':' {
		s = s[:i] + "+" + s[i+1:]
	}
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// storeBounds are a store query's bounds for since and until: those
// include their instant, the store's exclude theirs, and keys have no time
// finer than a microsecond. A zero time stays zero (an open side).
func storeBounds(since, until time.Time) (after, before time.Time) {
	if !since.IsZero() {
		after = since.Add(-time.Nanosecond)
	}
	if !until.IsZero() {
		before = until.Add(time.Nanosecond)
	}
	return after, before
}
