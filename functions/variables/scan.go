package variables

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// A personalised links request is the one hot path of the API: up to 5,000
// items, where encoding/json's reflection costs several times the sealing.
// fastValues reads the common shape of the body directly: an object whose
// "values" is a list of flat objects of strings, numbers and booleans. It
// answers ok false for anything else (errors to report, escapes it does not
// decode, nesting), and the caller then takes the general path, which also
// words every error; so it changes performance, never answers.
type scan struct {
	b []byte
	// text is b as one string, copied once: the strings the scan answers
	// are slices of it, not a copy (an allocation) each.
	text string
	// vals is where the items' values are carved from, one backing array
	// for many items rather than a slice each.
	vals []links.Value
	i    int
}

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scan) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// str reads a string without escapes or control characters (any other
// string sends the request to the general path).
func (s *scan) str() (string, bool) {
	b, ok := s.strBytes()
	if !ok {
		return "", false
	}
	end := s.i - 1 // the closing quote
	return s.text[end-len(b) : end], true
}

// strBytes is str without the copy: the bytes of the body.
func (s *scan) strBytes() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// number reads a JSON number's text.
func (s *scan) number() (string, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	intStart := s.i
	if digits() == 0 || (s.b[intStart] == '0' && s.i-intStart > 1) {
		return "", false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return "", false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return s.text[start:s.i], true
}

func (s *scan) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// scalar reads a string, number or boolean.
func (s *scan) scalar() (links.Scalar, bool) {
	switch c := s.peek(); {
	case c == '"':
		str, ok := s.str()
		return links.Scalar{Kind: 's', Str: str}, ok
	case c == 't':
		return links.Scalar{Kind: 'b', Bool: true}, s.literal("true")
	case c == 'f':
		return links.Scalar{Kind: 'b'}, s.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		n, ok := s.number()
		return links.Scalar{Kind: 'n', Str: n}, ok
	}
	return links.Scalar{}, false
}

// fastValues decodes a hashes body of the common shape into payloads, or
// answers ok false.
func fastValues(body []byte, vars []survey.Variable) ([]links.Payload, bool) {
	s := &scan{b: body, text: string(body)}
	if !s.eat('{') {
		return nil, false
	}
	types := make(map[string]survey.Variable, len(vars))
	for _, v := range vars {
		types[v.Name] = v
	}
	var payloads []links.Payload
	found := false
	for first := true; ; first = false {
		if s.eat('}') {
			break
		}
		if !first && !s.eat(',') {
			return nil, false
		}
		key, ok := s.str()
		if !ok || !s.eat(':') || key != "values" || found {
			return nil, false // another key: the general path ignores it properly
		}
		found = true
		if payloads, ok = s.items(types); !ok {
			return nil, false
		}
	}
	s.ws()
	if !found || s.i != len(s.b) || len(payloads) == 0 || len(payloads) > maxLinks {
		return nil, false
	}
	return payloads, true
}

func (s *scan) items(types map[string]survey.Variable) ([]links.Payload, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := make([]links.Payload, 0, min(maxLinks, max(1, bytes.Count(s.b[s.i:], []byte{'{'}))))
	for first := true; ; first = false {
		if s.eat(']') {
			return out, true
		}
		if !first && !s.eat(',') {
			return nil, false
		}
		p, ok := s.item(types)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
}

func (s *scan) item(types map[string]survey.Variable) (links.Payload, bool) {
	if !s.eat('{') {
		return links.Payload{}, false
	}
	// The item's values go at the end of the shared backing array; a new
	// one (for many items) is made when it has no room for this one's.
	if n := len(types) + 1; cap(s.vals)-len(s.vals) < n {
		s.vals = make([]links.Value, 0, max(n*256, 1024))
	}
	from := len(s.vals)
	p := links.Payload{Values: s.vals[from:from:cap(s.vals)]}
	for first := true; ; first = false {
		if s.eat('}') {
			break
		}
		if !first && !s.eat(',') {
			return links.Payload{}, false
		}
		key, ok := s.strBytes()
		if !ok || !s.eat(':') {
			return links.Payload{}, false
		}
		val, ok := s.scalar()
		if !ok {
			return links.Payload{}, false
		}
		if string(key) == survey.ReservedUniqueKey {
			if val.Kind != 'b' {
				return links.Payload{}, false
			}
			p.Unique = val.Bool
			continue
		}
		variable, known := types[string(key)] // no copy: the name is the variable's
		if !known {
			return links.Payload{}, false
		}
		name := variable.Name
		v, msg := links.DecodeValue(name, val, variable.Type)
		if msg != "" {
			return links.Payload{}, false
		}
		for _, prev := range p.Values {
			if prev.Name == name {
				return links.Payload{}, false // a repeated key: the general path decides
			}
		}
		if len(p.Values) == cap(p.Values) {
			return links.Payload{}, false // more keys than variables: a repeat; the general path decides
		}
		p.Values = append(p.Values, v)
	}
	sortValues(p.Values)
	p.Values = p.Values[:len(p.Values):len(p.Values)] // the next item's values are not this one's
	s.vals = s.vals[:from+len(p.Values)]
	return p, true
}

// sortValues orders a payload's values by name (insertion sort: an item has
// a handful).
func sortValues(vs []links.Value) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].Name < vs[j-1].Name; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

// urlsPrefix is the links' base URL as a JSON string without its closing
// quote: every URL of the answer starts with it.
func urlsPrefix(base string) string {
	quoted := strconv.Quote(base)
	if b, err := json.Marshal(base); err == nil {
		quoted = string(b)
	}
	return quoted[:len(quoted)-1]
}

// urlsJSONLen is the length of the answer {"urls": [...]} for the tokens
// of payloads, computed before they are sealed: the tokens are URL-safe
// base64, and the base is escaped once, in prefix (urlsPrefix).
func urlsJSONLen(prefix string, payloads []links.Payload) int {
	n := len(`{"urls":[]}`) + max(len(payloads)-1, 0)
	for _, p := range payloads {
		n += len(prefix) + links.TokenLen(p) + 1
	}
	return n
}
