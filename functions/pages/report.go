package pages

import (
	"fmt"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// chart is one element's chart on the report.
type chart struct {
	Title      string
	SVG        markup
	HasAverage bool
	Average    float64
}

// report is what the report template reads.
type report struct {
	Count  int64
	Charts []chart
}

type reportPage struct {
	page
	Report report
}

// handleReport renders a survey's public report: one GetItem of the
// report code, the survey's item collection and its aggregate shards (one
// BatchGetItem): never its responses, so the time does not grow with
// them. Unknown codes and trashed surveys answer a 404 page.
func handleReport(st Store) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		c, ok := liveSurvey(w, r, st, st.SurveyIDByReportCode, r.PathValue("report_code"))
		if !ok {
			return nil
		}
		sid := c.Survey.ID
		agg, err := st.Aggregates(ctx, sid)
		if err != nil {
			return err
		}
		lang, _ := survey.LanguageCode(c.Survey.Language)
		p := reportPage{page: newPage(lang, c.Survey.Name+" — "+textsFor(lang).Report)}
		p.ThemeCSS = themeCSS(c.Survey.Theme)
		p.Report = buildReport(c, agg)
		writePage(w, r, http.StatusOK, renderReport(p), p.ThemeCSS)
		return nil
	})
}

// buildReport draws a chart for each question with show_charts, in survey
// order.
func buildReport(c store.SurveyCollection, agg store.Aggregate) report {
	rep := report{Count: agg.Responses}
	for _, e := range c.Layout.QuestionElements(c.Elements) {
		if !e.ShowCharts {
			continue
		}
		var labels []string
		var counts []int64
		ch := chart{Title: e.Title}
		switch e.Type {
		case survey.TypeMultipleChoice, survey.TypePictureChoice, survey.TypeDropdown:
			for _, x := range e.Choices {
				labels = append(labels, x.Name)
				counts = append(counts, agg.Choices[e.ID][x.ID])
			}
		case survey.TypeOpinionScale, survey.TypeRating:
			lo, hi := e.ScaleMin, e.ScaleMax
			if e.Type == survey.TypeRating {
				lo, hi = 1, e.RatingMax
			}
			var sum, n int64
			for v := lo; v <= hi; v++ {
				k := agg.Scales[e.ID][v]
				labels = append(labels, fmt.Sprint(v))
				counts = append(counts, k)
				sum, n = sum+v*k, n+k
			}
			if n > 0 {
				ch.HasAverage, ch.Average = true, float64(sum)/float64(n)
			}
		default:
			continue
		}
		ch.SVG = markup(barChart(labels, counts)) // written by doc.w: escaped text and numbers
		rep.Charts = append(rep.Charts, ch)
	}
	return rep
}

// barChart draws horizontal bars, one a label, each with its count. The
// SVG has no style attributes (the page's CSS styles it) and its text is
// escaped.
func barChart(labels []string, counts []int64) string {
	const rowH, labelW, barW, width = 28, 160, 240, 460
	var max int64 = 1
	for _, n := range counts {
		max = maxInt(max, n)
	}
	var d doc
	h := rowH*len(labels) + 4
	d.w(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img">`, num(width), num(h))
	for i, l := range labels {
		y := i*rowH + 2
		w := int(int64(barW) * counts[i] / max)
		d.w(`<g class="item"><text x="0" y="%s" class="label">%s</text>`, num(y+18), text(truncate(l, 24)))
		d.w(`<rect class="bar" x="%s" y="%s" width="%s" height="20" rx="3"><title>%s: %s</title></rect>`, num(labelW), num(y+2), num(w), text(l), num(counts[i]))
		d.w(`<text x="%s" y="%s" class="value">%s</text></g>`, num(labelW+w+6), num(y+18), num(counts[i]))
	}
	d.w(`</svg>`)
	return string(d.bytes())
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
