package pages

import (
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// handleSheet renders a responder's answer sheet (contract section 15):
// their score and each scored question they were shown, with their answer
// and, once the settings and the survey's state show the key, the correct
// choice. A bad token, or a survey that does not show sheets, is a 404
// page.
func handleSheet(svc responding.Service) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		sheet, c, err := svc.OpenSheet(r.Context(), r.PathValue("url_slug"), r.PathValue("sheet_token"))
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			writeNotFound(w, r)
			return nil
		}
		if err != nil {
			return err
		}
		lang, _ := survey.LanguageCode(c.Survey.Language)
		p := newPage(lang, c.Survey.Name)
		p.setTheme(c.Survey.Theme)
		writePage(w, r, http.StatusOK, renderSheet(p, sheet, c.Elements), p.ThemeCSS)
		return nil
	})
}

func renderSheet(p page, sh survey.Sheet, elements map[int64]survey.Element) []byte {
	var d doc
	d.head(p)
	d.w("<h1>%s</h1>\n<section class=\"sheet\" id=\"sheet\" aria-labelledby=\"score\">\n", text(p.Title))
	d.w("<p class=\"score\" id=\"score\">%s: <strong>%s</strong></p>\n<ol class=\"sheet-questions\">\n", text(p.T.Score), text(localDigits(p.T.Zero, sh.Score.String())))
	for _, q := range sh.Questions {
		e := elements[q.ID]
		d.w("<li class=\"sheet-q\" data-id=\"%s\"><h2>%s</h2>\n<p class=\"yours\">%s: %s</p>\n", num(q.ID), text(q.Title), text(p.T.YourAnswer), text(e.AnswerText(q.YourAnswer)))
		if q.CorrectChoice != nil {
			name := ""
			if c, ok := e.Choice(*q.CorrectChoice); ok {
				name = c.Name
			}
			mark := p.T.Wrong
			if e.AnsweredRight(q.YourAnswer) {
				mark = p.T.Right
			}
			d.w("<p class=\"key\">%s: %s <span class=\"mark\">(%s)</span></p>\n", text(p.T.CorrectAnswer), text(name), text(mark))
		}
		d.w("</li>\n")
	}
	d.w("</ol>\n</section>\n")
	d.foot()
	return d.bytes()
}
