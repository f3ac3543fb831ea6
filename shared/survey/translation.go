package survey

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Contract section 24: one survey in several languages. A translation is
// a layer over the element's texts keyed by the same ids (style.md,
// "Answers by id, text by language"): answers, logic and quotas never see
// a label, only the page and the owner's reads do.

// LanguageCodes are the page's languages, in the order of their integers.
var LanguageCodes = []string{"fa", "tr", "ar", "en"}

// LanguageID is the integer of a language code, and whether it is one of
// the page's.
func LanguageID(code string) (int64, bool) {
	for n, c := range languages {
		if c == code {
			return n, true
		}
	}
	return 0, false
}

// RTL reports whether a language is written right to left (fa and ar).
func RTL(code string) bool { return code == "fa" || code == "ar" }

// Dir is the HTML dir of a language.
func Dir(code string) string {
	if RTL(code) {
		return "rtl"
	}
	return "ltr"
}

// Messages of section 24's routes.
const (
	MsgUnknownElement  = "Unknown element."
	MsgUnknownChoice   = "Unknown choice."
	MsgUnknownRow      = "Unknown row."
	MsgUnknownColumn   = "Unknown column."
	MsgUnknownLanguage = "Not one of this survey's languages."
)

// TranslatedFields are the string texts of an element a translation
// carries, by their API names.
var TranslatedFields = []string{"title", "description", "html_description_text", "enter_text", "left_label", "right_label", "link_button_text"}

// MaxTranslatedText bounds one translated text (the longest of an
// element's own texts, html_description_text).
const MaxTranslatedText = MaxElementHTMLDescription

// Text is one translated text and the fingerprint of the default text it
// was translated from: GET marks it stale when the default's differs.
type Text struct {
	V string `json:"v"`
	S string `json:"s"`
}

// ElementTexts are one element's texts in one language.
type ElementTexts struct {
	Fields  map[string]Text `json:"f,omitempty"`
	Choices map[int64]Text  `json:"c,omitempty"`
	Rows    map[int64]Text  `json:"r,omitempty"`
	Columns map[int64]Text  `json:"k,omitempty"`
}

// Translation is a survey's texts in one language: its name and its
// elements' texts by element id.
type Translation struct {
	Name     *Text                  `json:"n,omitempty"`
	Elements map[int64]ElementTexts `json:"e,omitempty"`
}

// Translations are a survey's other languages (the default, its
// language, not among them) and the texts of every language ever put:
// removing a language keeps its texts until it is added again.
type Translations struct {
	Languages []string
	Texts     map[string]Translation
}

// Has reports whether code is one of the survey's other languages (the
// default, def, never is: a survey whose language became one of its
// others has that one once, as its default).
func (t Translations) Has(code, def string) bool {
	return code != def && slices.Contains(t.Languages, code)
}

// All is the survey's languages, the default first.
func (t Translations) All(def string) []string {
	out := []string{def}
	for _, l := range t.Languages {
		if l != def {
			out = append(out, l)
		}
	}
	return out
}

// Fingerprint is the fingerprint of a default text (64-bit FNV-1a, hex):
// enough to tell that a text changed, small enough to keep beside every
// translated text.
func Fingerprint(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return strconv.FormatUint(h.Sum64(), 36)
}

// DefaultText is an element's own text by its API name, and whether the
// element has that text at all.
func DefaultText(e Element, field string) string {
	switch field {
	case "title":
		return e.Title
	case "description":
		return e.Description
	case "html_description_text":
		return e.HTMLDescriptionText
	case "enter_text":
		return e.EnterText
	case "left_label":
		if e.LeftLabel != nil {
			return *e.LeftLabel
		}
	case "right_label":
		if e.RightLabel != nil {
			return *e.RightLabel
		}
	case "link_button_text":
		return e.LinkButtonText
	}
	return ""
}

func itemNames(e Element, kind string) map[int64]string {
	out := map[int64]string{}
	switch kind {
	case "choices":
		for _, c := range e.Choices {
			out[c.ID] = c.Name
		}
	case "rows":
		for _, r := range e.Rows {
			out[r.ID] = r.Name
		}
	case "columns":
		for _, c := range e.Columns {
			out[c.ID] = c.Name
		}
	}
	return out
}

var itemKinds = []struct{ name, unknown string }{{"choices", MsgUnknownChoice}, {"rows", MsgUnknownRow}, {"columns", MsgUnknownColumn}}

func (et ElementTexts) items(kind string) map[int64]Text {
	switch kind {
	case "choices":
		return et.Choices
	case "rows":
		return et.Rows
	}
	return et.Columns
}

func (et *ElementTexts) setItems(kind string, m map[int64]Text) {
	switch kind {
	case "choices":
		et.Choices = m
	case "rows":
		et.Rows = m
	default:
		et.Columns = m
	}
}

// DecodeLanguages reads a PUT of `languages`: the other languages, with or
// without the default, duplicates ignored, in request order. It answers
// the other languages, or a 400 on `languages`.
func DecodeLanguages(body map[string]json.RawMessage, def string) ([]string, error) {
	raw, ok := body["languages"]
	if !ok {
		return nil, FieldError("languages", "This field is required.")
	}
	var items []json.RawMessage
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0 || string(t) == "null":
		return nil, FieldError("languages", MsgNull)
	case json.Unmarshal(t, &items) != nil || items == nil:
		return nil, FieldError("languages", MsgNotAList(pythonType(t)))
	}
	out := []string{}
	bad := map[string]any{}
	for i, it := range items {
		var code string
		switch {
		case string(bytes.TrimSpace(it)) == "null":
			bad[strconv.Itoa(i)] = []string{MsgNull}
			continue
		case json.Unmarshal(it, &code) != nil:
			bad[strconv.Itoa(i)] = []string{MsgNotString}
			continue
		case strings.ContainsRune(code, 0):
			bad[strconv.Itoa(i)] = []string{MsgNullCharacter} // section 3: as every string field
			continue
		}
		if _, ok := LanguageID(code); !ok {
			bad[strconv.Itoa(i)] = []string{strconv.Quote(code) + " is not a valid choice: fa, tr, ar or en."}
			continue
		}
		if code != def && !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	if len(bad) > 0 {
		return nil, &Error{Code: EINVALID, Fields: map[string]any{"languages": bad}}
	}
	return out, nil
}

// DecodeTranslation reads a PUT of one language's texts against the
// survey's name and elements: every element and item id must be the
// survey's (an item of another element is unknown). Each text is kept
// with the fingerprint of its default text as it is now, so that a PUT
// of a text clears its stale mark.
func DecodeTranslation(body map[string]json.RawMessage, name string, elements map[int64]Element) (Translation, error) {
	out := Translation{Elements: map[int64]ElementTexts{}}
	errs := map[string]any{}
	for k := range body {
		if k != "survey" && k != "elements" {
			errs[k] = []string{"Unknown field."}
		}
	}
	if raw, ok := body["survey"]; ok && string(raw) != "null" {
		var s map[string]json.RawMessage
		if json.Unmarshal(raw, &s) != nil {
			errs["survey"] = notADict(raw) // a nested serializer's, as the settings route's survey
		} else if v, ok := s["name"]; ok {
			text, msg := decodeText(v, MaxSurveyName)
			switch {
			case msg != "":
				errs["survey"] = map[string]any{"name": []string{msg}}
			case text != nil:
				out.Name = &Text{V: *text, S: Fingerprint(name)}
			}
		}
	}
	if raw, ok := body["elements"]; ok && string(raw) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			errs["elements"] = []string{MsgNotAMap(pythonType(bytes.TrimSpace(raw)))}
		} else {
			elErrs := map[string]any{}
			for key, v := range m {
				id, ok := textKey(key)
				e, known := elements[id]
				if !ok || !known {
					elErrs[key] = []string{MsgUnknownElement}
					continue
				}
				if string(bytes.TrimSpace(v)) == "null" { // DRF's null of a nested serializer, not "no texts"
					elErrs[key] = []string{MsgNull}
					continue
				}
				et, fe := decodeElementTexts(v, e)
				if fe != nil {
					elErrs[key] = fe
					continue
				}
				if len(et.Fields)+len(et.Choices)+len(et.Rows)+len(et.Columns) > 0 {
					out.Elements[id] = et
				}
			}
			if len(elErrs) > 0 {
				errs["elements"] = elErrs
			}
		}
	}
	if len(errs) > 0 {
		return Translation{}, &Error{Code: EINVALID, Fields: errs}
	}
	return out, nil
}

// notADict is DRF's refusal of a nested object (the survey's entry, an
// element's) given another JSON type: under its non_field_errors.
func notADict(raw json.RawMessage) map[string]any {
	return map[string]any{"non_field_errors": []string{MsgNotADict(pythonType(bytes.TrimSpace(raw)))}}
}

// textKey reads an element or item id key as GET writes it: digits
// without a sign or leading zero, so that no two keys of one body name one
// id (either text would be kept, by the map's order).
func textKey(key string) (int64, bool) {
	id, err := strconv.ParseInt(key, 10, 64)
	return id, err == nil && strconv.FormatInt(id, 10) == key
}

// decodeText reads a string or null (no translation) of at most max
// characters, trimmed; msg is its error.
func decodeText(raw json.RawMessage, max int) (text *string, msg string) {
	if string(raw) == "null" {
		return nil, ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, "Not a valid string."
	}
	if strings.ContainsRune(s, 0) {
		return nil, MsgNullCharacter // section 3: as every string field
	}
	s = strings.TrimSpace(s) // trimmed first, as every string field (section 3)
	if utf8.RuneCountInString(s) > max {
		return nil, "Ensure this field has no more than " + strconv.Itoa(max) + " characters."
	}
	if s == "" {
		return nil, "" // an empty text is no translation: the default shows
	}
	return &s, ""
}

func decodeElementTexts(raw json.RawMessage, e Element) (ElementTexts, map[string]any) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return ElementTexts{}, notADict(raw)
	}
	et := ElementTexts{Fields: map[string]Text{}}
	errs := map[string]any{}
	for k, v := range m {
		switch {
		case k == "stale": // GET's marks, put back: read-only
		case slices.Contains(TranslatedFields, k):
			text, msg := decodeText(v, MaxTranslatedText)
			if msg != "" {
				errs[k] = []string{msg}
			} else if text != nil {
				et.Fields[k] = Text{V: *text, S: Fingerprint(DefaultText(e, k))}
			}
		case k == "choices" || k == "rows" || k == "columns":
			items, fe := decodeItems(v, e, k)
			if fe != nil {
				errs[k] = fe
			} else {
				et.setItems(k, items)
			}
		default:
			errs[k] = []string{"Unknown field."}
		}
	}
	if len(errs) > 0 {
		return ElementTexts{}, errs
	}
	if len(et.Fields) == 0 {
		et.Fields = nil
	}
	return et, nil
}

func decodeItems(raw json.RawMessage, e Element, kind string) (map[int64]Text, any) {
	if string(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, []string{MsgNotAMap(pythonType(bytes.TrimSpace(raw)))}
	}
	unknown := MsgUnknownChoice
	for _, k := range itemKinds {
		if k.name == kind {
			unknown = k.unknown
		}
	}
	names := itemNames(e, kind)
	out := map[int64]Text{}
	errs := map[string]any{}
	for key, v := range m {
		id, ok := textKey(key)
		src, known := names[id]
		if !ok || !known {
			errs[key] = []string{unknown}
			continue
		}
		text, msg := decodeText(v, MaxTranslatedText)
		if msg != "" {
			errs[key] = []string{msg}
		} else if text != nil {
			out[id] = Text{V: *text, S: Fingerprint(src)}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// TranslationView is GET's body of one language's texts: every element
// of the survey, its texts (null when untranslated), and the names of
// the texts whose default changed since they were put.
func TranslationView(t Translation, name string, elements map[int64]Element) map[string]any {
	sv := map[string]any{"name": nil, "stale": []string{}}
	if t.Name != nil {
		sv["name"] = t.Name.V
		if t.Name.S != Fingerprint(name) {
			sv["stale"] = []string{"name"}
		}
	}
	els := map[string]any{}
	for id, e := range elements {
		et := t.Elements[id]
		entry := map[string]any{}
		stale := []string{}
		for _, f := range TranslatedFields {
			entry[f] = nil
			if tx, ok := et.Fields[f]; ok {
				entry[f] = tx.V
				if tx.S != Fingerprint(DefaultText(e, f)) {
					stale = append(stale, f)
				}
			}
		}
		for _, k := range itemKinds {
			names := itemNames(e, k.name)
			m := map[string]string{}
			var ids []int64
			for iid, tx := range et.items(k.name) {
				src, ok := names[iid]
				if !ok {
					continue // the item was deleted: its text went with it
				}
				m[strconv.FormatInt(iid, 10)] = tx.V
				if tx.S != Fingerprint(src) {
					ids = append(ids, iid)
				}
			}
			slices.Sort(ids)
			for _, iid := range ids {
				stale = append(stale, k.name+"."+strconv.FormatInt(iid, 10))
			}
			entry[k.name] = m
		}
		entry["stale"] = stale
		els[strconv.FormatInt(id, 10)] = entry
	}
	return map[string]any{"survey": sv, "elements": els}
}

// Localized is an element's texts in a language, each with whether it was
// translated: the page marks an untranslated one with the default's lang
// and dir.
type Localized struct {
	Element Element
	// Missing names the texts shown in the default language (field
	// names, and "choices.<id>", "rows.<id>", "columns.<id>").
	Missing map[string]bool
}

// Localize answers the element with its texts in the translation, the
// untranslated ones left in the default language and named in Missing.
// Only non-empty default texts count as missing. A text put is shown
// whatever its default, an empty one included (a description only the
// translation has): the owner put it, and PUT and GET answer it; only a
// label of a type without labels stays absent.
func Localize(e Element, et ElementTexts) Localized {
	out := Localized{Element: e, Missing: map[string]bool{}}
	set := func(field string, dst *string) {
		if tx, ok := et.Fields[field]; ok {
			*dst = tx.V
		} else if *dst != "" {
			out.Missing[field] = true
		}
	}
	el := &out.Element
	set("title", &el.Title)
	if _, ok := et.Fields["title"]; ok {
		el.HTMLTitle = "" // the translated title is plain text
	}
	set("description", &el.Description)
	set("html_description_text", &el.HTMLDescriptionText)
	set("enter_text", &el.EnterText)
	set("link_button_text", &el.LinkButtonText)
	for _, lab := range []struct {
		field string
		p     **string
	}{{"left_label", &el.LeftLabel}, {"right_label", &el.RightLabel}} {
		if *lab.p == nil && !el.Type.Takes(lab.field) {
			continue
		}
		v := ""
		if *lab.p != nil {
			v = **lab.p
		}
		set(lab.field, &v)
		if *lab.p != nil || v != "" {
			*lab.p = &v
		}
	}
	el.Choices = localizeItems(el.Choices, et.Choices, "choices.", out.Missing, func(c *ChoiceItem) (int64, *string) { return c.ID, &c.Name })
	el.Rows = localizeItems(el.Rows, et.Rows, "rows.", out.Missing, namedItemText)
	el.Columns = localizeItems(el.Columns, et.Columns, "columns.", out.Missing, namedItemText)
	return out
}

// localizeItems answers a copy of items (choices, rows or columns) with
// their names in the language of texts, and marks each one left in the
// default language in missing (prefix + id).
func localizeItems[T any](items []T, texts map[int64]Text, prefix string, missing map[string]bool, of func(*T) (int64, *string)) []T {
	items = slices.Clone(items)
	for i := range items {
		id, name := of(&items[i])
		if tx, ok := texts[id]; ok {
			*name = tx.V
		} else if *name != "" {
			missing[prefix+strconv.FormatInt(id, 10)] = true
		}
	}
	return items
}

func namedItemText(n *NamedItem) (int64, *string) { return n.ID, &n.Name }

// LocalizeAll answers the elements with their texts in lang (the default
// language answers them as they are): Apply's elements, unmarked.
func (t Translations) LocalizeAll(lang, def string, elements map[int64]Element) map[int64]Element {
	_, out := t.Apply(lang, def, "", elements, nil)
	return out
}

// Name is the survey's name in lang, and whether it was translated.
func (t Translations) Name(lang, def, name string) (string, bool) {
	if lang == def {
		return name, true
	}
	if n := t.Texts[lang].Name; n != nil {
		return n.V, true
	}
	return name, false
}
