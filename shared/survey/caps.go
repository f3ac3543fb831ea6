package survey

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Exact caps (contract section 25): a response limit on the settings and
// quotas on choice answers. The store keeps each cap's places exact
// (shared/store/places.go); this file says what a cap is and what a full
// one answers.

// MaxResponseLimit bounds response_limit and a quota's limit.
const MaxResponseLimit = 10_000_000

// Bounds of quotas (contract section 25).
const (
	MaxQuotas          = 50
	MaxQuotaName       = 100
	MaxQuotaConditions = 10
)

// ErrTooManyQuotas refuses the 51st quota of a survey.
var ErrTooManyQuotas = FieldError("non_field_errors", "A survey holds at most 50 quotas.")

var (
	// ErrSurveyFull answers a session or a submission on a survey whose
	// response_limit is reached.
	ErrSurveyFull = Errorf(EGONE, "This survey is full.")
	// ErrQuotaFull answers a submission matching a quota that is full.
	ErrQuotaFull = Errorf(EGONE, "This survey is full for answers like yours.")
)

// StateFull is the public state of a survey whose response_limit is
// reached (contract section 25).
const StateFull = "full"

// Full reports whether the survey's response_limit is reached by its
// recorded responses, as the tally counts them (exact within section 11's
// 5 seconds); the submission's own check is exact (the store's places).
func (s Settings) Full(sv Survey) bool {
	return s.ResponseLimit != nil && sv.SubmittedResponses >= *s.ResponseLimit
}

// LimitPlaces is how many places the limit's allowances hold: the limit
// less the responses recorded when it was set (ResponseLimitBase); the
// responses recorded since hold the rest.
func (s Settings) LimitPlaces() int64 {
	if s.ResponseLimit == nil {
		return 0
	}
	return *s.ResponseLimit - s.ResponseLimitBase
}

// Quota caps the responses whose answers match its conditions (contract
// section 25, plan Enterprise).
type Quota struct {
	ID         int64            `json:"id"`
	Name       string           `json:"name"`
	Limit      int64            `json:"limit"`
	Conditions []QuotaCondition `json:"conditions"`
	// Count is the recorded responses it counts (its places taken).
	Count int64 `json:"count"`
}

// QuotaCondition names a choice question of the survey and choices of it.
type QuotaCondition struct {
	Question int64   `json:"question"`
	Choices  []int64 `json:"choices"`
}

// Matches reports whether a response's answers (canonical, as
// CheckAnswers returns them) match the quota: for every condition, the
// answer to its question includes one of its choices.
func (q Quota) Matches(answers map[int64]json.RawMessage) bool {
	for _, c := range q.Conditions {
		if !slices.ContainsFunc(chosen(answers[c.Question]), func(id int64) bool { return slices.Contains(c.Choices, id) }) {
			return false
		}
	}
	return len(q.Conditions) > 0
}

// chosen are the choice ids of a choice answer: a list (types 3 and 4) or
// one id (type 10).
func chosen(a json.RawMessage) []int64 {
	var ids []int64
	if json.Unmarshal(a, &ids) == nil {
		return ids
	}
	var id int64
	if json.Unmarshal(a, &id) == nil {
		return []int64{id}
	}
	return nil
}

// Messages of quota conditions that name what the survey lacks, and a
// choice id a condition repeats (%d the id).
const (
	MsgNotChoiceQuestion = "Not a choice question of this survey."
	MsgNotQuestionChoice = "Not a choice of this question: %d."
	MsgChoiceListedTwice = "Listed twice: %d."
)

// QuotaQuestion reports whether a quota's condition may name an element
// of type t: a choice question (types 3, 4 and 10).
func (t ElementType) QuotaQuestion() bool {
	return t == TypeMultipleChoice || t == TypePictureChoice || t == TypeDropdown
}

// CheckQuotaConditions checks that each condition names a choice question
// of the survey (types 3, 4 and 10) and choices of it: a 400 on
// conditions, a list aligned with them ({} for a valid one).
func CheckQuotaConditions(conds []QuotaCondition, elements map[int64]Element) error {
	errs := make([]any, len(conds))
	bad := false
	for i, c := range conds {
		errs[i] = map[string]any{}
		e, ok := elements[c.Question]
		if !ok || !e.Type.QuotaQuestion() {
			errs[i], bad = map[string]any{"question": []string{MsgNotChoiceQuestion}}, true
			continue
		}
		for _, id := range c.Choices {
			if !slices.ContainsFunc(e.Choices, func(ch ChoiceItem) bool { return ch.ID == id }) {
				errs[i], bad = map[string]any{"choices": []string{fmt.Sprintf(MsgNotQuestionChoice, id)}}, true
				break
			}
		}
	}
	if !bad {
		return nil
	}
	return &Error{Code: EINVALID, Fields: map[string]any{"conditions": errs}}
}
