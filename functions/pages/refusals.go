package pages

import (
	"context"
	"net/http"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// refusalPage answers a refusal of the pages' gate (a limit's 429) on a
// page, the survey's or its report's, as a page in the survey's language
// (the survey page's in the language that page would speak) under its
// frame policy, with Retry-After: a responder who reloads too
// often sees words, not JSON (contract section 16). Other paths (oEmbed)
// answer the contract's JSON. It reads the survey as a page does (the
// slug is cached; one read of the collection); a survey it cannot read is
// answered in English.
func refusalPage(st Store) func(w http.ResponseWriter, r *http.Request, err error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		var lookup func(context.Context, string) (int64, error)
		rest, ok := strings.CutPrefix(r.URL.Path, "/s/")
		if ok {
			lookup = st.SurveyIDBySlug
		} else if rest, ok = strings.CutPrefix(r.URL.Path, "/r/"); ok {
			lookup = st.SurveyIDByReportCode
		} else {
			api.Error(w, r, err)
			return
		}
		code, _, _ := strings.Cut(rest, "/")
		lang, title, set, theme := "en", "", survey.Settings{}, survey.DefaultTheme()
		if sid, lerr := lookup(r.Context(), code); lerr == nil {
			if c, cerr := st.PublicCollection(r.Context(), sid, false); cerr == nil && !c.Survey.Deleted {
				title, set, theme = c.Survey.Name, c.Settings, c.Survey.Theme
				// The language the page would speak (section 24): the
				// survey page's choice, the report's ?lang=.
				pl := chooseLanguage(r, c)
				if strings.HasPrefix(r.URL.Path, "/r/") {
					pl.Lang = pl.Default
					if q := r.URL.Query().Get("lang"); c.Translations.Has(q, pl.Default) {
						pl.Lang = q
					}
				}
				lang = pl.Lang
				title, _ = c.Translations.Name(pl.Lang, pl.Default, title)
			}
		}
		writeRefusal(w, r, lang, title, err, set, theme)
	}
}

// writeRefusal answers err as a page with its message in lang, in the
// survey's theme, under its status and the headers the contract gives it
// (Retry-After).
func writeRefusal(w http.ResponseWriter, r *http.Request, lang, title string, err error, set survey.Settings, theme survey.Theme) {
	e, status := api.ErrorHead(w, r, err)
	msgs := messages(e, nil, lang)
	if title == "" {
		title = msgs[0]
	}
	p := newPage(lang, title)
	p.Message = strings.Join(msgs, " ")
	writeThemedMessage(w, r, status, p, theme, set)
}
