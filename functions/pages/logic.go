package pages

import (
	"encoding/json"

	"surveyservice/shared/survey"
)

// logicQuestion is what the page's script needs of a question to apply
// the survey's display rules and timers (web/logic.js, web/logic_page.js):
// its type, group, rules, and its own time (responding_duration_type 2).
type logicQuestion struct {
	ID         int64              `json:"id"`
	Type       survey.ElementType `json:"type"`
	Group      int64              `json:"group,omitempty"`
	Conditions []survey.Condition `json:"conditions,omitempty"`
	Seconds    int64              `json:"seconds,omitempty"`
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
				lq.Conditions = *q.Conditions
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
	d.w("<script src=\"%s\"></script>\n<script src=\"%s\"></script>\n", text(assetNames["logic.js"]), text(assetNames["logic_page.js"]))
}
