package pages

import (
	"fmt"
	"net/http"
	"strings"

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
		p.Report = buildReport(c, agg, p.Dir == "rtl")
		writePage(w, r, http.StatusOK, renderReport(p), p.ThemeCSS)
		return nil
	})
}

// buildReport draws a chart for each question with show_charts, in survey
// order.
func buildReport(c store.SurveyCollection, agg store.Aggregate, rtl bool) report {
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
		ch.SVG = markup(barChart(len(rep.Charts), e.Title, labels, counts, rtl)) // written by doc.w: escaped text and numbers
		rep.Charts = append(rep.Charts, ch)
	}
	return rep
}

// Chart geometry, in the SVG's units. The SVG is drawn at most
// chartMaxWidth CSS pixels wide (app.css) and shrinks with a phone's
// screen; at 340 units its 12-unit text stays at 12 px or more down to a
// 390 px phone's chart.
const (
	chartWidth  = 340
	chartLabelW = 124 // the labels' column
	chartValueW = 40  // the counts' column, beyond the longest bar
	chartRowH   = 28
	chartLabel  = 18 // characters of a label drawn; the whole is in the description
)

// barChart draws horizontal bars, one a label, each with its count. It
// is an image with a name and a description that reads every count (a
// screen reader reads those, not the drawing). On a right-to-left page it
// is drawn mirrored: labels on the right, bars growing leftward, counts
// past their ends. The SVG has no style attributes (the page's CSS styles
// it) and its text is escaped.
func barChart(n int, title string, labels []string, counts []int64, rtl bool) string {
	var max int64 = 1
	for _, c := range counts {
		max = maxInt(max, c)
	}
	barW := chartWidth - chartLabelW - chartValueW
	var d doc
	h := chartRowH*len(labels) + 4
	dir := markup("ltr")
	if rtl {
		dir = "rtl"
	}
	var desc []string
	for i, l := range labels {
		desc = append(desc, fmt.Sprintf("%s: %d", l, counts[i]))
	}
	d.w(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" direction="%s" aria-labelledby="chart%s-t chart%s-d">`,
		num(chartWidth), num(h), dir, num(n), num(n))
	d.w(`<title id="chart%s-t">%s</title><desc id="chart%s-d">%s</desc>`, num(n), text(title), num(n), text(strings.Join(desc, "; ")))
	for i, l := range labels {
		y := i*chartRowH + 2
		w := int(int64(barW) * counts[i] / max)
		// In the SVG's direction, text-anchor start is the text's left
		// edge (ltr) or its right edge (rtl).
		// Labels stand 2 units in from the edge: a glyph's side bearing
		// may reach past its anchor.
		labelX, barX, valueX := 2, chartLabelW, chartLabelW+w+6
		if rtl {
			labelX, barX, valueX = chartWidth-2, chartWidth-chartLabelW-w, chartWidth-chartLabelW-w-6
		}
		d.w(`<g class="item"><text x="%s" y="%s" class="label">%s</text>`, num(labelX), num(y+18), text(truncate(l, chartLabel)))
		d.w(`<rect class="bar" x="%s" y="%s" width="%s" height="20" rx="3"></rect>`, num(barX), num(y+2), num(w))
		d.w(`<text x="%s" y="%s" class="value">%s</text></g>`, num(valueX), num(y+18), num(counts[i]))
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
