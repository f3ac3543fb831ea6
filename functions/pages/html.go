package pages

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"surveyservice/shared/survey"
)

// markup is HTML that may go into a page as it is: escaped text, numbers,
// and the fixed markup of these functions. A string value is not markup;
// it has to pass through text.
//
// The pages are written by these functions rather than html/template:
// text/template's reflection (MethodByName) makes the linker keep every
// exported method of every type in the binary, 4 MB more for this
// function (measured: 13.9 MB against 9.6 MB).
//
// What html/template gets from contextual escaping, these get from a type:
// a page is written only from markup, and a string becomes markup only
// through text (html.EscapeString: & < > " ', right in text and in quoted
// attributes alike; nothing is written unquoted), num, decimal or flag, or
// through a visible markup(...) conversion where the code vouches for it.
type markup string

// text escapes s for the page, in text and in quoted attributes.
func text(s string) markup { return markup(html.EscapeString(stripMarks(s))) }

// num writes an integer: digits and a sign need no escaping.
func num[T ~int | ~int64](n T) markup { return markup(strconv.FormatInt(int64(n), 10)) }

// decimal writes a number with two decimals.
func decimal(f float64) markup { return markup(strconv.FormatFloat(f, 'f', 2, 64)) }

// flag writes true or false.
func flag(b bool) markup { return markup(strconv.FormatBool(b)) }

// trueAttr is data-<name>="true" when b holds and nothing otherwise: the
// scripts read each such flag as === "true", so a page carries only the
// flags its survey sets (a 50-question page's weight counts each byte).
func trueAttr(name string, b bool) markup {
	if !b {
		return ""
	}
	return markup(` data-` + name + `="true"`)
}

// durationAttr is the form's time limit in seconds (data-duration, which
// app.js and offline.js read as 0 when absent).
func durationAttr(seconds int64) markup {
	if seconds <= 0 {
		return ""
	}
	return markup(` data-duration="` + strconv.FormatInt(seconds, 10) + `"`)
}

// messagesAttr is the API's refusals the page can meet in its language
// (data-messages, read as {} when absent), between single quotes: the
// JSON's many double quotes are then written as they are, not as &#34;.
func messagesAttr(p surveyPage) markup {
	m := messagesJSON(p)
	if m == "{}" {
		return ""
	}
	return ` data-messages='` + markup(singleQuoted.Replace(m)) + `'`
}

// singleQuoted escapes a text for an attribute value between single
// quotes.
var singleQuoted = strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;")

// msgAttr is data-msg-<name>="msg" on a page that can show it (has), and
// nothing on another: the ranking's and the fewest picks' words come
// only with a ranking and a question with a minimum.
func msgAttr(name, msg string, has bool) markup {
	if !has {
		return ""
	}
	return markup(" data-msg-"+name+"=\"") + text(msg) + "\""
}

// autoAttr marks a page that moves on by itself when its one choice is
// picked (data-auto, which app.js reads only with hide_next_button: a
// survey that shows Next carries none).
func autoAttr(b bool) markup {
	if b {
		return " data-auto"
	}
	return ""
}

// ratingIcon is what follows each step's number on a rating question, by
// its icon_type (contract section 21): a star, a heart, a thumb, or the
// number alone.
func ratingIcon(iconType int64) markup {
	switch iconType {
	case survey.IconHeart:
		return "♥"
	case survey.IconThumb:
		return "👍"
	case survey.IconNumber:
		return ""
	}
	return "★"
}

// requiredAttr marks a required question (data-required="true", which
// app.js reads); an optional one carries nothing, so the page is lighter
// by the attribute on each optional question.
func requiredAttr(b bool) markup {
	if b {
		return ` data-required="true"`
	}
	return ""
}

// doc is a page being written. Its buffer is not embedded, so that w is
// the only way onto the page.
type doc struct{ buf bytes.Buffer }

// bytes is the page written so far.
func (d *doc) bytes() []byte { return d.buf.Bytes() }

// w writes format with each %s replaced by the next argument. The format
// is a constant of the page (an untyped string literal is markup) and the
// arguments are markup, so no string reaches the page unescaped.
func (d *doc) w(format markup, args ...markup) {
	f := string(format)
	for _, a := range args {
		i := strings.Index(f, "%s")
		if i < 0 {
			panic("pages: more arguments than %s in " + string(format))
		}
		d.buf.WriteString(f[:i])
		d.buf.WriteString(string(a))
		f = f[i+2:]
	}
	d.buf.WriteString(f)
}

func (d *doc) head(p page) {
	d.w(`<!doctype html>
<html lang="%s" dir="%s">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<meta name="description" content="%s">
<link rel="icon" href="%s" type="image/svg+xml">
<link rel="stylesheet" href="%s">
`, text(p.Lang), text(p.Dir), text(p.Title), text(p.description()), text(assetNames["favicon.svg"]), text(assetNames["app.css"]))
	for _, s := range p.Styles {
		d.w("<link rel=\"stylesheet\" href=\"%s\">\n", text(assetNames[s]))
	}
	if !p.NoScript {
		d.w("<script src=\"%s\"></script>\n", text(assetNames["boot.js"]))
	}
	if p.Canonical != "" {
		d.w("<link rel=\"canonical\" href=\"%s\">\n", text(p.Canonical))
	}
	if p.OEmbed != "" {
		d.w("<link rel=\"alternate\" type=\"application/json+oembed\" href=\"%s\" title=\"%s\">\n", text(p.OEmbed), text(p.Title))
	}
	for _, f := range p.FontPreloads {
		d.w("<link rel=\"preload\" href=\"%s\" as=\"font\" type=\"font/woff2\" crossorigin>\n", text(f))
	}
	if p.ThemeCSS != "" {
		d.w("<style>%s</style>\n", markup(p.ThemeCSS)) // built from validated hex colors only (themeCSS)
	}
	main := markup("")
	if p.Wide {
		main = ` class="wide"`
	}
	d.w("</head>\n<body>\n<main id=\"main\"%s>\n", main)
}

func (d *doc) foot() { d.w("</main>\n</body>\n</html>\n") }

func renderMessage(p page) []byte {
	var d doc
	d.head(p)
	d.w("<h1>%s</h1>\n<p class=\"message\" id=\"message\">%s</p>\n", text(p.Title), text(p.Message))
	if p.Forget != "" {
		d.w("<script src=\"%s\" data-forget=\"%s\"></script>\n", text(assetNames["offline.js"]), text(p.Forget))
	}
	d.foot()
	return d.bytes()
}

// codePage is the page asking for the access code (code_auth), the
// owner's auth_description above the field; the script's form and the
// plain form's step (steps.go) alike.
func (d *doc) codePage(p surveyPage) {
	d.w("<section class=\"page code\" data-page=\"code\">\n")
	d.authDescription(p)
	d.w(`<label for="code">%s</label>
<input id="code" name="code" type="text" autocomplete="off" required value="%s">
</section>
`, text(p.T.Code), text(p.Code))
}

func renderSurvey(p surveyPage) []byte {
	var d doc
	s := p.Survey
	if hasType(p, survey.TypeRanking) {
		p.Styles = append(p.Styles, "ranking.css")
	}
	if accessStyles(p) {
		p.Styles = append(p.Styles, "signin.css")
	}
	d.head(p.page)
	d.w("<h1>%s</h1>\n", ltext(s.Name))
	d.switcher(p.Languages, p.At)
	if p.Preview {
		d.w("<p class=\"preview\" id=\"preview\" role=\"note\">%s</p>\n", text(p.T.Preview))
	}
	pages, step := displayPages(s), p.Step
	class := markup("")
	switch {
	case step != nil:
		class = ` class="stepping"`
	case p.Initial != nil:
		class = ` class="steps"`
	}
	d.w(`<form id="survey"%s method="post" action="%s" novalidate data-slug="%s"%s%s%s data-msg-required="%s"%s%s%s%s>
<input type="hidden" name="idempotency_key" value="%s">
<input type="hidden" name="session" value="%s">
<input type="hidden" name="qs" value="%s">
<input type="hidden" name="served" value="%s">
`, class, text(p.Action), text(s.URLSlug), durationAttr(p.DurationSeconds), trueAttr("hide-next", s.HideNextButton), trueAttr("hide-prev", s.HidePreviousButton),
		text(translate(p.Lang, survey.MsgAnswerRequired)), msgAttr("ties", translate(p.Lang, msgTiedRanks), hasType(p, survey.TypeRanking)),
		msgAttr("min", translate(p.Lang, msgAtLeast), meets[survey.MsgAtLeastItems](p)),
		messagesAttr(p), formData16(p)+formData20(p),
		text(p.IdempotencyKey), text(p.Session), text(p.QS), text(p.Served))
	if step != nil || p.Initial != nil {
		token := ""
		if step != nil {
			token = step.Token
		}
		d.w("<input type=\"hidden\" name=\"steps\" value=\"%s\">\n", text(token))
	}
	for _, k := range sortedKeys(p.Variables) {
		d.w("<input type=\"hidden\" name=\"var_%s\" value=\"%s\">\n", text(k), text(p.Variables[k]))
	}
	d.w(`<div id="errors" class="errors" role="alert" tabindex="-1">`)
	for _, e := range p.Errors {
		d.w("<p dir=\"auto\">%s</p>", text(e))
	}
	d.w("</div>\n<p id=\"timer\" class=\"timer\" hidden data-label=\"%s\"></p>\n", text(p.T.TimeLeft))
	switch {
	case s.HideProgressbar:
	case step != nil:
		d.w("<progress id=\"progress\" class=\"progress\" max=\"%s\" value=\"%s\" aria-label=\"%s\"></progress>\n", num(max(step.Total, 1)), num(step.Place), text(p.T.Progress))
	default:
		// Shown from the start when the first page is a question page,
		// so that the script showing it moves nothing.
		hidden := markup(" hidden")
		if len(s.Welcome) == 0 && !s.CodeAuth && !signsIn(p) && len(pages) > 0 {
			hidden = ""
		}
		d.w("<progress id=\"progress\" class=\"progress\" max=\"%s\" value=\"0\"%s aria-label=\"%s\"></progress>\n", num(len(pages)), hidden, text(p.T.Progress))
	}
	if step != nil {
		d.step(p, pages)
		return d.bytes()
	}
	for _, w := range s.Welcome {
		d.w("<section class=\"page welcome\" data-page=\"welcome\"%s>\n<h2>%s</h2>", enterText(w), ltext(w.Title))
		if w.Description != "" {
			d.w("<p>%s</p>", ltext(w.Description))
		}
		d.w("\n")
		d.welcome16(p)
		d.w("</section>\n")
	}
	if s.CodeAuth {
		d.codePage(p)
	}
	d.signIn(p)
	for i, pg := range pages {
		d.w("<section class=\"page qp\" data-page=\"%s\"%s>", num(i), autoAttr(s.HideNextButton && picksMoveOn(pg)))
		for _, q := range pg {
			d.question(q, p.Form, p.T, p.Initial != nil && !p.Initial[q.ID])
		}
		d.w("</section>\n")
	}
	// The start button of a first welcome page reads its enter_text as
	// served (app.js relabels it page by page from data-label on).
	start := p.T.Next
	if len(s.Welcome) > 0 && s.Welcome[0].EnterText != "" {
		start = s.Welcome[0].EnterText
	}
	d.w(`<div class="nav">
<button type="button" id="prev" class="prev" hidden>%s</button>
<button type="button" id="next" class="next" data-label="%s" hidden>%s</button>
`, text(p.T.Previous), text(p.T.Next), text(start))
	if p.Initial != nil {
		// The plain form's button (steps.go): the first submit button, so
		// that Enter presses it without the script too.
		label := p.T.Submit
		if hasLater(pages, p.Initial) {
			label = p.T.Next
		}
		d.w("<button type=\"submit\" name=\"nav\" value=\"next\" id=\"plain-next\" class=\"plain\">%s</button>\n", text(label))
	}
	d.w(`<button type="submit" id="submit" class="submit">%s</button>
</div>
</form>
<section class="thanks" id="thanks" hidden tabindex="-1"><h2>%s</h2>`, text(p.T.Submit), text(p.Thanks.Title))
	if p.Thanks.Text != "" {
		d.w("<p>%s</p>", text(p.Thanks.Text))
	}
	d.thanks16(p)
	d.w("</section>\n<p class=\"timeup\" id=\"timeup\" hidden role=\"alert\">%s</p>\n", text(p.T.TimeUp))
	d.footer16(p)
	if needsLogic(p) {
		d.logic(s, p.T)
	}
	d.w("<script src=\"%s\"></script>\n", text(assetNames["responder.js"]))
	if hasType(p, survey.TypeRanking) {
		d.w("<script src=\"%s\"></script>\n", text(assetNames["ranking.js"]))
	}
	if hasFileQuestion(p) {
		d.w("<script src=\"%s\"></script>\n", text(assetNames["uploads.js"]))
	}
	d.offlineScripts(p)
	if signsIn(p) {
		d.w("<script src=\"%s\"></script>\n", text(assetNames["signin.js"]))
	}
	d.w("<script src=\"%s\"></script>\n", text(assetNames["app.js"]))
	d.foot()
	return d.bytes()
}

// legend opens a question's fieldset with its legend; attrs are more of
// the fieldset's attributes (minAttr).
func (d *doc) legend(q survey.ElementView, class markup, t texts, hidden markup, attrs ...markup) {
	if q.VerticalChoices {
		class += " vertical"
	}
	more := markup("")
	for _, a := range attrs {
		more += a
	}
	d.w("<fieldset class=\"q%s\" data-id=\"%s\" data-type=\"%s\"%s%s%s><legend class=\"qt\">%s%s</legend>",
		class, num(q.ID), num(int64(q.Type)), requiredAttr(q.AnswerRequired), hidden, more, ltext(q.Title), required(q, t))
}

// minAttr carries a multiple-select question's fewest picks
// (data-min), which app.js checks on Next as the API checks on submit.
func minAttr(q survey.ElementView) markup {
	if q.AllowMultipleSelect && q.MinSelectableChoices > 1 {
		return ` data-min="` + num(q.MinSelectableChoices) + `"`
	}
	return ""
}

// required marks a required question's title: a star to the eye, and to a
// screen reader the word (the controls that can also carry required).
func required(q survey.ElementView, t texts) markup {
	if q.AnswerRequired {
		return ` <span aria-hidden="true">*</span><span class="sr">` + text(" ("+t.Required+")") + `</span>`
	}
	return ""
}

// textRows sizes a text answer's box by what it may hold: one line for a
// name or a short answer, more for a paragraph (the box grows as the
// responder writes, where the browser can: app.css).
func textRows(maxLength int64) int64 {
	switch {
	case maxLength > 0 && maxLength <= 100:
		return 1
	case maxLength > 0 && maxLength <= 300:
		return 2
	}
	return 4
}

// req is the required attribute of a required question's controls.
func req(q survey.ElementView) markup {
	if q.AnswerRequired {
		return " required"
	}
	return ""
}

// picksMoveOn reports whether, with hide_next_button, a page can go on
// without its Next button: its one question is answered by one pick
// (single choice, scale, rating), which moves on by itself. Any other page
// keeps its button, or a responder could not leave it.
func picksMoveOn(pg []survey.ElementView) bool {
	if len(pg) != 1 {
		return false
	}
	switch q := pg[0]; q.Type {
	case survey.TypeMultipleChoice, survey.TypePictureChoice:
		return !q.AllowMultipleSelect
	case survey.TypeOpinionScale, survey.TypeRating:
		return true
	}
	return false
}

// question writes one question's inputs: a native control for each type,
// so keyboards and screen readers work without the script.
//
// form holds the values a plain form sent, when it is shown again with its
// errors: what the responder chose stays chosen.
//
// hide writes it hidden: its rules hide it before any answer (the
// script shows it when they hold).
func (d *doc) question(q survey.ElementView, form url.Values, t texts, hide bool) {
	id := q.ID
	h := markup("")
	if hide {
		h = " hidden"
	}
	has := func(name string, v int64) bool { return slices.Contains(form[name], strconv.FormatInt(v, 10)) }
	checked := func(name string, v int64) markup {
		if has(name, v) {
			return " checked"
		}
		return ""
	}
	name := fmt.Sprintf("a%d", id)
	switch q.Type {
	case survey.TypeText:
		d.w("<div class=\"q\" data-id=\"%s\" data-type=\"2\"%s%s>\n<label for=\"a%s\" class=\"qt\">%s%s</label>\n", num(id), requiredAttr(q.AnswerRequired), h, num(id), ltext(q.Title), required(q, t))
		if q.Description != "" {
			d.w("<p class=\"qd\">%s</p>\n", ltext(q.Description))
		}
		d.w("<textarea id=\"a%s\" name=\"a%s\" rows=\"%s\" maxlength=\"%s\"%s>%s</textarea>\n</div>\n",
			num(id), num(id), num(textRows(q.MaxLength)), num(q.MaxLength), req(q), text(form.Get(name)))
	case survey.TypeMultipleChoice, survey.TypePictureChoice:
		d.legend(q, "", t, h, minAttr(q))
		kind, must := markup("radio"), req(q)
		if q.AllowMultipleSelect {
			kind, must = "checkbox", "" // required on a checkbox would mean that one
		}
		for _, c := range q.Choices {
			d.w("<label><input type=\"%s\" name=\"a%s\" value=\"%s\"%s%s>", kind, num(id), num(c.ID), checked(name, c.ID), must)
			if c.ImageURL != nil && *c.ImageURL != "" {
				d.w("<img src=\"%s\" alt=\"\" class=\"pic\">", text(*c.ImageURL))
			}
			d.w("%s</label>\n", ltext(c.Name))
		}
		d.w("</fieldset>\n")
	case survey.TypeRanking:
		d.ranking(q, form, t, h)
	case survey.TypeOpinionScale, survey.TypeRating:
		lo, hi, suffix, class := q.ScaleMin, q.ScaleMax, markup(""), markup(" scale")
		if q.Type == survey.TypeRating {
			lo, hi, suffix, class = 1, q.RatingMax, ratingIcon(q.IconType), " rating"
		}
		d.legend(q, class, t, h)
		d.w("<div class=\"row\">")
		for v := lo; v <= hi && v-lo <= 100; v++ {
			d.w("<label><input type=\"radio\" name=\"a%s\" value=\"%s\"%s%s>%s%s</label>", num(id), num(v), checked(name, v), req(q), t.n(v), suffix)
		}
		d.w("</div>")
		// The end labels on a row of their own, under the scale's two
		// ends, wherever the scale wraps.
		if q.Type == survey.TypeOpinionScale && (q.LeftLabel != nil || q.RightLabel != nil) {
			left, right := "", ""
			if q.LeftLabel != nil {
				left = *q.LeftLabel
			}
			if q.RightLabel != nil {
				right = *q.RightLabel
			}
			d.w("<div class=\"ends\"><span class=\"lbl\">%s</span><span class=\"lbl\">%s</span></div>\n", ltext(left), ltext(right))
		}
		d.w("</fieldset>\n")
	case survey.TypeDropdown:
		d.w("<div class=\"q\" data-id=\"%s\" data-type=\"10\"%s%s>\n<label for=\"a%s\" class=\"qt\">%s%s</label>\n"+
			"<select id=\"a%s\" name=\"a%s\"%s><option value=\"\">—</option>",
			num(id), requiredAttr(q.AnswerRequired), h, num(id), ltext(q.Title), required(q, t), num(id), num(id), req(q))
		for _, c := range q.Choices {
			sel := markup("")
			if has(name, c.ID) {
				sel = " selected"
			}
			d.w("<option value=\"%s\"%s%s>%s</option>", num(c.ID), sel, langAttrs(c.Name), text(c.Name))
		}
		d.w("</select>\n</div>\n")
	case survey.TypeMatrix:
		d.legend(q, " matrix", t, h)
		for _, r := range q.Rows {
			d.w("<fieldset class=\"mrow\" data-row=\"%s\"><legend>%s</legend>\n", num(r.ID), ltext(r.Name))
			for _, c := range q.Columns {
				d.w("<label><input type=\"radio\" name=\"m%s_%s\" value=\"%s\"%s>%s</label>", num(id), num(r.ID), num(c.ID), checked(fmt.Sprintf("m%d_%d", id, r.ID), c.ID), ltext(c.Name))
			}
			d.w("\n</fieldset>\n")
		}
		d.w("</fieldset>\n")
	case survey.TypeFileUpload:
		d.fileQuestion(q, t)
	case survey.TypeStatement, survey.TypeGroup:
		// An h2 under the page's h1 (headings in order); a group's title
		// heads the questions after it rather than sitting in a card alone.
		class := markup("q statement")
		if q.Type == survey.TypeGroup {
			class = "q statement group"
		}
		d.w("<div class=\"%s\" data-id=\"%s\"%s><h2>%s</h2>", class, num(id), h, ltext(q.Title))
		if q.Description != "" {
			d.w("<p>%s</p>", ltext(q.Description))
		}
		d.w("</div>\n")
	}
}

func renderReport(p reportPage) []byte {
	var d doc
	t := p.T
	p.Styles = []string{"report.css"}
	d.head(p.page)
	d.w("<h1>%s</h1>\n<p class=\"count\" id=\"count\">%s: <strong>%s</strong></p>\n<div class=\"charts\">\n", text(p.Title), text(t.Responses), t.n(p.Report.Count))
	for _, c := range p.Report.Charts {
		d.w("<section class=\"chart\"><h2>%s</h2>\n", text(c.Title))
		if c.NPS != nil {
			s := c.NPS
			// The score reads left to right, its sign before it, on an fa
			// or ar page too (as CLDR writes their negative numbers).
			d.w("<p class=\"nps\">%s: <strong dir=\"ltr\">%s</strong></p>\n<p class=\"avg\">%s %s%s%s %s%s%s %s</p>\n",
				text(t.NPS), text(localDigits(t.Zero, s.signed())), text(t.Promoters), t.pct(s.Promoters), t.comma(),
				text(t.Passives), t.pct(s.Passives), t.comma(), text(t.Detractors), t.pct(s.Detractors))
		}
		if c.HasAverage {
			d.w("<p class=\"avg\">%s: %s</p>\n", text(t.Average), t.dec(c.Average))
		}
		if c.Note != "" {
			d.w("<p class=\"avg\">%s</p>\n", text(c.Note))
		}
		d.w("%s\n</section>\n", c.SVG)
	}
	d.w("</div>\n")
	d.foot()
	return d.bytes()
}
