package links

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Limits of a value.
const (
	MaxValueChars  = 500
	MaxNumberChars = 400
)

// Messages of refused values.
const (
	MsgUnknownVariable = "Unknown variable."
	MsgScalar          = "Values must be strings, numbers or booleans."
)

// Scalar is a JSON value a variable may carry, without the boxing of an
// any: Kind is 's' (a string), 'n' (a number, its text in Str), 'b' (a
// boolean) or 0 (anything else).
//
// The rules of variable values (contract section 8), shared by the
// personalised links a survey's owner mints and the query-string variables
// a responder submits with a response.
type Scalar struct {
	Kind byte
	Str  string
	Bool bool
}

// ScalarOf reads a value decoded by encoding/json (with UseNumber).
func ScalarOf(val any) Scalar {
	switch x := val.(type) {
	case string:
		return Scalar{Kind: 's', Str: x}
	case json.Number:
		return Scalar{Kind: 'n', Str: string(x)}
	case bool:
		return Scalar{Kind: 'b', Bool: x}
	}
	return Scalar{}
}

// DecodeValue reads one value for a variable of type t; msg is the field
// error when the value is refused.
func DecodeValue(name string, val Scalar, t int64) (v Value, msg string) {
	v = Value{Name: name}
	switch val.Kind {
	case 's':
		if t == survey.VariableInteger {
			return v, api.MsgNotInteger
		}
		if strings.IndexByte(val.Str, 0) >= 0 {
			return v, api.MsgNullCharacter
		}
		if len(val.Str) > MaxValueChars && utf8.RuneCountInString(val.Str) > MaxValueChars {
			return v, fmt.Sprintf("Ensure this field has no more than %d characters.", MaxValueChars)
		}
		v.Kind, v.Str = KindString, val.Str
	case 'b':
		if t == survey.VariableInteger {
			return v, api.MsgNotInteger
		}
		v.Kind = KindFalse
		if val.Bool {
			v.Kind = KindTrue
		}
	case 'n':
		n := json.Number(val.Str)
		if i, err := n.Int64(); err == nil {
			v.Kind, v.Int = KindInt, i
			return v, ""
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || len(val.Str) > MaxNumberChars {
			return v, "A valid number is required."
		}
		if t == survey.VariableInteger {
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return v, api.MsgNotInteger
			}
			v.Kind, v.Int = KindInt, int64(f)
			return v, ""
		}
		v.Kind, v.Str = KindNumber, val.Str
	default: // null, an object, an array
		return v, MsgScalar
	}
	return v, ""
}

// DecodeItem reads one object of values (decoded with UseNumber) against
// the survey's variables (name -> type): each key a variable, each value a
// string, number or boolean, an integer for a type 2 variable. linkItem
// is a personalised link's item (POST .../variables/hashes/): there the
// reserved key is_unique (a boolean) sets the payload's Unique, and a null
// value leaves the variable without a value in the link, as Porsline's
// clients send it (contract section 21); elsewhere is_unique is an unknown
// variable and null is refused. The values come sorted by name. fields
// holds every refusal, by key, or is nil.
func DecodeItem(item any, types map[string]int64, linkItem bool) (p Payload, fields map[string]any) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Payload{}, map[string]any{"non_field_errors": []string{survey.MsgNotADict(PythonKind(item))}}
	}
	// A link's item holds at most the survey's variables and is_unique:
	// more keys can never be valid, and only the first unknown ones are
	// named (5,000 items of short unknown keys, 6 MiB, made a 21 MB error
	// answer). A response's variables are one object in a body of at most
	// 1 MiB, so each unknown key is named.
	if linkItem && len(obj) > len(types)+1 {
		return Payload{}, unknownKeys(obj, types)
	}
	errs := survey.Fields{}
	p = Payload{Values: make([]Value, 0, len(obj))}
	for name, val := range obj {
		if name == survey.ReservedUniqueKey && linkItem {
			b, isBool := val.(bool)
			if !isBool {
				errs.Add(name, api.MsgNotBool)
			}
			p.Unique = b
			continue
		}
		t, ok := types[name]
		if !ok && utf8.RuneCountInString(name) > survey.MaxVariableName {
			// No variable has so long a name; the key is not echoed.
			if _, said := errs["non_field_errors"]; !said {
				errs.Add("non_field_errors", fmt.Sprintf("Unknown variable (a key of more than %d characters).", survey.MaxVariableName))
			}
			continue
		}
		if !ok {
			errs.Add(name, MsgUnknownVariable)
			continue
		}
		if val == nil && linkItem {
			continue // no value in this link
		}
		v, msg := DecodeValue(name, ScalarOf(val), t)
		if msg != "" {
			errs.Add(name, msg)
			continue
		}
		p.Values = append(p.Values, v)
	}
	if len(errs) > 0 {
		return Payload{}, errs
	}
	sort.Slice(p.Values, func(i, j int) bool { return p.Values[i].Name < p.Values[j].Name })
	return p, nil
}

// shownUnknown is how many unknown keys of an item with too many keys are
// named.
const shownUnknown = 5

// unknownKeys names the first shownUnknown unknown keys of obj (in byte
// order; a key too long to be a variable's name is never echoed) and
// counts the rest.
func unknownKeys(obj map[string]any, types map[string]int64) survey.Fields {
	var unknown []string
	for name := range obj {
		if _, ok := types[name]; !ok && name != survey.ReservedUniqueKey {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	errs := survey.Fields{}
	hidden := 0
	for _, name := range unknown {
		if len(errs) < shownUnknown && utf8.RuneCountInString(name) <= survey.MaxVariableName {
			errs.Add(name, MsgUnknownVariable)
		} else {
			hidden++
		}
	}
	switch {
	case hidden == 1:
		errs.Add("non_field_errors", "1 more unknown variable is not shown.")
	case hidden > 1:
		errs.Add("non_field_errors", fmt.Sprintf("%d more unknown variables are not shown.", hidden))
	}
	return errs
}

// PythonKind names a decoded JSON value's type as DRF's messages do.
func PythonKind(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "dict"
	case []any:
		return "list"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	}
	return "NoneType"
}
