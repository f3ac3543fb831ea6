package pages

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"surveyservice/shared/survey"
)

// ranking writes a ranking question as a list in rank order. Each item
// keeps its rank's select, which is the plain form's field (r<id>_<choice>)
// and what the script reads; with the script (ranking.js) the selects are
// hidden, each item is moved by its two buttons or by the arrow keys, and
// a live region announces the item's new place. Without it the buttons
// are hidden and the selects rank the choices.
//
// form holds what a plain form sent: the items stand in the order of its
// ranks, each select showing its own.
func (d *doc) ranking(q survey.ElementView, form url.Values, t texts, hidden markup) {
	id := q.ID
	d.legend(q, " rank", t, hidden)
	type item struct {
		c  survey.ChoiceItem
		at int64
	}
	items := make([]item, len(q.Choices))
	for i, c := range q.Choices {
		items[i] = item{c, int64(i + 1)}
		if v, err := strconv.ParseInt(form.Get(fmt.Sprintf("r%d_%d", id, c.ID)), 10, 64); err == nil {
			items[i].at = v
		}
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].at < items[b].at })
	d.w("<ol class=\"ranks\">\n")
	for _, it := range items {
		c := it.c
		d.w("<li class=\"rank-item\"><label class=\"choice\"><span class=\"rank-name\">%s</span>\n<select name=\"r%s_%s\" data-choice=\"%s\">", ltext(c.Name), num(id), num(c.ID), num(c.ID))
		for j := 1; j <= len(q.Choices); j++ {
			sel := markup("")
			if int64(j) == it.at {
				sel = " selected"
			}
			d.w("<option value=\"%s\"%s>%s</option>", num(j), sel, t.n(int64(j)))
		}
		d.w("</select></label><span class=\"moves\"><button type=\"button\" class=\"up\"><span aria-hidden=\"true\">↑</span><span class=\"sr\">%s: %s</span></button>"+
			"<button type=\"button\" class=\"down\"><span aria-hidden=\"true\">↓</span><span class=\"sr\">%s: %s</span></button></span></li>\n",
			text(t.MoveUp), text(c.Name), text(t.MoveDown), text(c.Name))
	}
	d.w("</ol>\n<p class=\"sr rank-live\" aria-live=\"polite\" data-msg=\"%s\"></p>\n</fieldset>\n", text(t.Moved))
}

// hasType reports whether the survey asks a question of type typ: a page
// loads a question type's script only then.
func hasType(p surveyPage, typ survey.ElementType) bool {
	for _, pg := range p.Survey.Questions {
		for _, q := range pg {
			if q.Type == typ {
				return true
			}
		}
	}
	return false
}
