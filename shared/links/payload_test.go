package links_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"surveyservice/shared/links"
)

// Values of every kind, as the variables function builds them.
func str(name, s string) links.Value { return links.Value{Name: name, Kind: links.KindString, Str: s} }
func num(name, s string) links.Value { return links.Value{Name: name, Kind: links.KindNumber, Str: s} }
func integer(name string, i int64) links.Value {
	return links.Value{Name: name, Kind: links.KindInt, Int: i}
}
func boolean(name string, b bool) links.Value {
	if b {
		return links.Value{Name: name, Kind: links.KindTrue}
	}
	return links.Value{Name: name, Kind: links.KindFalse}
}

// samePayload compares payloads, a nil and an empty Values alike.
func samePayload(a, b links.Payload) bool {
	if a.Unique != b.Unique || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] {
			return false
		}
	}
	return true
}

func thousandValues() []links.Value {
	vs := make([]links.Value, 1000)
	for i := range vs {
		name := fmt.Sprintf("v%d", i)
		switch i % 5 {
		case 0:
			vs[i] = str(name, strings.Repeat("x", i%37))
		case 1:
			vs[i] = integer(name, int64(i)*-7919)
		case 2:
			vs[i] = boolean(name, i%2 == 0)
		case 3:
			vs[i] = num(name, fmt.Sprintf("%d.5", i))
		default:
			vs[i] = str(name, "شهر")
		}
	}
	return vs
}

// roundTripCases are valid payloads; other tests reuse their encodings.
var roundTripCases = []struct {
	name string
	p    links.Payload
}{
	{"no values", links.Payload{}},
	{"no values unique", links.Payload{Unique: true}},
	{"empty values slice", links.Payload{Values: []links.Value{}}},
	{"ascii string", links.Payload{Values: []links.Value{str("city", "Tehran")}}},
	{"persian string and name", links.Payload{Values: []links.Value{str("شهر", "تهران، خیابان ولیعصر")}}},
	{"empty string", links.Payload{Values: []links.Value{str("note", "")}}},
	{"emoji and control chars", links.Payload{Values: []links.Value{str("x", "a\x00b\n😀\u200c")}}},
	{"long string", links.Payload{Values: []links.Value{str("long", strings.Repeat("ب", 500))}}},
	{"int zero", links.Payload{Values: []links.Value{integer("n", 0)}}},
	{"int positive", links.Payload{Values: []links.Value{integer("age", 37)}}},
	{"int negative", links.Payload{Values: []links.Value{integer("delta", -1)}}},
	{"int min", links.Payload{Values: []links.Value{integer("min", math.MinInt64)}}},
	{"int max", links.Payload{Values: []links.Value{integer("max", math.MaxInt64)}}},
	{"true", links.Payload{Values: []links.Value{boolean("vip", true)}}},
	{"false", links.Payload{Values: []links.Value{boolean("vip", false)}}},
	{"number 1.5", links.Payload{Values: []links.Value{num("score", "1.5")}}},
	{"number -2e10", links.Payload{Values: []links.Value{num("big", "-2e10")}}},
	{"number 64 bytes", links.Payload{Values: []links.Value{num("n", "0."+strings.Repeat("1", 62))}}},
	{"unique with values", links.Payload{Unique: true, Values: []links.Value{
		str("city", "Shiraz"), integer("age", -42), boolean("vip", true), boolean("new", false), num("score", "9.75"),
	}}},
	{"name of 400 bytes", links.Payload{Values: []links.Value{str(strings.Repeat("𝔸", 100), "v")}}},
	{"string of 65536 bytes", links.Payload{Values: []links.Value{str("s", strings.Repeat("a", 1<<16))}}},
	{"1000 values", links.Payload{Values: thousandValues()}},
	{"1000 values unique", links.Payload{Unique: true, Values: thousandValues()}},
}

func TestPayloadRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			enc := tc.p.Encode()
			got, err := links.DecodePayload(enc)
			if err != nil {
				t.Fatalf("DecodePayload(Encode(%s)) = %v", tc.name, err)
			}
			if !samePayload(got, tc.p) {
				t.Fatalf("round trip changed the payload:\n got %+v\nwant %+v", got, tc.p)
			}
			if again := got.Encode(); !bytes.Equal(again, enc) {
				t.Fatalf("re-encoding differs: %x vs %x", again, enc)
			}
		})
	}
}

func TestPayloadEncodingIsCompact(t *testing.T) {
	p := links.Payload{Values: []links.Value{str("city", "Tehran"), integer("age", 37), boolean("vip", true)}}
	if n := len(p.Encode()); n > 40 {
		t.Errorf("three values encode to %d bytes, want about 40 at most", n)
	}
}

func TestDecodePayloadRejectsTruncations(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			enc := tc.p.Encode()
			step := 1
			if len(enc) > 5000 {
				step = 7 // the big cases: every 7th prefix, plus the last 64
			}
			for i := 0; i < len(enc); i++ {
				if i%step != 0 && i < len(enc)-64 {
					continue
				}
				if p, err := links.DecodePayload(enc[:i]); err == nil {
					t.Fatalf("prefix of %d of %d bytes decoded to %+v", i, len(enc), p)
				}
			}
		})
	}
}

// uv and sv are varint helpers for hand-made encodings.
func uv(n uint64) []byte { return binary.AppendUvarint(nil, n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDecodePayloadRejectsMalformed(t *testing.T) {
	one := links.Payload{Values: []links.Value{str("city", "Tehran")}}.Encode()
	cases := map[string][]byte{
		"nil":                        nil,
		"empty":                      {},
		"flags only":                 {0},
		"trailing zero byte":         append(bytes.Clone(one), 0),
		"trailing value":             append(bytes.Clone(one), links.Payload{Values: []links.Value{integer("a", 1)}}.Encode()[2:]...),
		"trailing bytes no values":   {0, 0, 0},
		"empty name":                 cat([]byte{0, 1}, uv(0), []byte{byte(links.KindTrue)}),
		"invalid utf-8 name":         cat([]byte{0, 1}, uv(2), []byte{0xc3, 0x28, byte(links.KindTrue)}),
		"lone continuation in name":  cat([]byte{0, 1}, uv(1), []byte{0x80, byte(links.KindFalse)}),
		"surrogate in string":        cat([]byte{0, 1}, uv(1), []byte("s"), []byte{byte(links.KindString)}, uv(3), []byte{0xed, 0xa0, 0x80}),
		"invalid utf-8 string":       cat([]byte{0, 1}, uv(1), []byte("s"), []byte{byte(links.KindString)}, uv(1), []byte{0xff}),
		"name of 401 bytes":          cat([]byte{0, 1}, uv(401), bytes.Repeat([]byte("a"), 401), []byte{byte(links.KindTrue)}),
		"string of 65537 bytes":      cat([]byte{0, 1}, uv(1), []byte("s"), []byte{byte(links.KindString)}, uv(1<<16+1), bytes.Repeat([]byte("a"), 1<<16+1)),
		"number of 65537 bytes":      cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(1<<16+1), []byte("0."+strings.Repeat("1", 1<<16-1))),
		"number not a number":        cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(3), []byte("abc")),
		"number NaN":                 cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(3), []byte("NaN")),
		"number Inf":                 cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(3), []byte("Inf")),
		"number overflows":           cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(5), []byte("1e400")),
		"number empty":               cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindNumber)}, uv(0)),
		"1001 values":                cat([]byte{0}, uv(1001), bytes.Repeat(cat(uv(1), []byte("a"), []byte{byte(links.KindTrue)}), 1001)),
		"count beyond input":         cat([]byte{0}, uv(5), uv(1), []byte("a"), []byte{byte(links.KindTrue)}),
		"huge count":                 cat([]byte{0}, uv(math.MaxUint64)),
		"huge name length":           cat([]byte{0, 1}, uv(math.MaxUint64), []byte("a")),
		"name length 1<<63":          cat([]byte{0, 1}, uv(1<<63), []byte("a")),
		"huge string length":         cat([]byte{0, 1}, uv(1), []byte("s"), []byte{byte(links.KindString)}, uv(math.MaxUint64), []byte("a")),
		"string length past the end": cat([]byte{0, 1}, uv(1), []byte("s"), []byte{byte(links.KindString)}, uv(5), []byte("abcd")),
		"varint overflow count":      {0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"varint overflow int":        cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindInt)}, bytes.Repeat([]byte{0xff}, 10), []byte{0x01}),
		"int missing":                cat([]byte{0, 1}, uv(1), []byte("n"), []byte{byte(links.KindInt)}),
		"kind missing":               cat([]byte{0, 1}, uv(1), []byte("n")),
	}
	for bit := 1; bit < 8; bit++ {
		b := bytes.Clone(one)
		b[0] |= 1 << bit
		cases[fmt.Sprintf("flag bit %d", bit)] = b
	}
	cases["flags 0xff"] = append([]byte{0xff}, one[1:]...)
	for k := int(links.KindNumber) + 1; k < 256; k++ {
		cases[fmt.Sprintf("kind %d", k)] = cat([]byte{0, 1}, uv(1), []byte("k"), []byte{byte(k)}, uv(0))
	}
	for name, b := range cases {
		if p, err := links.DecodePayload(b); err == nil {
			t.Errorf("%s: DecodePayload(% x...) = %+v, want an error", name, b[:min(len(b), 24)], p)
		}
	}
}

// Encodings are canonical: a payload has exactly one encoding, so varints
// written with redundant continuation bytes must not decode. (The fuzz
// target FuzzDecodePayload states the same property.)
func TestDecodePayloadRejectsNonMinimalVarints(t *testing.T) {
	cases := map[string][]byte{
		"count 0 in two bytes":       {0x00, 0x80, 0x00},
		"count 1 in two bytes":       cat([]byte{0x00, 0x81, 0x00}, uv(1), []byte("a"), []byte{byte(links.KindTrue)}),
		"name length in two bytes":   cat([]byte{0x00, 0x01, 0x81, 0x00}, []byte("a"), []byte{byte(links.KindTrue)}),
		"string length in two bytes": cat([]byte{0x00, 0x01}, uv(1), []byte("s"), []byte{byte(links.KindString), 0x82, 0x00}, []byte("ab")),
		"int 1 in two bytes":         cat([]byte{0x00, 0x01}, uv(1), []byte("n"), []byte{byte(links.KindInt), 0x82, 0x00}),
	}
	for name, b := range cases {
		p, err := links.DecodePayload(b)
		if err == nil {
			t.Errorf("%s: DecodePayload(% x) = %+v (re-encodes as % x), want an error: the encoding is not canonical",
				name, b, p, p.Encode())
		}
	}
}

func TestValueJSON(t *testing.T) {
	values := []links.Value{
		str("city", "Tehran"), str("شهر", "تهران <&>"), str("empty", ""),
		integer("zero", 0), integer("neg", -17), integer("min", math.MinInt64), integer("max", math.MaxInt64),
		boolean("yes", true), boolean("no", false),
		num("half", "1.5"), num("big", "-2e10"), num("precise", "0.10000000000000000000001"), num("exp", "1E+300"),
	}
	want := map[string]string{ // the JSON each value must marshal to, numbers verbatim
		"city": `"Tehran"`, "شهر": `"تهران \u003c\u0026\u003e"`, "empty": `""`,
		"zero": `0`, "neg": `-17`, "min": `-9223372036854775808`, "max": `9223372036854775807`,
		"yes": `true`, "no": `false`,
		"half": `1.5`, "big": `-2e10`, "precise": `0.10000000000000000000001`, "exp": `1E+300`,
	}
	m := map[string]any{}
	for _, v := range values {
		m[v.Name] = v.JSON()
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("the marshalled values are not JSON: %v\n%s", err, b)
	}
	for name, w := range want {
		if got := string(raw[name]); got != w {
			t.Errorf("%s marshals to %s, want %s", name, got, w)
		}
	}
	// The JSON types, as a client decoding the answer sees them.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var typed map[string]any
	if err := dec.Decode(&typed); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		got := typed[v.Name]
		switch v.Kind {
		case links.KindString:
			if s, ok := got.(string); !ok || s != v.Str {
				t.Errorf("%s: got %T %v, want the string %q", v.Name, got, got, v.Str)
			}
		case links.KindInt:
			if n, ok := got.(json.Number); !ok || n.String() != fmt.Sprint(v.Int) {
				t.Errorf("%s: got %T %v, want the number %d", v.Name, got, got, v.Int)
			}
		case links.KindNumber:
			if n, ok := got.(json.Number); !ok || n.String() != v.Str {
				t.Errorf("%s: got %T %v, want the number %s", v.Name, got, got, v.Str)
			}
		case links.KindTrue, links.KindFalse:
			if bv, ok := got.(bool); !ok || bv != (v.Kind == links.KindTrue) {
				t.Errorf("%s: got %T %v, want a boolean", v.Name, got, got)
			}
		}
	}
	// Go types too, for callers that build the answer map themselves.
	if _, ok := integer("i", 1).JSON().(int64); !ok {
		t.Errorf("KindInt.JSON() is %T, want int64", integer("i", 1).JSON())
	}
	if _, ok := str("s", "x").JSON().(string); !ok {
		t.Errorf("KindString.JSON() is %T, want string", str("s", "x").JSON())
	}
}

// TestEncodedLen: the length known without encoding is the encoding's, at
// every varint boundary.
func TestEncodedLen(t *testing.T) {
	var payloads []links.Payload
	for _, n := range []int{0, 1, 127, 128, 16383, 16384, 70000} {
		payloads = append(payloads, links.Payload{Values: []links.Value{str(strings.Repeat("n", min(n, 400)+1), strings.Repeat("v", n))}})
		payloads = append(payloads, links.Payload{Unique: true, Values: []links.Value{num("x", strings.Repeat("9", min(n, 400)+1))}})
	}
	for _, i := range []int64{0, 1, -1, 63, -64, 64, -65, 8191, 8192, math.MaxInt64, math.MinInt64} {
		payloads = append(payloads, links.Payload{Values: []links.Value{integer("i", i), boolean("b", i > 0)}})
	}
	many := links.Payload{}
	for i := range 200 {
		many.Values = append(many.Values, str(fmt.Sprint("v", i), "x"))
	}
	payloads = append(payloads, many, links.Payload{})
	for _, p := range payloads {
		if got, want := p.EncodedLen(), len(p.Encode()); got != want {
			t.Errorf("EncodedLen = %d, Encode makes %d bytes (%d values)", got, want, len(p.Values))
		}
	}
}
