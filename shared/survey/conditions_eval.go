package survey

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Shown decides which of questions (the questions list in display order:
// Layout.QuestionElements) a responder meets, given their canonical
// answers (CheckAnswers' form). One pass in display order: a rule names
// only earlier elements, so each first operand's visibility is known when
// it is read; the answer of a hidden element counts as no answer; a
// group's members are hidden with it. groupOf maps a member to its group.
//
// The evaluation of display conditions. The hosted page's script
// (functions/pages/web/logic.js) is the same algorithm, step for step;
// testdata/conditions_cases.json holds the cases both must pass.
func Shown(questions []Element, groupOf map[int64]int64, answers map[int64]json.RawMessage) map[int64]bool {
	shown := make(map[int64]bool, len(questions))
	byID := make(map[int64]*Element, len(questions))
	for i := range questions {
		byID[questions[i].ID] = &questions[i]
	}
	parsed := make(map[int64]*answerValue, 8)
	read := func(id int64) *answerValue {
		if a, ok := parsed[id]; ok {
			return a
		}
		var a *answerValue
		if e := byID[id]; e != nil && shown[id] {
			if raw, ok := answers[id]; ok {
				a = parseAnswerValue(e.Type, raw)
			}
		}
		parsed[id] = a
		return a
	}
	for i := range questions {
		e := &questions[i]
		if g, ok := groupOf[e.ID]; ok && !shown[g] {
			if _, present := byID[g]; present {
				continue
			}
		}
		shown[e.ID] = holds(e.Conditions, byID, read)
	}
	return shown
}

// holds joins the rules: and binds tighter than or, so the rules are
// or-ed runs of and-ed rules, each run started by a rule whose logical
// operator is or.
func holds(rules []Condition, byID map[int64]*Element, read func(int64) *answerValue) bool {
	if len(rules) == 0 {
		return true
	}
	run := true
	for i, c := range rules {
		if i > 0 && c.LogicalOperator != nil && *c.LogicalOperator == LogicOr {
			if run {
				return true
			}
			run = true
		}
		if run {
			run = c.holds(byID[c.FirstOperand], read(c.FirstOperand))
		}
	}
	return run
}

// answerValue is a canonical answer read once for the rules that name it.
type answerValue struct {
	ids    []int64         // choices (3, 4, 5, 10)
	num    float64         // scale, rating, or text read as a decimal
	numOK  bool            // num holds a value
	text   string          // text, trimmed and folded
	matrix map[int64]int64 // row -> column
}

func parseAnswerValue(t ElementType, raw json.RawMessage) *answerValue {
	raw = bytes.TrimSpace(raw)
	if blankAnswer(raw) {
		return nil
	}
	a := &answerValue{}
	switch t {
	case TypeText:
		s, ok := decodeString(raw)
		if !ok {
			return nil
		}
		a.text = foldText(s)
		a.num, a.numOK = ParseDecimal(s)
	case TypeMultipleChoice, TypePictureChoice, TypeRanking:
		ids, ok := plainInts(raw)
		if !ok {
			if json.Unmarshal(raw, &ids) != nil {
				return nil
			}
		}
		a.ids = ids
	case TypeDropdown:
		id, ok := parseAnswerInt(raw)
		if !ok {
			return nil
		}
		a.ids = []int64{id}
	case TypeOpinionScale, TypeRating:
		n, ok := parseAnswerInt(raw)
		if !ok {
			return nil
		}
		a.num, a.numOK = float64(n), true
	case TypeMatrix:
		var m map[string]int64
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		a.matrix = make(map[int64]int64, len(m))
		for k, v := range m {
			if row, err := strconv.ParseInt(k, 10, 64); err == nil {
				a.matrix[row] = v
			}
		}
	}
	return a
}

// holds evaluates one rule against its first operand's answer (nil: no
// answer, or hidden). Without an answer only "not answered", "not equals"
// and "excludes" hold.
func (c Condition) holds(first *Element, a *answerValue) bool {
	op := c.ArithmeticOperator
	if a == nil || first == nil {
		return op == OpNotAnswered || op == OpNotEquals || op == OpExcludes
	}
	s := c.SecondOperand
	switch op {
	case OpAnswered:
		return true
	case OpNotAnswered:
		return false
	case OpNotEquals:
		return !c.equals(first, a)
	case OpEquals:
		return c.equals(first, a)
	case OpIncludes, OpExcludes:
		in := false
		if s != nil && s.ID != nil {
			for _, id := range a.ids {
				in = in || id == *s.ID
			}
		}
		return in == (op == OpIncludes)
	case OpContains:
		return s != nil && s.Value != nil && strings.Contains(a.text, foldText(*s.Value))
	case OpLess, OpAtMost, OpGreater, OpAtLeast:
		if s == nil || s.Value == nil || !a.numOK {
			return false
		}
		v, ok := ParseDecimal(*s.Value)
		if !ok {
			return false
		}
		switch op {
		case OpLess:
			return a.num < v
		case OpAtMost:
			return a.num <= v
		case OpGreater:
			return a.num > v
		}
		return a.num >= v
	}
	return false
}

// equals is operator 1 for the first operand's type: the one choice
// chosen, the matrix row's column, the number, or the text (trimmed,
// case-insensitive).
func (c Condition) equals(first *Element, a *answerValue) bool {
	s := c.SecondOperand
	if s == nil {
		return false
	}
	switch {
	case first.Type == TypeMatrix:
		if s.ID == nil || s.Value == nil {
			return false
		}
		col, ok := ParseDecimal(*s.Value)
		got, answered := a.matrix[*s.ID]
		return ok && answered && float64(got) == col
	case first.Type.Takes("choices"):
		return s.ID != nil && len(a.ids) == 1 && a.ids[0] == *s.ID
	case first.Type == TypeText:
		return s.Value != nil && a.text == foldText(*s.Value)
	}
	if s.Value == nil || !a.numOK {
		return false
	}
	v, ok := ParseDecimal(*s.Value)
	return ok && a.num == v
}

// decimalPattern is a decimal as rules read it: an optional sign, digits
// with an optional fraction, no exponent, no hex, no spaces inside.
var decimalPattern = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// ParseDecimal reads s (trimmed; Persian and Arabic-Indic digits and the
// Arabic decimal separator read as ASCII) as a decimal number.
func ParseDecimal(s string) (float64, bool) {
	s = trimSpace(s)
	if len(s) > 400 {
		return 0, false
	}
	if !isASCII(s) {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r >= '۰' && r <= '۹':
				r = '0' + (r - '۰')
			case r >= '٠' && r <= '٩':
				r = '0' + (r - '٠')
			case r == '٫':
				r = '.'
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if !decimalPattern.MatchString(s) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(s, 64) // out of range gives ±Inf, as JavaScript's parseFloat does
	return f, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// trimSpace trims what Go's unicode.IsSpace counts as space; logic.js
// trims the same set (JavaScript's own trim differs at U+0085 and U+FEFF).
func trimSpace(s string) string { return strings.TrimSpace(s) }

// foldText is text as rules compare it: trimmed, each code point lowered
// on its own (no context, so a final sigma folds as any sigma; a lowering
// into several code points keeps the first, as logic.js does).
func foldText(s string) string {
	s = trimSpace(s)
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return strings.Map(unicode.ToLower, s)
}
