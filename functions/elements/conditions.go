package elements

import (
	"encoding/json"
	"sort"
	"strconv"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// readConditions reads `conditions` (contract section 15): null or a list
// of at most survey.MaxConditions rule objects, each checked for its own
// format here; what a rule names is checked against the survey by the
// store's write (survey.ValidateConditions). Errors name the rule by its
// 0-based index: {"conditions": {"1": ["first_operand: This field is
// required."]}}. ok reports whether the field was sent and well formed.
func readConditions(f *api.Form) ([]survey.Condition, bool) {
	const name = "conditions"
	raw, present := f.Raw(name)
	if !present {
		return nil, false
	}
	if f.IsNull(name) {
		return []survey.Condition{}, true
	}
	var items []json.RawMessage
	if kind := api.JSONKind(raw); kind != "list" || json.Unmarshal(raw, &items) != nil {
		f.Fail(name, survey.MsgNotAList(kind))
		return nil, false
	}
	if len(items) > survey.MaxConditions {
		f.Fail(name, survey.MsgTooManyConditions)
		return nil, false
	}
	out := make([]survey.Condition, len(items))
	errs := map[string]any{}
	for i, it := range items {
		c, msgs := readRule(it)
		if len(msgs) > 0 {
			errs[strconv.Itoa(i)] = msgs
		}
		out[i] = c
	}
	if len(errs) > 0 {
		f.FailNested(name, errs)
		return nil, false
	}
	return out, true
}

// readRule reads one rule object; msgs are its errors, each prefixed with
// its field.
func readRule(raw json.RawMessage) (survey.Condition, []string) {
	var c survey.Condition
	var obj map[string]json.RawMessage
	if kind := api.JSONKind(raw); kind != "dict" || json.Unmarshal(raw, &obj) != nil {
		return c, []string{survey.MsgNotADict(kind)}
	}
	g := api.NewForm(obj)
	if v, ok := g.PK("first_operand", true); ok {
		c.FirstOperand = v
	}
	if v, ok := g.Int("arithmetic_operator", api.Int{Required: true, Min: api.Bound(survey.OpEquals), Max: api.Bound(survey.OpExcludes)}); ok {
		c.ArithmeticOperator = v
	}
	if !g.IsNull("logical_operator") {
		if v, ok := g.Int("logical_operator", api.Int{Min: api.Bound(survey.LogicAnd), Max: api.Bound(survey.LogicOr)}); ok {
			c.LogicalOperator = &v
		}
	}
	if s, ok := g.Raw("second_operand"); ok && !g.IsNull("second_operand") {
		var so map[string]json.RawMessage
		if api.JSONKind(s) != "dict" || json.Unmarshal(s, &so) != nil {
			g.Fail("second_operand", survey.MsgNotADict(api.JSONKind(s)))
		} else {
			h := api.NewForm(so)
			op := &survey.Operand{}
			if v, ok := h.Int("type", api.Int{Required: true, Min: api.Bound(survey.OperandChoice), Max: api.Bound(survey.OperandText)}); ok {
				op.Type = v
			}
			if !h.IsNull("id") {
				if v, ok := h.PK("id", false); ok {
					op.ID = &v
				}
			}
			if !h.IsNull("value") {
				if v, ok := h.String("value", api.Str{AllowBlank: true, Max: survey.MaxOperandValue}); ok {
					op.Value = &v
				}
			}
			for k, v := range h.Fields() {
				for _, m := range v.([]string) {
					g.Fail("second_operand", k+": "+m)
				}
			}
			c.SecondOperand = op
		}
	}
	var msgs []string
	fields := g.Fields()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, m := range fields[k].([]string) {
			msgs = append(msgs, k+": "+m)
		}
	}
	return c, msgs
}
