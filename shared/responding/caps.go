package responding

import (
	"encoding/json"

	"surveyservice/shared/store"
)

// Caps are the exact caps a response takes a place of (contract section
// 25): the survey's response_limit, and each quota its answers match. The
// store takes the places in the response's own transaction
// (store/places.go), so a full one refuses it (410) and records nothing.
func Caps(c store.SurveyCollection, answers map[int64]json.RawMessage) []store.Cap {
	var caps []store.Cap
	if c.Settings.ResponseLimit != nil {
		caps = append(caps, store.LimitCap(c.Settings))
	}
	return append(caps, QuotaCaps(c, answers)...)
}

// QuotaCaps are the caps of the quotas the answers match: a submission's,
// and an edit's, which moves the response's places to them.
func QuotaCaps(c store.SurveyCollection, answers map[int64]json.RawMessage) []store.Cap {
	var caps []store.Cap
	for _, q := range c.Quotas {
		if q.Matches(answers) {
			caps = append(caps, store.QuotaCap(q))
		}
	}
	return caps
}
