package survey

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Contract section 24 for whoever reads a survey as a responder: the
// hosted page (functions/pages) and the public API (functions/responders)
// choose the language and apply it with the same code.

// ChooseLanguage is section 24's choice among all, the survey's languages
// (its default first): lang (the address's ?lang=) when it is one of them,
// else ignored; then the Accept-Language header acceptLanguage by q-value
// (AcceptLanguages), "" for none; then the default. explicit reports that
// lang chose it.
func ChooseLanguage(all []string, lang, acceptLanguage string) (chosen string, explicit bool) {
	if len(all) < 2 {
		return all[0], false
	}
	if slices.Contains(all, lang) {
		return lang, true
	}
	for _, tag := range AcceptLanguages(acceptLanguage) {
		if slices.Contains(all, tag) {
			return tag, false
		}
	}
	return all[0], false
}

// AcceptLanguages reads an Accept-Language header: the primary subtags
// (lower case) of its ranges in order of preference, highest q first
// (ties keep the header's order), without those of q=0 and without "*".
// A range whose q cannot be read counts as q=1, as the header's default.
func AcceptLanguages(h string) []string {
	type rng struct {
		tag string
		q   float64
	}
	var rs []rng
	for part := range strings.SplitSeq(h, ",") {
		fields := strings.Split(part, ";")
		tag := strings.ToLower(strings.TrimSpace(fields[0]))
		if i := strings.IndexByte(tag, '-'); i >= 0 {
			tag = tag[:i]
		}
		if tag == "" || tag == "*" || len(tag) > 8 {
			continue
		}
		q := 1.0
		for _, p := range fields[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
					q = f
				}
			}
		}
		rs = append(rs, rng{tag, q})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].q > rs[j].q })
	out := []string{}
	excluded := map[string]bool{}
	for _, r := range rs {
		if r.q == 0 {
			excluded[r.tag] = true
		}
	}
	for _, r := range rs {
		if r.q > 0 && !excluded[r.tag] && !slices.Contains(out, r.tag) {
			out = append(out, r.tag)
		}
	}
	return out
}

// Apply answers the survey's name and elements in lang, the texts not
// translated into it in def, the default language (def itself answers
// them as they are). mark, when not nil, rewrites each text left in the
// default (the page marks it with its own lang and dir); such a title
// loses its rich html_title, which would show without the mark. The
// elements are copies: a container's cached collection is never changed.
func (t Translations) Apply(lang, def, name string, elements map[int64]Element, mark func(string) string) (string, map[int64]Element) {
	if lang == def {
		return name, elements
	}
	tr := t.Texts[lang]
	out := make(map[int64]Element, len(elements))
	for id, e := range elements {
		loc := Localize(e, tr.Elements[id])
		el := loc.Element
		if mark != nil {
			loc.markMissing(&el, mark)
		}
		out[id] = el
	}
	name, ok := t.Name(lang, def, name)
	if !ok && mark != nil && name != "" {
		name = mark(name)
	}
	return name, out
}

// markMissing rewrites with mark each text of el that Localize left in
// the default language.
func (loc Localized) markMissing(el *Element, mark func(string) string) {
	set := func(field string, s *string) {
		if loc.Missing[field] && *s != "" {
			*s = mark(*s)
		}
	}
	set("title", &el.Title)
	if loc.Missing["title"] {
		el.HTMLTitle = ""
	}
	set("description", &el.Description)
	set("html_description_text", &el.HTMLDescriptionText)
	set("link_button_text", &el.LinkButtonText)
	for _, p := range []struct {
		f string
		v **string
	}{{"left_label", &el.LeftLabel}, {"right_label", &el.RightLabel}} {
		if *p.v != nil && loc.Missing[p.f] {
			s := mark(**p.v)
			*p.v = &s
		}
	}
	for i := range el.Choices {
		set("choices."+strconv.FormatInt(el.Choices[i].ID, 10), &el.Choices[i].Name)
	}
	for i := range el.Rows {
		set("rows."+strconv.FormatInt(el.Rows[i].ID, 10), &el.Rows[i].Name)
	}
	for i := range el.Columns {
		set("columns."+strconv.FormatInt(el.Columns[i].ID, 10), &el.Columns[i].Name)
	}
}
