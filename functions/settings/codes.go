package settings

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Authentication code limits, from the contract.
const (
	maxCodesPerRequest = 5000
	maxCodeLength      = 100
	defaultCodePage    = 500
	maxCodePage        = 5000
)

var errInvalidPage = survey.Errorf(survey.ENOTFOUND, "Invalid page.")

// invisible reports a format character (Unicode category Cf): the
// zero-width ones and the bidirectional controls, which make two codes
// that read the same differ, or one read as another.
func invisible(r rune) bool { return unicode.Is(unicode.Cf, r) }

// readCodes reads a body of codes: a JSON array of strings or {"codes":
// [...]}. Each code is trimmed, 1-100 characters, without control or
// format (invisible, bidi) characters; the answer is de-duplicated in
// request order. allowEmpty admits [] (a DELETE of nothing).
func readCodes(raw json.RawMessage, allowEmpty bool) ([]string, error) {
	field := "non_field_errors"
	if api.JSONKind(raw) == "dict" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		field = "codes"
		v, ok := obj["codes"]
		if !ok {
			return nil, survey.FieldError("codes", api.MsgRequired)
		}
		raw = v
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || api.JSONKind(raw) != "list" {
		return nil, survey.FieldError(field, fmt.Sprintf("Expected a list of items but got type %q.", api.JSONKind(raw)))
	}
	switch {
	case len(items) == 0 && !allowEmpty:
		return nil, survey.FieldError(field, "This list may not be empty.")
	case len(items) > maxCodesPerRequest:
		return nil, survey.FieldError(field, fmt.Sprintf("Ensure this field has no more than %d elements.", maxCodesPerRequest))
	}
	seen := make(map[string]bool, len(items))
	out := make([]string, 0, len(items))
	errs := map[string]any{}
	for i, item := range items {
		var code string
		if json.Unmarshal(item, &code) != nil || api.JSONKind(item) != "str" {
			errs[strconv.Itoa(i)] = []string{api.MsgNotString}
			continue
		}
		code = strings.TrimSpace(code)
		switch n := utf8.RuneCountInString(code); {
		case n == 0:
			errs[strconv.Itoa(i)] = []string{api.MsgBlank}
		case n > maxCodeLength:
			errs[strconv.Itoa(i)] = []string{fmt.Sprintf("Ensure this field has no more than %d characters.", maxCodeLength)}
		case strings.ContainsFunc(code, unicode.IsControl) || !utf8.ValidString(code):
			errs[strconv.Itoa(i)] = []string{"A code may not contain control characters."}
		case strings.ContainsFunc(code, invisible):
			errs[strconv.Itoa(i)] = []string{"A code may not contain invisible or direction-changing characters."}
		case !seen[code]:
			seen[code] = true
			out = append(out, code)
		}
	}
	if len(errs) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{field: errs}}
	}
	return out, nil
}

// listCodes answers a page of the codes in byte order, DRF page-number
// style, with the count the code writes keep (never a count of the codes
// themselves).
func (h handlers) listCodes() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		q := r.URL.Query()
		page, pageSize := 1, defaultCodePage
		if vals, ok := q["page"]; ok {
			n, isInt := api.ParseInt(vals[0])
			if !isInt || n < 1 {
				return errInvalidPage
			}
			page = n
		}
		if vals, ok := q["page_size"]; ok {
			n, isInt := api.ParseInt(vals[0])
			switch {
			case !isInt:
				return survey.FieldError("page_size", api.MsgNotInteger)
			case n < 1:
				return survey.FieldError("page_size", "Ensure this value is greater than or equal to 1.")
			case n > maxCodePage:
				return survey.FieldError("page_size", fmt.Sprintf("Ensure this value is less than or equal to %d.", maxCodePage))
			}
			pageSize = n
		}
		count, err := h.st.CodeCount(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		if page > 1 && (int64(page-1) > (count-1)/int64(pageSize) || count == 0) {
			return errInvalidPage
		}
		codes := []string{}
		if count > 0 {
			if codes, err = h.st.CodesPage(r.Context(), sid, page, pageSize); err != nil {
				return err
			}
		}
		api.Respond(w, r, http.StatusOK, api.NewPage(r, page, pageSize, int(count), codes))
		return nil
	})
}

// addCodes stores up to 5,000 codes; codes the survey has are kept, and
// duplicates ignored. 201 answers the request's codes, de-duplicated, in
// request order. Not plan-gated: turning code_auth on is.
func (h handlers) addCodes() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		raw, err := api.ReadJSON(r, api.MaxBulkBody)
		if err != nil {
			return err
		}
		if raw == nil {
			return survey.FieldError("non_field_errors", "No data provided")
		}
		codes, err := readCodes(raw, false)
		if err != nil {
			return err
		}
		if err := h.st.AddCodes(r.Context(), acct.ID, sid, codes); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, codes)
		return nil
	})
}

// deleteCodes deletes the codes of the body (unknown ones ignored), or
// every code when the request has no body at all; an explicit [] deletes
// none. 204.
func (h handlers) deleteCodes() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		raw, sent, err := api.ReadOptionalJSON(r, api.MaxBulkBody)
		if err != nil {
			return err
		}
		if !sent {
			err = h.st.DeleteAllCodes(r.Context(), acct.ID, sid)
		} else {
			if raw == nil {
				return survey.FieldError("non_field_errors", "No data provided")
			}
			var codes []string
			if codes, err = readCodes(raw, true); err == nil {
				err = h.st.DeleteCodes(r.Context(), acct.ID, sid, codes)
			}
		}
		if err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
