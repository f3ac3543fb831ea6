package survey

import (
	"fmt"
	"strconv"
)

// MaxConditions bounds an element's rules.
//
// Display conditions (contract section 15): the rules that decide whether
// an element of the questions list is shown. This file holds the rules'
// shape and their validation; conditions_eval.go evaluates them, the same
// way as the hosted page's script (functions/pages/web/logic.js), which
// testdata/conditions_cases.json proves.
const MaxConditions = 20

// Arithmetic operators of a rule.
const (
	OpEquals      = 1
	OpNotEquals   = 2
	OpLess        = 3
	OpAtMost      = 4
	OpGreater     = 5
	OpAtLeast     = 6
	OpContains    = 7
	OpAnswered    = 8
	OpNotAnswered = 9
	OpIncludes    = 10
	OpExcludes    = 11
)

// Logical operators: how a rule joins the rules before it.
const (
	LogicAnd = 1
	LogicOr  = 2
)

// Types of a rule's second operand.
const (
	OperandChoice = 1
	OperandNumber = 2
	OperandText   = 3
)

// MaxOperandValue bounds a second operand's value, as a text answer.
const MaxOperandValue = MaxMaxLength

var operatorNames = map[int64]string{
	OpEquals: "equals", OpNotEquals: "not equals", OpLess: "less than", OpAtMost: "at most",
	OpGreater: "greater than", OpAtLeast: "at least", OpContains: "contains", OpAnswered: "answered",
	OpNotAnswered: "not answered", OpIncludes: "includes", OpExcludes: "excludes",
}

// Condition is one display rule of an element: FirstOperand (an earlier
// answerable element) compared by ArithmeticOperator with SecondOperand,
// joined to the rules before it by LogicalOperator (ignored on the first).
type Condition struct {
	FirstOperand       int64    `json:"first_operand"`
	ArithmeticOperator int64    `json:"arithmetic_operator"`
	SecondOperand      *Operand `json:"second_operand"`
	LogicalOperator    *int64   `json:"logical_operator"`
}

// Operand is the right-hand side of a rule: a choice, row or column by ID
// (Type 1; for a matrix Value is the column's id), a decimal number in
// Value (Type 2) or a text in Value (Type 3).
type Operand struct {
	ID    *int64  `json:"id"`
	Type  int64   `json:"type"`
	Value *string `json:"value"`
}

// operatorsOf lists the operators that compare answers to e (contract
// section 15's table); none for an element that takes no answer.
func operatorsOf(e *Element) []int64 {
	switch e.Type {
	case TypeMultipleChoice, TypePictureChoice, TypeDropdown:
		if e.AllowMultipleSelect && e.Type != TypeDropdown {
			return []int64{OpIncludes, OpExcludes, OpAnswered, OpNotAnswered}
		}
		return []int64{OpEquals, OpNotEquals, OpIncludes, OpExcludes, OpAnswered, OpNotAnswered}
	case TypeRanking, TypeFileUpload:
		return []int64{OpAnswered, OpNotAnswered}
	case TypeOpinionScale, TypeRating:
		return []int64{OpEquals, OpNotEquals, OpLess, OpAtMost, OpGreater, OpAtLeast, OpAnswered, OpNotAnswered}
	case TypeText:
		return []int64{OpEquals, OpNotEquals, OpLess, OpAtMost, OpGreater, OpAtLeast, OpContains, OpAnswered, OpNotAnswered}
	case TypeMatrix:
		return []int64{OpEquals, OpNotEquals, OpAnswered, OpNotAnswered}
	}
	return nil
}

// Messages of refused rules.
const (
	MsgConditionsNotTaken   = "Only questions, statements and question groups take conditions."
	MsgTooManyConditions    = "Ensure this field has no more than 20 elements."
	MsgFirstOperandUnknown  = "first_operand must be an answerable question of this survey."
	MsgFirstOperandNotPrior = "first_operand must be placed before this element: a rule may only name earlier questions."
	MsgLogicalOperator      = "logical_operator must be 1 (and) or 2 (or)."
	MsgOperandNeeded        = "This operator needs a second_operand."
	MsgOperandDecimal       = "second_operand must be {\"type\": 2, \"value\": \"<decimal number>\"} for this operator."
	MsgOperandText          = "second_operand must be {\"type\": 3, \"value\": \"<text>\"} for this operator."
	msgOperandChoice        = "second_operand must be {\"type\": 1, \"id\": <a choice of element %d>}."
	msgOperandMatrix        = "second_operand must be {\"type\": 1, \"id\": <a row of element %d>, \"value\": \"<a column id of element %d>\"}."
	msgOperatorNotFor       = "Operator %d (%s) does not apply to element %d (%s)."
	msgOperatorUnknown      = "arithmetic_operator must be one of 1-11, not %d."
)

// ValidateConditions checks e's rules against the survey as it would be
// stored: order is the questions list in display order
// (Layout.QuestionElements' ids), elements the survey's elements with e
// as it would be stored. It returns EINVALID on "conditions", one entry per
// refused rule by its 0-based index ({"conditions": {"2": [msg]}}), or nil.
func ValidateConditions(e Element, order []int64, elements map[int64]Element) error {
	if len(e.Conditions) == 0 {
		return nil
	}
	if e.Type.List() != ListQuestions {
		return FieldError("conditions", MsgConditionsNotTaken)
	}
	if len(e.Conditions) > MaxConditions {
		return FieldError("conditions", MsgTooManyConditions)
	}
	pos := make(map[int64]int, len(order))
	for i, id := range order {
		pos[id] = i
	}
	self, placed := pos[e.ID]
	errs := Fields{}
	for i, c := range e.Conditions {
		key := strconv.Itoa(i)
		first, ok := elements[c.FirstOperand]
		_, inQuestions := pos[c.FirstOperand]
		switch {
		case !ok || !inQuestions || !first.Type.Answerable() || c.FirstOperand == e.ID:
			errs.Add(key, MsgFirstOperandUnknown)
			continue
		case placed && pos[c.FirstOperand] >= self:
			errs.Add(key, MsgFirstOperandNotPrior)
			continue
		}
		if i > 0 && (c.LogicalOperator == nil || (*c.LogicalOperator != LogicAnd && *c.LogicalOperator != LogicOr)) ||
			i == 0 && c.LogicalOperator != nil && *c.LogicalOperator != LogicAnd && *c.LogicalOperator != LogicOr {
			errs.Add(key, MsgLogicalOperator)
		}
		if msg := c.checkOperands(&first); msg != "" {
			errs.Add(key, msg)
		}
	}
	if len(errs) > 0 {
		return &Error{Code: EINVALID, Fields: map[string]any{"conditions": errs}}
	}
	return nil
}

// checkOperands is what is wrong with the rule's operator and second
// operand for its first operand, or "".
func (c Condition) checkOperands(first *Element) string {
	op := c.ArithmeticOperator
	if _, ok := operatorNames[op]; !ok {
		return fmt.Sprintf(msgOperatorUnknown, op)
	}
	allowed := false
	for _, o := range operatorsOf(first) {
		allowed = allowed || o == op
	}
	if !allowed {
		return fmt.Sprintf(msgOperatorNotFor, op, operatorNames[op], first.ID, first.Type)
	}
	s := c.SecondOperand
	switch {
	case op == OpAnswered || op == OpNotAnswered:
		return ""
	case first.Type == TypeMatrix:
		bad := fmt.Sprintf(msgOperandMatrix, first.ID, first.ID)
		if s == nil || s.Type != OperandChoice || s.ID == nil || s.Value == nil {
			return bad
		}
		col, ok := ParseDecimal(*s.Value)
		if _, row := namedItem(first.Rows, *s.ID); !row || !ok || col != float64(int64(col)) {
			return bad
		}
		if _, ok := namedItem(first.Columns, int64(col)); !ok {
			return bad
		}
	case first.Type.Takes("choices"):
		if s == nil || s.Type != OperandChoice || s.ID == nil {
			return fmt.Sprintf(msgOperandChoice, first.ID)
		}
		if _, ok := first.Choice(*s.ID); !ok {
			return fmt.Sprintf(msgOperandChoice, first.ID)
		}
	case op == OpContains || first.Type == TypeText && (op == OpEquals || op == OpNotEquals):
		if s == nil || s.Type != OperandText || s.Value == nil || len([]rune(*s.Value)) > MaxOperandValue {
			return MsgOperandText
		}
	default: // numbers: scales, ratings, and text read as a decimal
		if s == nil || s.Type != OperandNumber || s.Value == nil {
			return MsgOperandDecimal
		}
		if _, ok := ParseDecimal(*s.Value); !ok {
			return MsgOperandDecimal
		}
	}
	return ""
}

// ConditionRef is an element whose rules name something another change
// would remove or reorder.
type ConditionRef struct {
	// Element is the element whose conditions hold the rule.
	Element int64
	// Item is the choice, row or column the rule names, or 0.
	Item int64
}

// UsersOf lists the elements (in the order of elements given) whose rules
// name element id as their first operand.
func UsersOf(id int64, elements []Element) []int64 {
	var out []int64
	for i := range elements {
		for _, c := range elements[i].Conditions {
			if c.FirstOperand == id {
				out = append(out, elements[i].ID)
				break
			}
		}
	}
	return out
}

// ItemsNamed returns, for the rules in elements that name element id, the
// choice, row or column ids they name (a matrix rule names a row and a
// column), each with the element whose rule names it.
func ItemsNamed(id int64, elements []Element) []ConditionRef {
	var out []ConditionRef
	for i := range elements {
		for _, c := range elements[i].Conditions {
			if c.FirstOperand != id || c.SecondOperand == nil || c.ArithmeticOperator == OpAnswered || c.ArithmeticOperator == OpNotAnswered {
				continue
			}
			s := c.SecondOperand
			if s.ID != nil {
				out = append(out, ConditionRef{Element: elements[i].ID, Item: *s.ID})
			}
			if s.Type == OperandChoice && s.Value != nil {
				if col, ok := ParseDecimal(*s.Value); ok && col == float64(int64(col)) {
					out = append(out, ConditionRef{Element: elements[i].ID, Item: int64(col)})
				}
			}
		}
	}
	return out
}

// RemapConditions rewrites the element ids and choice, row and column ids
// the rules name through ids (old id -> new id), as a copy of a survey
// needs: an id missing from ids is kept. A matrix rule's column (in Value)
// is remapped too.
func (e *Element) RemapConditions(ids map[int64]int64) {
	if len(e.Conditions) == 0 {
		return
	}
	out := make([]Condition, len(e.Conditions))
	for i, c := range e.Conditions {
		if n, ok := ids[c.FirstOperand]; ok {
			c.FirstOperand = n
		}
		if s := c.SecondOperand; s != nil {
			o := *s
			if o.ID != nil {
				if n, ok := ids[*o.ID]; ok {
					o.ID = &n
				}
			}
			if o.Type == OperandChoice && o.Value != nil {
				if v, err := strconv.ParseInt(*o.Value, 10, 64); err == nil {
					if n, ok := ids[v]; ok {
						s := strconv.FormatInt(n, 10)
						o.Value = &s
					}
				}
			}
			c.SecondOperand = &o
		}
		out[i] = c
	}
	e.Conditions = out
}

// FirstRule is the detail's view of an element's first rule: its second
// operand and operators, all null without rules.
func (e Element) FirstRule() Logic {
	if len(e.Conditions) == 0 {
		return Logic{}
	}
	c := e.Conditions[0]
	op := c.ArithmeticOperator
	return Logic{SecondOperand: c.SecondOperand, LogicalOperator: c.LogicalOperator, ArithmeticOperator: &op}
}
