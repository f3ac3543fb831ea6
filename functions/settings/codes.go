package settings

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/mobile"
	"surveyservice/shared/survey"
)

// Authentication code limits, from the contract.
const maxCodeLength = 100

// invisible reports a format character (Unicode category Cf): the
// zero-width ones and the bidirectional controls, which make two codes
// that read the same differ, or one read as another.
func invisible(r rune) bool { return unicode.Is(unicode.Cf, r) }

// codes is the survey's authentication codes (section 7): each trimmed,
// 1-100 characters, without control or format (invisible, bidi) characters.
func (h handlers) codes() itemList {
	return itemList{
		field:     "codes",
		count:     h.st.CodeCount,
		page:      h.st.CodesPage,
		add:       h.st.AddCodes,
		remove:    h.st.DeleteCodes,
		removeAll: h.st.DeleteAllCodes,
		reader: func(context.Context, int64, int64, bool) (func(string) (string, string), error) {
			return readCode, nil
		},
	}
}

// readCode reads one code of a request, or the message refusing it.
func readCode(code string) (string, string) {
	code = strings.TrimSpace(code)
	switch n := utf8.RuneCountInString(code); {
	case n == 0:
		return "", api.MsgBlank
	case n > maxCodeLength:
		return "", fmt.Sprintf("Ensure this field has no more than %d characters.", maxCodeLength)
	case strings.ContainsFunc(code, unicode.IsControl) || !utf8.ValidString(code):
		return "", "A code may not contain control characters."
	case strings.ContainsFunc(code, invisible):
		return "", "A code may not contain invisible or direction-changing characters."
	}
	return code, ""
}

// phones is the survey's allowed numbers (section 18): each read by
// survey.NormalizePhone in the survey's language at the time of the
// request (the `09` form on a fa survey), stored and answered in E.164.
func (h handlers) phones() itemList {
	return itemList{
		field:                "phone_numbers",
		itemErrorsUnderField: true,
		count:                h.st.PhoneCount,
		page:                 h.st.PhonesPage,
		add:                  h.st.AddPhones,
		remove:               h.st.DeletePhones,
		removeAll:            h.st.DeleteAllPhones,
		reader: func(ctx context.Context, aid, sid int64, adding bool) (func(string) (string, string), error) {
			sv, _, err := h.st.SurveySettings(ctx, aid, sid)
			if err != nil {
				return nil, err
			}
			lang, _ := survey.LanguageCode(sv.Language)
			return func(s string) (string, string) {
				// A number added must be one SMS may go to (section 18 as
				// amended: mobile.Admits); a delete matches any stored one,
				// so that a number listed before that rule can be removed.
				if n, ok := survey.NormalizePhone(s, lang); ok && (!adding || mobile.Admits(n)) {
					return n, ""
				}
				return "", survey.PhoneInvalidMessage
			}, nil
		},
	}
}
