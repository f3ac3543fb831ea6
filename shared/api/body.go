package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"surveyservice/shared/survey"
)

// Body size limits: 1 MiB, and 6 MiB for the two routes that take 5,000
// items (personalised links and authentication codes).
const (
	MaxBody     = 1 << 20
	MaxBulkBody = 6 << 20
)

// ReadJSON reads a JSON request body of at most limit bytes and returns it
// as one JSON value, or nil when the body is empty. It answers 415 for a
// content type other than JSON and for a body without a content type (as
// DRF does: a cross-site fetch sends one without a preflight), 413 over
// the limit, and 400 {"detail": "JSON parse error - ..."} for anything
// that is not exactly one JSON value.
func ReadJSON(r *http.Request, limit int64) (json.RawMessage, error) {
	raw, _, err := ReadOptionalJSON(r, limit)
	return raw, err
}

// ReadBody reads a JSON request body of at most limit bytes as it came,
// with ReadJSON's 415 and 413 but without parsing it: for a route that
// parses a large body itself, and calls ParseJSON on what it cannot.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	data, _, err := readBody(r, limit)
	return data, err
}

// ParseJSON checks that data is one JSON value, with ReadJSON's errors, and
// returns it trimmed (nil when empty).
func ParseJSON(data []byte) (json.RawMessage, error) {
	return parseJSON(data)
}

// ReadOptionalJSON is ReadJSON that also tells a request with no body at
// all (zero bytes: sent is false) from one whose body is JSON whitespace,
// for routes where "no body" means something (DELETE of every code).
func ReadOptionalJSON(r *http.Request, limit int64) (raw json.RawMessage, sent bool, err error) {
	data, sent, err := readBody(r, limit)
	if err != nil || !sent {
		return nil, sent, err
	}
	raw, err = parseJSON(data)
	return raw, true, err
}

// readBody checks the content type and the size and reads the body; sent
// is false for no body at all.
func readBody(r *http.Request, limit int64) (data []byte, sent bool, err error) {
	ct := r.Header.Get("Content-Type")
	noType := survey.Errorf(survey.EMEDIATYPE, "Unsupported media type %q in request.", "")
	if ct == "" && r.ContentLength > 0 {
		return nil, true, noType
	}
	if ct != "" {
		media, _, err := mime.ParseMediaType(ct)
		if err != nil || !(media == "application/json" || (strings.HasPrefix(media, "application/") && strings.HasSuffix(media, "+json"))) {
			name := media
			if err != nil {
				name = ct
			}
			return nil, true, survey.Errorf(survey.EMEDIATYPE, "Unsupported media type %q in request.", name)
		}
	}
	tooLarge := survey.Errorf(survey.ETOOLARGE, "Request body is larger than %s.", sizeName(limit))
	if r.ContentLength > limit {
		return nil, true, tooLarge
	}
	if r.Body == nil {
		return nil, false, nil
	}
	// A declared length sizes the buffer once (io.ReadAll grows it by
	// doubling: a 400 KB body cost about a megabyte of copies).
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	data = buf.Bytes()
	if err != nil {
		return nil, true, survey.Errorf(survey.EINVALID, "Could not read the request body.")
	}
	if len(data) == 0 {
		return nil, false, nil
	}
	if ct == "" {
		return nil, true, noType
	}
	if int64(len(data)) > limit {
		return nil, true, tooLarge
	}
	if err := checkUTF8(data); err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// checkUTF8 refuses a body that is not UTF-8 (RFC 8259 section 8.1), as
// DRF's parser does: encoding/json would silently read each bad byte as
// U+FFFD and store what the client never sent. Every JSON body passes
// through readBody, so this is the one place that checks.
func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return survey.Errorf(survey.EINVALID, "JSON parse error - invalid UTF-8 byte 0x%02x at offset %d", data[off], off)
}

// parseJSON is one JSON value or the error that words its first problem.
func parseJSON(data []byte) (json.RawMessage, error) {
	trimmed := bytes.Trim(data, jsonSpace)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if json.Valid(trimmed) {
		return trimmed, nil // the common case: one pass, no copy
	}
	// Invalid: decode to find and word the first problem.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, parseError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, survey.Errorf(survey.EINVALID, "JSON parse error - extra data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// jsonSpace is JSON's whitespace; other Unicode spaces are not JSON.
const jsonSpace = " \t\r\n"

func parseError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return survey.Errorf(survey.EINVALID, "JSON parse error - %s at offset %d", syn.Error(), syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return survey.Errorf(survey.EINVALID, "JSON parse error - unexpected end of input")
	}
	return survey.Errorf(survey.EINVALID, "JSON parse error - %s", strings.TrimPrefix(err.Error(), "json: "))
}

func sizeName(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// DecodeObject reads a body that must be a JSON object (an empty body counts
// as {}), and returns its fields undecoded. Another top-level type answers
// DRF's non_field_errors.
func DecodeObject(r *http.Request, limit int64) (map[string]json.RawMessage, error) {
	raw, err := ReadJSON(r, limit)
	if err != nil {
		return nil, err
	}
	return decodeObject(raw)
}

// ParseObject is DecodeObject of a body already read (see ReadBody), for a
// route that needs the body's bytes as well as its fields.
func ParseObject(data []byte) (map[string]json.RawMessage, error) {
	raw, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeObject(raw)
}

func decodeObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if raw == nil {
		return map[string]json.RawMessage{}, nil
	}
	if kind := JSONKind(raw); kind != "dict" {
		return nil, NotADict(kind)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, parseError(err)
	}
	return obj, nil
}

// NotADict is DRF's answer to a body of the wrong top-level type.
func NotADict(kind string) error {
	if kind == "NoneType" {
		return &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"non_field_errors": []string{"No data provided"}}}
	}
	return &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"non_field_errors": []string{survey.MsgNotADict(kind)}}}
}

// JSONKind names the type of a JSON value as DRF's messages do (Python's
// names): dict, list, str, int, float, bool or NoneType.
func JSONKind(raw json.RawMessage) string {
	t := bytes.Trim(raw, jsonSpace)
	if len(t) == 0 {
		return "NoneType"
	}
	switch t[0] {
	case '{':
		return "dict"
	case '[':
		return "list"
	case '"':
		return "str"
	case 't', 'f':
		return "bool"
	case 'n':
		return "NoneType"
	}
	if bytes.ContainsAny(t, ".eE") {
		return "float"
	}
	return "int"
}
