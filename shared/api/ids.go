package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"

	"surveyservice/shared/survey"
)

// MaxID is the largest id the service hands out (int32, as clients expect).
const MaxID = math.MaxInt32

// PathID reads a positive integer id from the path, written without
// leading zeros. Anything else (not digits, "0141", zero, negative, beyond
// MaxID) cannot name a resource: ok is false and the caller answers 404
// without reading the store.
func PathID(r *http.Request, name string) (id int64, ok bool) {
	s := r.PathValue(name)
	if s == "" || len(s) > 10 || s[0] == '0' {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int64(c-'0')
	}
	return id, id >= 1 && id <= MaxID
}

// PK reads a primary-key field (folder_id, related_group...) as DRF's
// PrimaryKeyRelatedField does: an integer naming an object. A value of
// another JSON type is "Incorrect type"; an integer that cannot name an
// object (zero, negative, beyond MaxID) is "Invalid pk" right away. Whether
// a valid-looking id names an object of the account is the store's to say
// (see survey.FieldError with InvalidPK).
func (f *Form) PK(name string, required bool) (id int64, ok bool) {
	v, present := f.raw[name]
	if !present {
		if required {
			f.Fail(name, MsgRequired)
		}
		return 0, false
	}
	if f.IsNull(name) {
		f.Fail(name, MsgNull)
		return 0, false
	}
	id, isInt := parseJSONInt(v)
	if !isInt {
		f.Fail(name, fmt.Sprintf("Incorrect type. Expected pk value, received %s.", JSONKind(json.RawMessage(v))))
		return 0, false
	}
	if id < 1 || id > MaxID {
		f.Fail(name, survey.InvalidPK(id))
		return 0, false
	}
	return id, true
}

// AccountAndID returns the authenticated account and the named path id of a
// request. An id that cannot name a resource is survey.ErrNotFound (404),
// found without reading the store.
func AccountAndID(r *http.Request, name string) (acct survey.Account, id int64, err error) {
	acct, _ = AccountFrom(r.Context())
	id, ok := PathID(r, name)
	if !ok {
		return acct, 0, survey.ErrNotFound
	}
	return acct, id, nil
}
