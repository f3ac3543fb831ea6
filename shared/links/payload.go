package links

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Kind is the JSON type of a link value.
type Kind byte

// The kinds a value may have: the JSON types of the request, kept so that
// a resolved link answers exactly what was sealed.
const (
	KindString Kind = iota
	KindInt
	KindFalse
	KindTrue
	KindNumber // a JSON number that is not an int64, kept as its text
)

// Value is one variable's value in a personalised link.
type Value struct {
	Name string
	Kind Kind
	Str  string // KindString, and KindNumber's text
	Int  int64  // KindInt
}

// Payload is what a token seals: the values and whether the link admits one
// responder only.
type Payload struct {
	Unique bool
	Values []Value
}

// Limits of a payload, so that a decoder of untrusted input never
// allocates much.
const (
	maxValues    = 1000
	maxNameBytes = 400
	maxStrBytes  = 1 << 16
	// maxNumberBytes bounds a number's text (the request accepts as long).
	maxNumberBytes = 400
)

var errMalformed = errors.New("links: malformed payload")

const flagUnique = 1

// Encode writes the payload compactly: a flags byte, a varint count, then
// per value a varint-prefixed name, a kind byte and the value (varint-
// prefixed bytes, or a zigzag varint). Three values fit in about 40 bytes.
func (p Payload) Encode() []byte {
	return p.AppendEncode(make([]byte, 0, 16+len(p.Values)*16))
}

// AppendEncode appends the encoding to b (so that a batch reuses one
// buffer).
func (p Payload) AppendEncode(b []byte) []byte {
	var flags byte
	if p.Unique {
		flags |= flagUnique
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(p.Values)))
	for _, v := range p.Values {
		b = binary.AppendUvarint(b, uint64(len(v.Name)))
		b = append(b, v.Name...)
		b = append(b, byte(v.Kind))
		switch v.Kind {
		case KindString, KindNumber:
			b = binary.AppendUvarint(b, uint64(len(v.Str)))
			b = append(b, v.Str...)
		case KindInt:
			b = binary.AppendVarint(b, v.Int)
		}
	}
	return b
}

// EncodedLen is the length of the payload's encoding, without encoding it.
func (p Payload) EncodedLen() int {
	n := 1 + uvarintLen(uint64(len(p.Values)))
	for _, v := range p.Values {
		n += uvarintLen(uint64(len(v.Name))) + len(v.Name) + 1
		switch v.Kind {
		case KindString, KindNumber:
			n += uvarintLen(uint64(len(v.Str))) + len(v.Str)
		case KindInt:
			n += uvarintLen(uint64(v.Int<<1 ^ v.Int>>63)) // zigzag, as AppendVarint writes it
		}
	}
	return n
}

// DecodePayload reads an encoded payload. It never panics and allocates at
// most in proportion to its input.
func DecodePayload(b []byte) (Payload, error) {
	if len(b) < 2 {
		return Payload{}, errMalformed
	}
	flags := b[0]
	if flags&^flagUnique != 0 {
		return Payload{}, errMalformed
	}
	p := Payload{Unique: flags&flagUnique != 0}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || k != uvarintLen(n) || n > maxValues || n > uint64(len(b)) {
		return Payload{}, errMalformed
	}
	b = b[k:]
	p.Values = make([]Value, 0, n)
	readBytes := func(max uint64) (string, bool) {
		l, k := binary.Uvarint(b)
		if k <= 0 || k != uvarintLen(l) || l > max || l > uint64(len(b)-k) {
			return "", false
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s, true
	}
	for range n {
		name, ok := readBytes(maxNameBytes)
		if !ok || name == "" || !utf8.ValidString(name) || len(b) == 0 {
			return Payload{}, errMalformed
		}
		v := Value{Name: name, Kind: Kind(b[0])}
		b = b[1:]
		switch v.Kind {
		case KindString:
			if v.Str, ok = readBytes(maxStrBytes); !ok || !utf8.ValidString(v.Str) {
				return Payload{}, errMalformed
			}
		case KindNumber:
			if v.Str, ok = readBytes(maxNumberBytes); !ok {
				return Payload{}, errMalformed
			}
			if f, err := strconv.ParseFloat(v.Str, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return Payload{}, errMalformed
			}
		case KindInt:
			i, k := binary.Varint(b)
			if k <= 0 || k != len(binary.AppendVarint(nil, i)) {
				return Payload{}, errMalformed
			}
			v.Int, b = i, b[k:]
		case KindFalse, KindTrue:
		default:
			return Payload{}, errMalformed
		}
		p.Values = append(p.Values, v)
	}
	if len(b) != 0 {
		return Payload{}, errMalformed
	}
	return p, nil
}

// JSON returns the value as the API answers it.
func (v Value) JSON() any {
	switch v.Kind {
	case KindInt:
		return v.Int
	case KindTrue:
		return true
	case KindFalse:
		return false
	case KindNumber:
		return jsonNumber(v.Str)
	}
	return v.Str
}

// jsonNumber marshals as the number's own text.
type jsonNumber string

// MarshalJSON writes the number as it was sent.
func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// uvarintLen is the length of the minimal encoding of n: a longer encoding
// of the same number is refused, so that every payload has one encoding.
func uvarintLen(n uint64) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}
