package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"surveyservice/shared/survey"
)

// Form reads the fields of a JSON object body the way DRF serializers do,
// collecting every field's errors with DRF's messages, so that one 400
// answers all of them. Values of the wrong JSON type are errors: "5" is not
// an integer and "true" is not a boolean.
type Form struct {
	raw  map[string]json.RawMessage
	errs survey.Fields
}

// NewForm wraps a decoded object (see DecodeObject).
func NewForm(raw map[string]json.RawMessage) *Form {
	return &Form{raw: raw, errs: survey.Fields{}}
}

// DRF's messages.
const (
	MsgRequired   = "This field is required."
	MsgNull       = survey.MsgNull
	MsgBlank      = "This field may not be blank."
	MsgNotString  = survey.MsgNotString
	MsgNotInteger = survey.MsgNotInteger
	MsgNotBool    = "Must be a valid boolean."
	// MsgNullCharacter refuses a string with a NUL (DRF's
	// ProhibitNullCharactersValidator, on every CharField).
	MsgNullCharacter = survey.MsgNullCharacter
)

// IsNull reports whether the field is present and null.
func (f *Form) IsNull(name string) bool {
	v, ok := f.raw[name]
	return ok && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// Raw returns the field's undecoded JSON.
func (f *Form) Raw(name string) (json.RawMessage, bool) { v, ok := f.raw[name]; return v, ok }

// Fail records a message for a field.
func (f *Form) Fail(name, msg string) { f.errs.Add(name, msg) }

// FailNested records nested errors (an object or list item) under a field.
func (f *Form) FailNested(name string, nested map[string]any) { f.errs[name] = nested }

// FailList records the errors of a list's items under a field, one object
// per item ({} for the valid ones), as DRF's list serializers answer.
func (f *Form) FailList(name string, items []any) { f.errs[name] = items }

// Merge adds the field errors of an EINVALID error (a domain rule checked
// after the form) to the form's; it reports whether err was one (any other
// error is the caller's to answer).
func (f *Form) Merge(err error) bool {
	var e *survey.Error
	if !errors.As(err, &e) || e.Code != survey.EINVALID || len(e.Fields) == 0 {
		return false
	}
	for k, v := range e.Fields {
		f.errs[k] = v
	}
	return true
}

// Fields returns the errors recorded so far (nil when none), for a form
// that reads one item of a list.
func (f *Form) Fields() survey.Fields {
	if len(f.errs) == 0 {
		return nil
	}
	return f.errs
}

// Err returns every error recorded, as one EINVALID, or nil.
func (f *Form) Err() error { return f.errs.Err() }

// Str describes a string field.
type Str struct {
	Required   bool
	Nullable   bool // null is accepted (and reported as ok with null=true)
	AllowBlank bool
	NoTrim     bool
	Min, Max   int // code points after trimming; 0 means no bound
}

// String reads a string field. ok is false when the field is absent, null
// (see Str.Nullable), or invalid (an error is then recorded).
func (f *Form) String(name string, o Str) (value string, ok bool) {
	v, present := f.raw[name]
	if !present {
		if o.Required {
			f.Fail(name, MsgRequired)
		}
		return "", false
	}
	if f.IsNull(name) {
		if !o.Nullable {
			f.Fail(name, MsgNull)
		}
		return "", false
	}
	if err := json.Unmarshal(v, &value); err != nil {
		f.Fail(name, MsgNotString)
		return "", false
	}
	if strings.ContainsRune(value, 0) {
		f.Fail(name, MsgNullCharacter)
		return "", false
	}
	if !o.NoTrim {
		value = strings.TrimSpace(value)
	}
	n := utf8.RuneCountInString(value)
	switch {
	case n == 0 && !o.AllowBlank:
		f.Fail(name, MsgBlank)
		return "", false
	case o.Max > 0 && n > o.Max:
		f.Fail(name, fmt.Sprintf("Ensure this field has no more than %d characters.", o.Max))
		return "", false
	case o.Min > 0 && n < o.Min && n > 0:
		f.Fail(name, fmt.Sprintf("Ensure this field has at least %d characters.", o.Min))
		return "", false
	}
	return value, true
}

// Int describes an integer field. Bounds are inclusive; the zero Int has
// the int32 range the API's clients use.
type Int struct {
	Required bool
	Nullable bool
	Min, Max *int64
}

// Bound is a helper for Int bounds.
func Bound(n int64) *int64 { return &n }

// Int reads an integer field. JSON numbers with an integral value (5, 5.0)
// are integers; strings, booleans and fractions are not.
func (f *Form) Int(name string, o Int) (value int64, ok bool) {
	v, present := f.raw[name]
	if !present {
		if o.Required {
			f.Fail(name, MsgRequired)
		}
		return 0, false
	}
	if f.IsNull(name) {
		if !o.Nullable {
			f.Fail(name, MsgNull)
		}
		return 0, false
	}
	value, ok = parseJSONInt(v)
	if !ok {
		f.Fail(name, MsgNotInteger)
		return 0, false
	}
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if o.Min != nil {
		lo = *o.Min
	}
	if o.Max != nil {
		hi = *o.Max
	}
	switch {
	case value < lo:
		f.Fail(name, fmt.Sprintf("Ensure this value is greater than or equal to %d.", lo))
		return 0, false
	case value > hi:
		f.Fail(name, fmt.Sprintf("Ensure this value is less than or equal to %d.", hi))
		return 0, false
	}
	return value, true
}

// parseJSONInt accepts a JSON number whose value is an integer that fits
// int64 (saturating beyond, so that bounds report it).
func parseJSONInt(v json.RawMessage) (int64, bool) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(t, &n); err != nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	fl, err := n.Float64()
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	if math.IsInf(fl, 0) || fl != math.Trunc(fl) {
		if math.IsInf(fl, 1) {
			return math.MaxInt64, true
		}
		if math.IsInf(fl, -1) {
			return math.MinInt64, true
		}
		return 0, false
	}
	switch {
	case fl >= math.MaxInt64:
		return math.MaxInt64, true
	case fl <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(fl), true
}

// Bool reads a boolean field: only JSON true and false.
func (f *Form) Bool(name string, required bool) (value, ok bool) {
	v, present := f.raw[name]
	if !present {
		if required {
			f.Fail(name, MsgRequired)
		}
		return false, false
	}
	if f.IsNull(name) {
		f.Fail(name, MsgNull)
		return false, false
	}
	if err := json.Unmarshal(v, &value); err != nil {
		f.Fail(name, MsgNotBool)
		return false, false
	}
	return value, true
}
