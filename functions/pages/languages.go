package pages

import (
	"net/http"
	"net/url"
	"strings"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Contract section 24 on the page: which of the survey's languages it
// speaks, its texts in that language, and the switcher.

// pageLang is the language a page speaks and the survey's languages.
type pageLang struct {
	// Lang is the chosen language; Default the survey's own.
	Lang, Default string
	// All is the survey's languages, the default first.
	All []string
	// Explicit: the address named it (?lang=), so that the page's form
	// carries it on.
	Explicit bool
}

// chooseLanguage is section 24's choice (survey.ChooseLanguage, which the
// public API shares): ?lang= when it is one of the survey's languages
// (else ignored), then the browser's Accept-Language by q-value, then the
// survey's default.
func chooseLanguage(r *http.Request, c store.SurveyCollection) pageLang {
	def, _ := survey.LanguageCode(c.Survey.Language)
	pl := pageLang{Default: def, All: c.Translations.All(def)}
	pl.Lang, pl.Explicit = survey.ChooseLanguage(pl.All, r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
	return pl
}

// fallbackOpen and fallbackClose enclose the language of a text shown
// untranslated (in the default language): ltext writes it as a span with
// that lang and dir; text, everywhere else (attributes, the head), drops
// the mark. Private-use code points, which no survey text means.
const (
	fallbackOpen  = "\ue000"
	fallbackClose = "\ue001"
)

func markFallback(lang, s string) string {
	if s == "" {
		return s
	}
	return fallbackOpen + lang + fallbackClose + s
}

// unmark is s without a fallback mark, and the mark's language.
func unmark(s string) (string, string) {
	rest, ok := strings.CutPrefix(s, fallbackOpen)
	if !ok {
		return s, ""
	}
	lang, text, ok := strings.Cut(rest, fallbackClose)
	if _, known := survey.LanguageID(lang); !ok || !known {
		return s, ""
	}
	return text, lang
}

// ltext writes a text the responder reads: one shown in the default
// language on a page in another is marked with its own lang and dir.
func ltext(s string) markup {
	plain, lang := unmark(s)
	if lang == "" {
		return text(plain)
	}
	return markup(`<span lang="`+lang+`" dir="`+survey.Dir(lang)+`">`) + text(plain) + "</span>"
}

// langAttrs are the lang and dir attributes of an element that holds
// only text (an <option>, where no span may stand) shown untranslated.
func langAttrs(s string) markup {
	if _, lang := unmark(s); lang != "" {
		return markup(` lang="` + lang + `" dir="` + survey.Dir(lang) + `"`)
	}
	return ""
}

// apply answers the survey in the page's language (Translations.Apply,
// which the public API shares): its name and every element's texts,
// untranslated ones in the default language, marked.
func (pl pageLang) apply(c store.SurveyCollection) store.SurveyCollection {
	if pl.Lang == pl.Default {
		return c
	}
	c.Survey.Name, c.Elements = c.Translations.Apply(pl.Lang, pl.Default, c.Survey.Name, c.Elements,
		func(s string) string { return markFallback(pl.Default, s) })
	// auth_description has no translation (section 24 translates element
	// texts and the name): shown as written, marked with its language.
	if d := c.Settings.AuthDescription; d != nil && *d != "" {
		marked := markFallback(pl.Default, *d)
		c.Settings.AuthDescription = &marked
	}
	c.Survey.Language, _ = survey.LanguageID(pl.Lang)
	return c
}

// action is the page's form address: ?lang= carried on when the address
// named it.
func (pl pageLang) action(base string) string {
	if !pl.Explicit {
		return base
	}
	return base + "?lang=" + pl.Lang
}

// switchLabels name the switcher, in the page's language.
var switchLabels = map[string]string{"fa": "زبان", "tr": "Dil", "ar": "اللغة", "en": "Language"}

// languageNames are the switcher's names, each in its own language.
var languageNames = map[string]string{"fa": "فارسی", "tr": "Türkçe", "ar": "العربية", "en": "English"}

// switcher writes the language switcher: plain links to the page in each
// other language (the address's other parameters kept), so it works
// without JavaScript; with it, the reload resumes the answers kept in the
// browser (section 20, offline.js).
func (d *doc) switcher(pl pageLang, at *url.URL) {
	if len(pl.All) < 2 || at == nil {
		return
	}
	d.w("<nav class=\"langs\" aria-label=\"%s\"><ul>", text(switchLabels[pl.Lang]))
	for _, l := range pl.All {
		if l == pl.Lang {
			d.w("<li><span lang=\"%s\" dir=\"%s\" aria-current=\"true\">%s</span></li>", text(l), text(survey.Dir(l)), text(languageNames[l]))
			continue
		}
		q := at.Query()
		q.Set("lang", l)
		u := url.URL{Path: at.Path, RawQuery: q.Encode()}
		d.w("<li><a href=\"%s\" hreflang=\"%s\" lang=\"%s\" dir=\"%s\">%s</a></li>", text(u.String()), text(l), text(l), text(survey.Dir(l)), text(languageNames[l]))
	}
	d.w("</ul></nav>\n")
}

// stripMarks is s with any fallback mark removed (text's escaping).
func stripMarks(s string) string {
	if !strings.Contains(s, fallbackOpen) {
		return s
	}
	// Marks are cut out of valid UTF-8 only: the bytes of a malformed
	// sequence before a cut mark and those after it could otherwise join
	// into a mark (FuzzFallbackMarks). Texts from JSON are valid already.
	s = strings.ToValidUTF8(s, "\ufffd")
	var b strings.Builder
	for {
		i := strings.Index(s, fallbackOpen)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len(fallbackOpen):]
		j := strings.Index(rest, fallbackClose)
		if j < 0 || j > 2 {
			b.WriteString(fallbackOpen)
			s = rest
			continue
		}
		s = rest[j+len(fallbackClose):]
	}
}

// withLanguages gives the page its languages: the switcher's, the form's
// address (?lang= carried on), the fonts of their scripts, and Vary:
// Accept-Language where the header chooses.
func (p *surveyPage) withLanguages(w http.ResponseWriter, r *http.Request, pl pageLang) {
	p.Languages, p.At = pl, r.URL
	// Its texts may be in each of them (untranslated, or a language's
	// own name in the switcher): the fonts for their scripts.
	p.setTheme(p.Survey.Theme, pl.All...)
	p.Action = pl.action(p.Action)
	if len(pl.All) > 1 {
		w.Header().Add("Vary", "Accept-Language")
	}
}
