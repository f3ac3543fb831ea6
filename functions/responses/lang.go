package responses

import (
	"net/url"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Contract section 24: answers are stored as ids, so one response reads
// the same in every language; the owner chooses the language of the
// titles, labels and choice, row and column names with ?lang=.

// hasLang reports whether the request names a language: the list then
// reads the survey's collection (its languages) rather than its item.
func hasLang(q url.Values) bool {
	_, ok := q["lang"]
	return ok
}

// langParam is the language ?lang= names, checked against the survey's
// languages: absent, the survey's own; one that is not the survey's (its
// default or one of its others) answers 400 on lang.
func langParam(q url.Values, c store.SurveyCollection) (string, error) {
	def, _ := survey.LanguageCode(c.Survey.Language)
	vals, ok := q["lang"]
	if !ok || vals[0] == def {
		return def, nil
	}
	if c.Translations.Has(vals[0], def) {
		return vals[0], nil
	}
	return "", survey.FieldError("lang", survey.MsgUnknownLanguage)
}

// inLanguage is the collection with its elements' texts in lang, the
// untranslated ones in the default language (the default answers c as it
// is). The elements are copies: the container's cached collection is
// never changed.
func inLanguage(c store.SurveyCollection, lang string) store.SurveyCollection {
	def, _ := survey.LanguageCode(c.Survey.Language)
	c.Elements = c.Translations.LocalizeAll(lang, def, c.Elements)
	return c
}

// collectionIn reads ?lang= and answers the collection in that language.
func collectionIn(q url.Values, c store.SurveyCollection) (store.SurveyCollection, string, error) {
	lang, err := langParam(q, c)
	if err != nil {
		return c, "", err
	}
	return inLanguage(c, lang), lang, nil
}
