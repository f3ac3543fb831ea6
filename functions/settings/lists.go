package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// List limits, from the contract (section 7, and section 18 for numbers).
const (
	maxItemsPerRequest = 5000
	defaultListPage    = 500
	maxListPage        = 5000
)

// itemList is one of a survey's lists managed by the same three routes:
// the authentication codes and the allowed phone numbers.
type itemList struct {
	field string // the object body form's key
	// itemErrorsUnderField: a bad item's error is keyed by field in both
	// body forms (section 18's fixed shape for numbers); else, as DRF's
	// list serializer answers, by non_field_errors in the array form.
	itemErrorsUnderField bool
	count                func(ctx context.Context, aid, sid int64) (int64, error)
	page                 func(ctx context.Context, sid int64, page, pageSize int) ([]string, error)
	add                  func(ctx context.Context, aid, sid int64, items []string) error
	remove               func(ctx context.Context, aid, sid int64, items []string) error
	removeAll            func(ctx context.Context, aid, sid int64) error
	// reader answers, for one request, how an item is read: its stored
	// form, or the message refusing it.
	// (adding: a POST's items, which may be held to more than a DELETE's).
	reader func(ctx context.Context, aid, sid int64, adding bool) (func(string) (string, string), error)
}

// readItems reads a body of items: a JSON array of strings or {"<field>":
// [...]}, each read by item; the answer is de-duplicated after reading, in
// request order. allowEmpty admits [] (a DELETE of nothing).
func (l itemList) readItems(raw json.RawMessage, allowEmpty bool, item func(string) (string, string)) ([]string, error) {
	field := "non_field_errors"
	if api.JSONKind(raw) == "dict" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		field = l.field
		v, ok := obj[l.field]
		if !ok {
			return nil, survey.FieldError(l.field, api.MsgRequired)
		}
		raw = v
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || api.JSONKind(raw) != "list" {
		return nil, survey.FieldError(field, survey.MsgNotAList(api.JSONKind(raw)))
	}
	switch {
	case len(items) == 0 && !allowEmpty:
		return nil, survey.FieldError(field, "This list may not be empty.")
	case len(items) > maxItemsPerRequest:
		return nil, survey.FieldError(field, fmt.Sprintf("Ensure this field has no more than %d elements.", maxItemsPerRequest))
	}
	seen := make(map[string]bool, len(items))
	out := make([]string, 0, len(items))
	errs := map[string]any{}
	for i, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil || api.JSONKind(it) != "str" {
			errs[strconv.Itoa(i)] = []string{api.MsgNotString}
			continue
		}
		if strings.IndexByte(s, 0) >= 0 { // section 3: as every string field, before the list's own rules
			errs[strconv.Itoa(i)] = []string{api.MsgNullCharacter}
			continue
		}
		v, msg := item(s)
		switch {
		case msg != "":
			errs[strconv.Itoa(i)] = []string{msg}
		case !seen[v]:
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(errs) > 0 {
		if l.itemErrorsUnderField {
			field = l.field
		}
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{field: errs}}
	}
	return out, nil
}

// list answers a page of the list in byte order, DRF page-number style,
// with the count the list's writes keep (never a count of the items
// themselves).
func (l itemList) list() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		q := r.URL.Query()
		page, err := api.PageNumber(q)
		if err != nil {
			return err
		}
		pageSize := defaultListPage
		if vals, ok := q["page_size"]; ok {
			n, isInt := api.ParseInt(vals[0])
			switch {
			case !isInt:
				return survey.FieldError("page_size", api.MsgNotInteger)
			case n < 1:
				return survey.FieldError("page_size", "Ensure this value is greater than or equal to 1.")
			case n > maxListPage:
				return survey.FieldError("page_size", fmt.Sprintf("Ensure this value is less than or equal to %d.", maxListPage))
			}
			pageSize = n
		}
		count, err := l.count(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		if err := api.PastTheEnd(page, pageSize, count); err != nil {
			return err
		}
		items := []string{}
		if count > 0 {
			if items, err = l.page(r.Context(), sid, page, pageSize); err != nil {
				return err
			}
		}
		api.Respond(w, r, http.StatusOK, api.NewPage(r, page, pageSize, int(count), items))
		return nil
	})
}

// create stores up to 5,000 items; items the survey has are kept, and
// duplicates ignored. 201 answers the request's items as stored,
// de-duplicated, in request order. Not plan-gated: turning the setting
// that uses the list on is.
func (l itemList) create() http.Handler {
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
		item, err := l.reader(r.Context(), acct.ID, sid, true)
		if err != nil {
			return err
		}
		items, err := l.readItems(raw, false, item)
		if err != nil {
			return err
		}
		if err := l.add(r.Context(), acct.ID, sid, items); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusCreated, items)
		return nil
	})
}

// delete deletes the items of the body, read as a POST reads them (unknown
// ones ignored), or every item when the request has no body at all; an
// explicit [] deletes none. 204.
func (l itemList) delete() http.Handler {
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
			err = l.removeAll(r.Context(), acct.ID, sid)
		} else {
			if raw == nil {
				return survey.FieldError("non_field_errors", "No data provided")
			}
			var item func(string) (string, string)
			if item, err = l.reader(r.Context(), acct.ID, sid, false); err != nil {
				return err
			}
			var items []string
			if items, err = l.readItems(raw, true, item); err == nil {
				err = l.remove(r.Context(), acct.ID, sid, items)
			}
		}
		if err != nil {
			return err
		}
		api.NoContent(w, r)
		return nil
	})
}
