package survey

import (
	"unicode"
	"unicode/utf8"
)

// Variable is a query-string variable of a survey: personalised links carry
// values for it.
type Variable struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	VariableSource int64  `json:"variable_source"`
	Type           int64  `json:"type"`
	HasResponse    bool   `json:"has_response"`
}

// Variable kinds and sources.
const (
	VariableString    = 1
	VariableInteger   = 2
	SourceQueryString = 0
	// SourceLinks is a variable whose values come only from personalised
	// links: the query string cannot set it (contract section 21).
	SourceLinks         = 1
	MaxVariableName     = 100
	MaxVariables        = 100 // per survey
	ReservedUniqueKey   = "is_unique"
	MsgVariableNameRule = "Use letters (any script), digits, '_' and '-' only."
)

// ValidVariableName reports whether s is 1-100 letters of any script,
// digits, '_' and '-'.
func ValidVariableName(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > MaxVariableName || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
