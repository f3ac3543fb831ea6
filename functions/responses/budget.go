package responses

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// pageBudget bounds one answer's body. Lambda returns at most 6 MB
// (6,291,456 bytes) of response, and the body travels in it as a JSON
// string, escaped; the headers and the envelope need the rest.
const pageBudget = 5 << 20

// budget counts what a page's body will weigh in Lambda's response.
type budget struct{ left int }

func newBudget(n int) *budget { return &budget{left: n} }

// take counts p and reports whether it still fits; what does not fit is
// not counted (the page ends before it).
func (b *budget) take(p []byte) bool {
	n := escapedSize(p)
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// escapedSize is the length of p as encoding/json writes it inside a
// string, as the Lambda runtime does (HTML-safe escapes included).
func escapedSize(p []byte) int {
	n := 0
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

// encodeJSON marshals v as the edge does (no HTML escaping: the answer is
// JSON, not HTML), without the trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
