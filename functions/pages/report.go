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
	SVG        string // markup built from escaped text and numbers
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
		ch.SVG = barChart(labels, counts)
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
	var b strings.Builder
	h := rowH*len(labels) + 4
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img">`, width, h)
	for i, l := range labels {
		y := i*rowH + 2
		w := int(int64(barW) * counts[i] / max)
		fmt.Fprintf(&b, `<g class="item"><text x="0" y="%d" class="label">%s</text>`, y+18, esc(truncate(l, 24)))
		fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%d" width="%d" height="20" rx="3"><title>%s: %d</title></rect>`, labelW, y+2, w, esc(l), counts[i])
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="value">%d</text></g>`, labelW+w+6, y+18, counts[i])
	}
	b.WriteString(`</svg>`)
	return b.String()
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
