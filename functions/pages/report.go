package pages

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
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
	// Note says what the values are, when they are not counts.
	Note string
	// NPS is a 0-10 opinion scale's Net Promoter Score, nil for others.
	NPS *npsScore
}

// npsScore is a 0-10 scale's Net Promoter Score: the share of promoters
// (9-10) less that of detractors (0-6), -100 to 100, and the three
// groups' shares (passives 7-8), in whole percents.
type npsScore struct{ Score, Promoters, Passives, Detractors int64 }

// newNPS scores a 0-10 scale's counts by value (counts[v]); ok is false
// with no answers.
func newNPS(counts map[int64]int64) (s npsScore, ok bool) {
	var pro, pas, det int64
	for v, k := range counts {
		switch {
		case v >= 9:
			pro += k
		case v >= 7:
			pas += k
		default:
			det += k
		}
	}
	n := pro + pas + det
	if n == 0 {
		return s, false
	}
	pct := func(k int64) int64 { return int64(math.Round(100 * float64(k) / float64(n))) }
	return npsScore{Score: int64(math.Round(100 * float64(pro-det) / float64(n))), Promoters: pct(pro), Passives: pct(pas), Detractors: pct(det)}, true
}

// signed is the score with its sign, as NPS is written (+40, −20, 0).
func (s npsScore) signed() string {
	switch {
	case s.Score > 0:
		return "+" + strconv.FormatInt(s.Score, 10)
	case s.Score < 0:
		return "−" + strconv.FormatInt(-s.Score, 10)
	}
	return "0"
}

// isNPS reports whether a question is scored as a Net Promoter Score on
// the report: an opinion scale from 0 to 10, the scale NPS asks on.
func isNPS(e survey.Element) bool {
	return e.Type == survey.TypeOpinionScale && e.ScaleMin == 0 && e.ScaleMax == 10
}

// look is how a chart is drawn for its page: right to left, and the
// digit zero of its numbers (zeroOf).
type look struct {
	rtl  bool
	zero rune
}

// n writes a count in the chart's digits.
func (l look) n(v int64) string { return localDigits(l.zero, strconv.FormatInt(v, 10)) }

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
		// ?lang= (contract section 24): the report in one of the survey's
		// languages, its titles and labels translated where they are
		// (the counts are by id, the same in every language); any
		// other lang is a 400, before the aggregates are read.
		def, _ := survey.LanguageCode(c.Survey.Language)
		lang := def
		if vals, ok := r.URL.Query()["lang"]; ok && vals[0] != def {
			if !c.Translations.Has(vals[0], def) {
				writeMessage(w, r, http.StatusBadRequest, "en", "Report", "lang: "+survey.MsgUnknownLanguage)
				return nil
			}
			lang = vals[0]
			c.Elements = c.Translations.LocalizeAll(lang, def, c.Elements)
		}
		name, _ := c.Translations.Name(lang, def, c.Survey.Name)
		agg, err := st.Aggregates(ctx, sid)
		if err != nil {
			return err
		}
		p := reportPage{page: newPage(lang, name+" — "+textsFor(lang).Report)}
		p.setTheme(c.Survey.Theme)
		p.Wide = true
		p.Report = buildReport(c, agg, p.T, look{rtl: p.Dir == "rtl", zero: p.T.Zero})
		writePage(w, r, http.StatusOK, renderReport(p), p.ThemeCSS)
		return nil
	})
}

// buildReport draws a chart for each question with show_charts, in survey
// order.
func buildReport(c store.SurveyCollection, agg store.Aggregate, t texts, lk look) report {
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
				labels = append(labels, lk.n(v))
				counts = append(counts, k)
				sum, n = sum+v*k, n+k
			}
			if n > 0 {
				ch.HasAverage, ch.Average = true, float64(sum)/float64(n)
			}
			if s, ok := newNPS(agg.Scales[e.ID]); ok && isNPS(e) {
				ch.NPS = &s
			}
		case survey.TypeMatrix:
			var rows, cols []string
			grid := make([][]int64, len(e.Rows))
			for i, r := range e.Rows {
				rows = append(rows, r.Name)
				for _, col := range e.Columns {
					grid[i] = append(grid[i], agg.Matrix[e.ID][r.ID][col.ID])
				}
			}
			for _, col := range e.Columns {
				cols = append(cols, col.Name)
			}
			ch.SVG = markup(matrixChart(len(rep.Charts), e.Title, rows, cols, grid, lk)) // escaped text and numbers
			rep.Charts = append(rep.Charts, ch)
			continue
		case survey.TypeRanking:
			var names []string
			var totals []store.RankTotal
			for _, x := range e.Choices {
				names = append(names, x.Name)
				totals = append(totals, agg.Ranks[e.ID][x.ID])
			}
			ch.Note = t.MeanRank
			ch.SVG = markup(rankingChart(len(rep.Charts), e.Title, t, names, totals, lk)) // escaped text and numbers
			rep.Charts = append(rep.Charts, ch)
			continue
		default:
			continue
		}
		ch.SVG = markup(barChart(len(rep.Charts), e.Title, labels, counts, lk)) // written by doc.w: escaped text and numbers
		rep.Charts = append(rep.Charts, ch)
	}
	return rep
}

// Chart geometry, in the SVG's units. The SVG is drawn at most
// chartMaxWidth CSS pixels wide (report.css) and shrinks with a phone's
// screen; at 340 units its 12-unit text stays at 12 px or more down to a
// 390 px phone's chart.
const (
	chartWidth  = 340
	chartLabelW = 124 // the labels' column
	chartValueW = 40  // the counts' column, beyond the longest bar
	chartRowH   = 28
	chartLabel  = 18 // characters of a label drawn; the whole is in the description
)

// barChart draws horizontal bars, one a label, each with its count.
func barChart(n int, title string, labels []string, counts []int64, lk look) string {
	var max int64 = 1
	for _, c := range counts {
		max = maxInt(max, c)
	}
	rows := make([]barRow, len(labels))
	var desc []string
	for i, l := range labels {
		rows[i] = barRow{label: l, frac: float64(counts[i]) / float64(max), value: lk.n(counts[i])}
		desc = append(desc, l+": "+lk.n(counts[i]))
	}
	return bars(n, title, strings.Join(desc, "; "), rows, lk.rtl)
}

// barRow is one bar: its label, its length (0 to 1 of the bars' column)
// and the value written past its end.
type barRow struct {
	label string
	frac  float64
	value string
}

// chartHead opens a chart's SVG h units high: an image with a name and a
// description that reads every count (a screen reader reads those, not
// the drawing), in the page's direction.
func chartHead(d *doc, n, h int, title, desc string, rtl bool) {
	dir := markup("ltr")
	if rtl {
		dir = "rtl"
	}
	d.w(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" role="img" direction="%s" aria-labelledby="chart%s-t chart%s-d">`,
		num(chartWidth), num(h), dir, num(n), num(n))
	d.w(`<title id="chart%s-t">%s</title><desc id="chart%s-d">%s</desc>`, num(n), text(title), num(n), text(desc))
}

// bars draws horizontal bars, one a row. On a right-to-left page the chart
// is drawn mirrored: labels on the right, bars growing leftward, values
// past their ends. The SVG has no style attributes (the page's CSS styles
// it) and its text is escaped.
func bars(n int, title, desc string, rows []barRow, rtl bool) string {
	barW := chartWidth - chartLabelW - chartValueW
	var d doc
	chartHead(&d, n, chartRowH*len(rows)+4, title, desc, rtl)
	for i, r := range rows {
		y := i*chartRowH + 2
		w := int(float64(barW) * min(max(r.frac, 0), 1))
		// In the SVG's direction, text-anchor start is the text's left
		// edge (ltr) or its right edge (rtl).
		// Labels stand 2 units in from the edge: a glyph's side bearing
		// may reach past its anchor.
		labelX, barX, valueX, trackX := 2, chartLabelW, chartLabelW+w+6, chartLabelW
		if rtl {
			labelX, barX, valueX, trackX = chartWidth-2, chartWidth-chartLabelW-w, chartWidth-chartLabelW-w-6, chartWidth-chartLabelW-barW
		}
		d.w(`<g class="item"><text x="%s" y="%s" class="label">%s</text>`, num(labelX), num(y+18), text(truncate(r.label, chartLabel)))
		// A track under every bar: a zero count (a Persian ۰ is a dot)
		// sits at the start of its empty track, not floating in the
		// chart's white.
		d.w(`<rect class="track" x="%s" y="%s" width="%s" height="20" rx="3"></rect>`, num(trackX), num(y+2), num(barW))
		d.w(`<rect class="bar" x="%s" y="%s" width="%s" height="20" rx="3"></rect>`, num(barX), num(y+2), num(w))
		d.w(`<text x="%s" y="%s" class="value">%s</text></g>`, num(valueX), num(y+18), text(r.value))
	}
	d.w(`</svg>`)
	return string(d.bytes())
}

// chartColors is how many segment colours the page's CSS has (.seg0 to
// .seg5, dark and mid tones in turn, each at least 3:1 on white, with its
// count's text colour .sc0 to .sc5); a matrix with more columns uses them
// again, in order.
const chartColors = 6

// segMin is the narrowest a segment of count k is drawn, in the SVG's
// units: room for its count, written inside it.
func segMin(k int64) float64 { return float64(7*len(strconv.FormatInt(k, 10)) + 8) }

// segWidths lays out a row's segments in w units: each in proportion to
// its count, but none narrower than its count needs (segMin), the room
// for those taken from the wider ones. A row whose counts need more than
// w gets what they need.
func segWidths(counts []int64, total int64, w float64) []float64 {
	out := make([]float64, len(counts))
	var need float64
	for _, k := range counts {
		if k > 0 {
			need += segMin(k)
		}
	}
	w = max(w, need)
	var sum, slack float64
	for i, k := range counts {
		if k == 0 {
			continue
		}
		out[i] = max(segMin(k), w*float64(k)/float64(total))
		sum += out[i]
		slack += out[i] - segMin(k)
	}
	if excess := sum - w; excess > 0 && slack > 0 {
		for i, k := range counts {
			if k > 0 {
				out[i] -= excess * (out[i] - segMin(k)) / slack
			}
		}
	}
	return out
}

// matrixChart draws a matrix's answers: a bar a row, stacked from the
// count of each column picked in it (in column order, each segment its
// column's colour, apart from the next by a white gap, its count written
// inside it: WCAG 1.4.1 and 1.4.11), the row's total past its end, and a
// legend of the columns below. Its description reads every count: each
// row, then each column's count in it.
func matrixChart(n int, title string, rows, cols []string, counts [][]int64, lk look) string {
	var max int64 = 1
	totals := make([]int64, len(rows))
	var desc []string
	for i, r := range rows {
		var parts []string
		for j, c := range cols {
			totals[i] += counts[i][j]
			parts = append(parts, c+" "+lk.n(counts[i][j]))
		}
		max = maxInt(max, totals[i])
		desc = append(desc, fmt.Sprintf("%s: %s", r, strings.Join(parts, ", ")))
	}
	barW := chartWidth - chartLabelW - chartValueW
	var d doc
	chartHead(&d, n, chartRowH*(len(rows)+len(cols))+12, title, strings.Join(desc, "; "), lk.rtl)
	for i, r := range rows {
		y := i*chartRowH + 2
		widths := segWidths(counts[i], totals[i], float64(int64(barW)*totals[i]/max))
		var at float64 // the width drawn before this segment
		for _, w := range widths {
			at += w
		}
		w := int(math.Round(at))
		labelX, valueX := 2, chartLabelW+w+6
		if lk.rtl {
			labelX, valueX = chartWidth-2, chartWidth-chartLabelW-w-6
		}
		d.w(`<g class="item"><text x="%s" y="%s" class="label">%s</text>`, num(labelX), num(y+18), text(truncate(r, chartLabel)))
		at = 0
		for j, c := range cols {
			k := counts[i][j]
			if k == 0 {
				continue
			}
			x0, x1 := int(math.Round(at)), int(math.Round(at+widths[j]))
			at += widths[j]
			x := chartLabelW + x0
			if lk.rtl {
				x = chartWidth - chartLabelW - x1
			}
			d.w(`<rect class="seg seg%s" x="%s" y="%s" width="%s" height="20"><title>%s</title></rect>`,
				num(j%chartColors), num(x), num(y+2), num(x1-x0), text(fmt.Sprintf("%s, %s: %s", r, c, lk.n(k))))
			d.w(`<text class="sc sc%s" x="%s" y="%s">%s</text>`, num(j%chartColors), num(x+(x1-x0)/2), num(y+17), text(lk.n(k)))
		}
		d.w(`<text x="%s" y="%s" class="value">%s</text></g>`, num(valueX), num(y+18), text(lk.n(totals[i])))
	}
	// The legend: a swatch and a column's name a line.
	top := chartRowH*len(rows) + 10
	for j, c := range cols {
		y := top + j*chartRowH
		swatchX, labelX := 2, 24
		if lk.rtl {
			swatchX, labelX = chartWidth-18, chartWidth-24
		}
		d.w(`<g class="legend"><rect class="seg seg%s" x="%s" y="%s" width="16" height="16"></rect><text x="%s" y="%s" class="label">%s</text></g>`,
			num(j%chartColors), num(swatchX), num(y+4), num(labelX), num(y+17), text(truncate(c, 2*chartLabel)))
	}
	d.w(`</svg>`)
	return string(d.bytes())
}

// rankingChart draws a ranking's mean rank per choice (1 is first), best
// first: the longer the bar, the better the rank (a mean of 1 fills the
// column, the last rank a sliver), the mean written past its end. Its
// description reads each choice's mean rank and how many ranked it.
func rankingChart(n int, title string, t texts, names []string, totals []store.RankTotal, lk look) string {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ta, tb := totals[order[a]], totals[order[b]]
		if (ta.Count == 0) != (tb.Count == 0) {
			return tb.Count == 0
		}
		return ta.Mean() < tb.Mean()
	})
	k := float64(max(len(names), 1))
	rows := make([]barRow, 0, len(names))
	var desc []string
	for _, i := range order {
		tot := totals[i]
		r := barRow{label: names[i], value: "–"}
		if tot.Count > 0 {
			r.frac, r.value = (k+1-tot.Mean())/k, localDigits(lk.zero, string(decimal(tot.Mean())))
		}
		rows = append(rows, r)
		desc = append(desc, fmt.Sprintf("%s: %s (%s %s)", names[i], r.value, t.Rankings, lk.n(tot.Count)))
	}
	return bars(n, title+" — "+t.MeanRank, strings.Join(desc, "; "), rows, lk.rtl)
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
