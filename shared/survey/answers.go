package survey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Messages of the answer validator. Where DRF has a message for the case,
// it is DRF's.
const (
	MsgUnknownQuestion = "Unknown question."
	MsgTakesNoAnswer   = "This question takes no answer."
	MsgInvalidUpload   = "Invalid upload."
	MsgAnswerRequired  = "This question requires an answer."
	MsgNotShown        = "This question is not shown."
	MsgNotString       = "Not a valid string."
	MsgNull            = "This field may not be null."
	// MsgNullCharacter refuses a string with a NUL (DRF's
	// ProhibitNullCharactersValidator, on every CharField; contract section 3).
	MsgNullCharacter   = "Null characters are not allowed."
	MsgNotInteger      = "A valid integer is required."
	MsgChoiceRepeated  = "Each choice may be given only once."
	MsgRankEveryChoice = "Rank every choice of the question exactly once."
	MsgRowRepeated     = "Each row may be given only once."
	// MsgTooLong and MsgAtMostItems are DRF's refusals of too much (%d:
	// the most); the pages word them for responders, as MsgAtLeastItems.
	MsgTooLong = "Ensure this field has no more than %d characters."
	// MsgAtLeastItems is DRF's refusal of too few items (%d: the fewest);
	// the pages word it for responders.
	MsgAtLeastItems = "Ensure this field has at least %d elements."
	MsgAtMostItems  = "Ensure this field has no more than %d elements."
	msgValueAtLeast = "Ensure this value is greater than or equal to %d."
	msgValueAtMost  = "Ensure this value is less than or equal to %d."
	msgExpectedDict = "Expected a dictionary of items but got type \"%s\"."
	// MsgUnknownAnswerRow and MsgUnknownAnswerColumn refuse a matrix's
	// row or column that is not (or no longer) the question's.
	MsgUnknownAnswerRow    = "Unknown row \"%s\"."
	MsgUnknownAnswerColumn = "Invalid column \"%s\" for row \"%s\"."
)

// CheckAnswers validates a responder's answers (the request's "answers"
// object: element id as a decimal string -> raw JSON) against the survey's
// question elements (every element of the questions list, in display
// order: Layout.QuestionElements) and their display conditions (groupOf:
// Layout.Members, each grouped question's group).
//
// It returns the canonical answers by element id, as compact JSON: a
// trimmed string for type 2; a JSON array of choice ids for 3 and 4 (in the
// element's choice order) and 5 (in the responder's order); a choice id for
// 10; an integer for 6 and 7; an object {"<row id>": <column id>} for 12
// (in the element's row order). A null, an empty (or blank) string, an
// empty list or an empty object is no answer and is left out.
//
// Otherwise it returns an *Error with Code EINVALID and Fields
// {"answers": {"<id>": [msg, ...]}} reporting every problem at once:
// unknown element id, an answer to a type that takes none, an answer to a
// type 11 question that is not an upload id ("Invalid upload."; the
// upload itself is checked by the caller, shared/uploads), an answer to a question its conditions
// hide ("This question is not shown."), a missing required answer of a
// shown question, a wrong JSON type, a choice not of the element, min/max
// selections, an out-of-range scale or rating, a too long text, a ranking
// that is not a permutation of the choices, an unknown matrix row or
// column. The answer to a type 11 question stays the upload id (a JSON
// string) here: its file is the caller's to check and store.
func CheckAnswers(questions []Element, groupOf map[int64]int64, answers map[string]json.RawMessage) (map[int64]json.RawMessage, error) {
	out, _, err := checkAnswers(questions, groupOf, answers, nil)
	return out, err
}

// CheckAsked is CheckAnswers for a form that asks page by page (the hosted
// page's plain form, contract section 15): an answer to a question its
// rules hide is dropped, as the page's script clears it, not refused; and
// only the questions asked so far (asked) must be answered when required.
// It also returns which questions are shown under the answers it keeps.
func CheckAsked(questions []Element, groupOf map[int64]int64, answers map[string]json.RawMessage, asked map[int64]bool) (map[int64]json.RawMessage, map[int64]bool, error) {
	if asked == nil {
		asked = map[int64]bool{}
	}
	return checkAnswers(questions, groupOf, answers, asked)
}

// checkAnswers is CheckAnswers, or CheckAsked when asked is not nil.
func checkAnswers(questions []Element, groupOf map[int64]int64, answers map[string]json.RawMessage, asked map[int64]bool) (map[int64]json.RawMessage, map[int64]bool, error) {
	byKey := make(map[string]int, len(questions))
	logic := false
	for i := range questions {
		byKey[strconv.FormatInt(questions[i].ID, 10)] = i
		logic = logic || len(questions[i].Conditions) > 0
	}
	out := make(map[int64]json.RawMessage, len(answers))
	errs := Fields{}
	for key, raw := range answers {
		i, ok := byKey[key]
		if !ok {
			errs.Add(key, MsgUnknownQuestion)
			continue
		}
		e := &questions[i]
		canon, msgs := e.checkAnswer(raw)
		switch {
		case len(msgs) > 0:
			errs[key] = msgs
		case canon != nil:
			out[e.ID] = canon
		}
	}
	var shown map[int64]bool
	if logic || asked != nil {
		shown = Shown(questions, groupOf, out)
	}
	for i := range questions {
		e := &questions[i]
		key := strconv.FormatInt(e.ID, 10)
		if shown != nil && !shown[e.ID] {
			switch _, sent := answers[key]; {
			case asked != nil:
				delete(errs, key) // cleared: nothing of it counts
			case sent && !blankAnswer(bytes.TrimSpace(answers[key])):
				errs[key] = []string{MsgNotShown}
			}
			delete(out, e.ID)
			continue
		}
		if !e.AnswerRequired || !e.Type.Answerable() || asked != nil && !asked[e.ID] {
			continue
		}
		if _, answered := out[e.ID]; !answered && errs[key] == nil {
			errs.Add(key, MsgAnswerRequired)
		}
	}
	if len(errs) > 0 {
		return nil, nil, &Error{Code: EINVALID, Fields: map[string]any{"answers": errs}}
	}
	return out, shown, nil
}

// MaxUploadID bounds an upload id (a sealed token) as an answer.
const MaxUploadID = 1000

// checkAnswer validates one answer to e: its canonical form, nil for no
// answer, or the messages of what is wrong with it.
func (e *Element) checkAnswer(raw json.RawMessage) (json.RawMessage, []string) {
	raw = bytes.TrimSpace(raw)
	if blankAnswer(raw) {
		return nil, nil
	}
	if ContainsNUL(raw) {
		return nil, []string{MsgNullCharacter}
	}
	switch e.Type {
	case TypeText:
		return e.checkText(raw)
	case TypeMultipleChoice, TypePictureChoice:
		return e.checkSelection(raw)
	case TypeRanking:
		return e.checkRanking(raw)
	case TypeDropdown:
		id, ok := parseAnswerInt(raw)
		if !ok {
			return nil, []string{MsgNotInteger}
		}
		if _, ok := e.Choice(id); !ok {
			return nil, []string{InvalidPK(id)}
		}
		return appendInt(nil, id), nil
	case TypeOpinionScale:
		return checkRange(raw, e.ScaleMin, e.ScaleMax)
	case TypeRating:
		return checkRange(raw, 1, e.RatingMax)
	case TypeMatrix:
		return e.checkMatrix(raw)
	case TypeFileUpload:
		id, ok := decodeString(raw)
		if !ok || len(id) > MaxUploadID || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			return nil, []string{MsgInvalidUpload}
		}
		canon, _ := json.Marshal(id)
		return canon, nil
	}
	return nil, []string{MsgTakesNoAnswer}
}

// blankAnswer reports whether raw is no answer: empty, null, a string that
// is blank once trimmed, [] or {}.
func blankAnswer(raw []byte) bool {
	if len(raw) == 0 {
		return true
	}
	switch raw[0] {
	case 'n':
		return string(raw) == "null"
	case '"':
		s, ok := decodeString(raw)
		return ok && strings.TrimSpace(s) == ""
	case '[', '{':
		rest := bytes.TrimLeft(raw[1:], jsonSpace)
		return len(rest) > 0 && rest[0] == raw[0]+2 // ']' and '}' follow '[' and '{' by two
	}
	return false
}

// ContainsNUL reports whether a JSON value holds a NUL character in one
// of its strings (escaped as \u0000; a raw NUL byte is no JSON at all).
// Outside strings JSON has no backslash, so a scan of the escapes is
// enough: the CSV and the store never see a NUL (contract section 3).
func ContainsNUL(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case 0:
			return true
		case '\\':
			if i+5 < len(raw) && raw[i+1] == 'u' && string(raw[i+2:i+6]) == "0000" {
				return true
			}
			i++ // the escaped character, a backslash included
		}
	}
	return false
}

// jsonSpace is what JSON counts as white space.
const jsonSpace = " \t\r\n"

// decodeString decodes a JSON string; one without escapes or control
// characters is taken as it is, without the decoder's reflection.
func decodeString(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		in := raw[1 : len(raw)-1]
		plain := utf8.Valid(in)
		for _, c := range in {
			if c < 0x20 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(in), true
		}
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (e *Element) checkText(raw []byte) (json.RawMessage, []string) {
	s, ok := decodeString(raw)
	if !ok {
		return nil, []string{MsgNotString}
	}
	s = strings.TrimSpace(s)
	if max := e.MaxLength; max > 0 && int64(utf8.RuneCountInString(s)) > max {
		return nil, []string{fmt.Sprintf(MsgTooLong, max)}
	}
	return marshalString(s), nil
}

// choiceIDs decodes a list of choice ids of e, each once; msgs says what
// is wrong.
func (e *Element) choiceIDs(raw []byte) (ids []int64, msgs []string) {
	if raw[0] != '[' {
		return nil, []string{MsgNotAList(pythonType(raw))}
	}
	if ids, ok := plainInts(raw); ok {
		return e.ownChoices(ids)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []string{MsgNotAList("str")}
	}
	seen := make(map[int64]bool, len(items))
	for _, it := range items {
		id, ok := parseAnswerInt(bytes.TrimSpace(it))
		switch {
		case !ok:
			msgs = appendOnce(msgs, MsgNotInteger)
		case seen[id]:
			msgs = appendOnce(msgs, MsgChoiceRepeated)
		default:
			seen[id] = true
			if _, ok := e.Choice(id); !ok {
				msgs = append(msgs, InvalidPK(id))
			}
			ids = append(ids, id)
		}
	}
	return ids, msgs
}

// ownChoices checks that ids are choices of e, each once.
func (e *Element) ownChoices(ids []int64) ([]int64, []string) {
	var msgs []string
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			msgs = appendOnce(msgs, MsgChoiceRepeated)
		} else if _, ok := e.Choice(id); !ok {
			msgs = append(msgs, InvalidPK(id))
		}
	}
	return ids, msgs
}

// plainInts parses a JSON array of plain decimal integers ("[1, 2]")
// without the decoder's reflection; ok is false for anything else, which
// the general path then reads.
func plainInts(raw []byte) ([]int64, bool) {
	var ids []int64
	i := 1
	skip := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
			i++
		}
	}
	skip()
	if i < len(raw) && raw[i] == ']' {
		return ids, i == len(raw)-1
	}
	for {
		start := i
		if i < len(raw) && raw[i] == '-' {
			i++
		}
		digits := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		n := i - digits
		if n == 0 || n > 18 || (n > 1 && raw[digits] == '0') {
			return nil, false
		}
		v, err := strconv.ParseInt(string(raw[start:i]), 10, 64)
		if err != nil {
			return nil, false
		}
		ids = append(ids, v)
		skip()
		switch {
		case i < len(raw) && raw[i] == ',':
			i++
			skip()
		case i == len(raw)-1 && raw[i] == ']':
			return ids, true
		default:
			return nil, false
		}
	}
}

// checkSelection validates a multiple or picture choice answer: one choice
// unless allow_multiple_select, then within min/max (0 = no limit).
func (e *Element) checkSelection(raw []byte) (json.RawMessage, []string) {
	ids, msgs := e.choiceIDs(raw)
	if len(msgs) > 0 {
		return nil, msgs
	}
	switch {
	case !e.AllowMultipleSelect && len(ids) > 1:
		return nil, []string{fmt.Sprintf(MsgAtMostItems, 1)}
	case e.AllowMultipleSelect && e.MinSelectableChoices > 0 && int64(len(ids)) < e.MinSelectableChoices:
		return nil, []string{fmt.Sprintf(MsgAtLeastItems, e.MinSelectableChoices)}
	case e.AllowMultipleSelect && e.MaxSelectableChoices > 0 && int64(len(ids)) > e.MaxSelectableChoices:
		return nil, []string{fmt.Sprintf(MsgAtMostItems, e.MaxSelectableChoices)}
	}
	// Canonical order is the element's, so equal selections are equal bytes.
	order := func(id int64) int { c, _ := e.Choice(id); return c.Order }
	slices.SortFunc(ids, func(a, b int64) int { return order(a) - order(b) })
	return appendInts(ids), nil
}

// checkRanking validates a ranking: every choice of the element once, in
// the responder's order.
func (e *Element) checkRanking(raw []byte) (json.RawMessage, []string) {
	ids, msgs := e.choiceIDs(raw)
	if len(msgs) > 0 {
		return nil, msgs
	}
	if len(ids) != len(e.Choices) {
		return nil, []string{MsgRankEveryChoice}
	}
	return appendInts(ids), nil
}

// checkRange validates an integer from lo to hi.
func checkRange(raw []byte, lo, hi int64) (json.RawMessage, []string) {
	n, ok := parseAnswerInt(raw)
	switch {
	case !ok:
		return nil, []string{MsgNotInteger}
	case n < lo:
		return nil, []string{fmt.Sprintf(msgValueAtLeast, lo)}
	case n > hi:
		return nil, []string{fmt.Sprintf(msgValueAtMost, hi)}
	}
	return appendInt(nil, n), nil
}

// checkMatrix validates {"<row id>": <column id>}: rows and columns of the
// element, keys in their canonical decimal form.
func (e *Element) checkMatrix(raw []byte) (json.RawMessage, []string) {
	if raw[0] != '{' {
		return nil, []string{MsgNotAMap(pythonType(raw))}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, []string{MsgNotAMap("str")}
	}
	var msgs []string
	cols := make(map[int64]int64, len(m)) // row id -> column id
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // messages in a stable order
	for _, k := range keys {
		row, err := strconv.ParseInt(k, 10, 64)
		if err != nil || strconv.FormatInt(row, 10) != k {
			msgs = append(msgs, fmt.Sprintf(MsgUnknownAnswerRow, k))
			continue
		}
		if _, ok := namedItem(e.Rows, row); !ok {
			msgs = append(msgs, fmt.Sprintf(MsgUnknownAnswerRow, k))
			continue
		}
		v := bytes.TrimSpace(m[k])
		col, ok := parseAnswerInt(v)
		if !ok {
			msgs = appendOnce(msgs, MsgNotInteger)
			continue
		}
		if _, ok := namedItem(e.Columns, col); !ok {
			msgs = append(msgs, fmt.Sprintf(MsgUnknownAnswerColumn, string(v), k))
			continue
		}
		cols[row] = col
	}
	if len(msgs) > 0 {
		return nil, msgs
	}
	out := []byte{'{'}
	for _, r := range e.Rows {
		col, ok := cols[r.ID]
		if !ok {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = strconv.AppendInt(out, r.ID, 10)
		out = append(out, '"', ':')
		out = strconv.AppendInt(out, col, 10)
	}
	return append(out, '}'), nil
}

// parseAnswerInt reads a JSON number with an integral value (5, 5.0, 5e0);
// strings, booleans, fractions and numbers beyond int64 are not integers.
func parseAnswerInt(raw []byte) (int64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return 0, false
	}
	if len(raw) < 19 && !bytes.ContainsAny(raw, ".eE") {
		digits := bytes.TrimPrefix(raw, []byte("-"))
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && len(digits) > 0 && (len(digits) == 1 || digits[0] != '0') {
			return n, true
		}
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// pythonType names raw's JSON type as DRF's messages do.
func pythonType(raw []byte) string {
	switch raw[0] {
	case '"':
		return "str"
	case '{':
		return "dict"
	case '[':
		return "list"
	case 't', 'f':
		return "bool"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "float"
	}
	return "int"
}

func appendOnce(msgs []string, m string) []string {
	if slices.Contains(msgs, m) {
		return msgs
	}
	return append(msgs, m)
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func appendInts(ids []int64) json.RawMessage {
	out := make([]byte, 0, 2+len(ids)*11)
	out = append(out, '[')
	for i, id := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendInt(out, id, 10)
	}
	return append(out, ']')
}

// marshalString encodes s as compact JSON without HTML escaping, so that a
// stored answer is the text the responder sent.
func marshalString(s string) json.RawMessage {
	if !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || r == '"' || r == '\\' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError
	}) {
		return json.RawMessage(`"` + s + `"`)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// MsgNotAList is DRF's message for a list field given a value of another
// JSON type, kind named as Python names it (api.JSONKind: dict, str, int,
// float, bool, NoneType): one place for every list field's.
func MsgNotAList(kind string) string {
	return fmt.Sprintf("Expected a list of items but got type %q.", kind)
}

// MsgNotAMap is DRF's message for a DictField (a map of items by key)
// given a value of another JSON type, kind named as MsgNotAList's.
func MsgNotAMap(kind string) string {
	return fmt.Sprintf(msgExpectedDict, kind)
}

// MsgNotADict is DRF's message for an object (a serializer, nested or the
// whole body: api.NotADict) given a value of another JSON type, under
// its non_field_errors; kind named as MsgNotAList's.
func MsgNotADict(kind string) string {
	return "Invalid data. Expected a dictionary, but got " + kind + "."
}
