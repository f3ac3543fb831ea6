package pages

import (
	"encoding/json"

	"surveyservice/shared/survey"
)

// logicQuestion is what the page's script needs of a question to apply
// the survey's display rules and timers (web/logic.js, web/logic_page.js):
// its type, group, rules, and its own time (responding_duration_type 2).
//
// It is written short, for the page's weight (every question of a survey
// is in it): an array [id, type, group, rules, seconds] without its
// trailing zeros (0 no group, no rules, no time of its own), each rule an
// array [first_operand, arithmetic_operator, second_operand.id,
// second_operand.type, second_operand.value, logical_operator] without
// its trailing nulls, which logic_page.js reads back into the contract's
// objects for logic.js.
type logicQuestion struct {
	ID      int64
	Type    survey.ElementType
	Group   int64
	Rules   [][]any
	Seconds int64
}

// MarshalJSON writes the question as its short array.
func (q logicQuestion) MarshalJSON() ([]byte, error) {
	var rules any = 0
	if len(q.Rules) > 0 {
		rules = q.Rules
	}
	a := []any{q.ID, q.Type, q.Group, rules, q.Seconds}
	for len(a) > 2 && a[len(a)-1] == any(int64(0)) || len(a) > 2 && a[len(a)-1] == any(0) {
		a = a[:len(a)-1]
	}
	return json.Marshal(a)
}

// shortRule is a rule as the data block writes it.
func shortRule(c survey.Condition) []any {
	r := []any{c.FirstOperand, c.ArithmeticOperator, nil, nil, nil, nil}
	if s := c.SecondOperand; s != nil {
		if s.ID != nil {
			r[2] = *s.ID
		}
		r[3] = s.Type
		if s.Value != nil {
			r[4] = *s.Value
		}
	}
	if c.LogicalOperator != nil {
		r[5] = *c.LogicalOperator
	}
	for len(r) > 2 && r[len(r)-1] == nil {
		r = r[:len(r)-1]
	}
	return r
}

// logicData is the questions in display order as the JSON of a data block
// (<script type="application/json">, which runs nothing, so the page's
// Content-Security-Policy is unchanged). json.Marshal escapes <, > and &,
// so no text of the survey can close the block.
func logicData(s survey.ResponderSurvey) markup {
	var qs []logicQuestion
	for _, page := range s.Questions {
		for _, q := range page {
			lq := logicQuestion{ID: q.ID, Type: q.Type}
			if q.RelatedGroup != nil {
				lq.Group = *q.RelatedGroup
			}
			if q.Conditions != nil {
				for _, c := range *q.Conditions {
					lq.Rules = append(lq.Rules, shortRule(c))
				}
			}
			if s.RespondingDurationType == survey.DurationPerQuestion {
				lq.Seconds = survey.DurationSeconds(q.RespondingDuration)
			}
			qs = append(qs, lq)
		}
	}
	b, err := json.Marshal(qs)
	if err != nil {
		return "[]" // plain values: never
	}
	return markup(b) // JSON with <, > and & escaped: inert in a data block
}

// logic writes the data block of the survey's rules and timers and the
// scripts that apply them, before app.js, which calls them.
func (d *doc) logic(s survey.ResponderSurvey, t texts) {
	d.w("<script type=\"application/json\" id=\"logic\" data-sheet=\"%s\">%s</script>\n", text(t.SeeSheet), logicData(s))
	d.w("<script src=\"%s\"></script>\n", text(assetNames["logic.js"])) // with logic_page.js (bundles)
}

// needsLogic reports whether the page needs the logic scripts: for display
// rules, per-question timers, randomized choices or the answer sheet's
// link. Without them app.js pages alone, and the page is lighter by both
// scripts.
func needsLogic(p surveyPage) bool {
	s := p.Survey
	if p.Sheets || s.RespondingDurationType == survey.DurationPerQuestion || stepped(s) {
		return true
	}
	for _, pg := range s.Questions {
		for _, q := range pg {
			if q.Randomize {
				return true
			}
		}
	}
	return false
}
