package store

import (
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/survey"
)

// ResponseRef is what the dispatch of a response's events needs of it.
type ResponseRef struct {
	SurveyID, ResponseID int64
	SubmittedAt          time.Time
}

// ParseResponseRef reads a response item's keys and submission time (from
// a stream record's image); ok is false for an item that is not a response
// or is malformed.
func ParseResponseRef(pk, sk, submitted string) (ResponseRef, bool) {
	sid, ok1 := paddedID(strings.TrimPrefix(pk, "RESPONSES#"), strings.HasPrefix(pk, "RESPONSES#"))
	rid, ok2 := paddedID(strings.TrimPrefix(sk, responseSKPrefix), strings.HasPrefix(sk, responseSKPrefix))
	at, err := time.Parse(survey.TimestampLayout, submitted)
	if !ok1 || !ok2 || err != nil || len(submitted) != len(survey.TimestampLayout) {
		return ResponseRef{}, false
	}
	return ResponseRef{SurveyID: sid, ResponseID: rid, SubmittedAt: at.UTC()}, true
}

// paddedID reads an id as pad writes it: 20 digits, not zero.
func paddedID(s string, prefixed bool) (int64, bool) {
	if !prefixed || len(s) != 20 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil || n == 0 {
		return 0, false
	}
	return int64(n), true
}
