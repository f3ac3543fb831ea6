package pages

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func view(e survey.Element) survey.ElementView {
	return survey.ElementView{ElementFields: survey.ElementFields{Element: e}}
}

// TestPersianDigits: a Persian page writes the numbers people read (a
// scale's values, a ranking's places, the report's count, average and
// chart values) in Persian digits; the values the form sends stay ASCII.
func TestPersianDigits(t *testing.T) {
	t.Parallel()
	scale := view(survey.Element{ID: 1, Type: survey.TypeOpinionScale, Title: "چقدر؟", ScaleMin: 0, ScaleMax: 10})
	rank := view(survey.Element{ID: 2, Type: survey.TypeRanking, Title: "ترتیب"})
	rank.Choices = []survey.ChoiceItem{{ID: 3, Name: "چای"}, {ID: 4, Name: "قهوه"}}
	v := survey.ResponderSurvey{URLSlug: "s", Name: "نظرسنجی", Language: "fa", Questions: [][]survey.ElementView{{scale}, {rank}}}
	out := string(renderSurvey(surveyPage{page: newPage("fa", v.Name), Survey: v, Action: "/s/s/"}))
	for _, want := range []string{`value="10">۱۰</label>`, `value="0">۰</label>`, `<option value="2">۲</option>`} {
		if !strings.Contains(out, want) {
			t.Errorf("the Persian page lacks %s", want)
		}
	}
	p := reportPage{page: newPage("fa", "گزارش")}
	p.Report = report{Count: 125, Charts: []chart{{Title: "چقدر؟", HasAverage: true, Average: 7.25, SVG: markup(barChart(0, "x", []string{"۹"}, []int64{42}, look{zero: '۰'}))}}}
	rep := string(renderReport(p))
	for _, want := range []string{"<strong>۱۲۵</strong>", "۷٫۲۵", `class="value">۴۲</text>`} {
		if !strings.Contains(rep, want) {
			t.Errorf("the Persian report lacks %s", want)
		}
	}
	if regexp.MustCompile(`>[^<]*[0-9][^<]*</(strong|text|option|label)>`).MatchString(rep + out) {
		t.Errorf("a Latin digit is shown on a Persian page: %s", regexp.MustCompile(`>[^<]*[0-9][^<]*</(strong|text|option|label)>`).FindString(rep+out))
	}
}

// TestNPS: a 0-10 opinion scale's report shows its Net Promoter Score
// (promoters 9-10 less detractors 0-6, -100..100) and the three groups'
// shares; another scale shows none.
func TestNPS(t *testing.T) {
	t.Parallel()
	counts := map[int64]int64{10: 3, 9: 2, 8: 2, 7: 1, 5: 1, 0: 1} // 5 promoters, 3 passives, 2 detractors of 10
	s, ok := newNPS(counts)
	if !ok || s != (npsScore{Score: 30, Promoters: 50, Passives: 30, Detractors: 20}) || s.signed() != "+30" {
		t.Errorf("NPS %+v %q, want +30 (50/30/20)", s, s.signed())
	}
	if s, _ := newNPS(map[int64]int64{0: 1}); s.signed() != "−100" {
		t.Errorf("all detractors: %q", s.signed())
	}
	if _, ok := newNPS(nil); ok {
		t.Errorf("a score of no answers")
	}
	if !isNPS(survey.Element{Type: survey.TypeOpinionScale, ScaleMin: 0, ScaleMax: 10}) || isNPS(survey.Element{Type: survey.TypeOpinionScale, ScaleMin: 1, ScaleMax: 5}) {
		t.Errorf("isNPS")
	}
	p := reportPage{page: newPage("en", "r")}
	p.Report = report{Count: 10, Charts: []chart{{Title: "Recommend?", NPS: &s}}}
	if out := string(renderReport(p)); !strings.Contains(out, "Net Promoter Score: <strong dir=\"ltr\">+30</strong>") || !strings.Contains(out, "promoters 50%, passives 30%, detractors 20%") {
		t.Errorf("the report lacks the NPS: %s", out)
	}
	p.page = newPage("fa", "r")
	if out := string(renderReport(p)); !strings.Contains(out, `<strong dir="ltr">+۳۰</strong>`) || !strings.Contains(out, "مروجان ۵۰٪، منفعل‌ها ۳۰٪، منتقدان ۲۰٪") {
		t.Errorf("the Persian report's NPS: %s", out)
	}
}

// TestMatrixSegments: every segment of a matrix chart carries its count,
// however small beside the others, and fits its row; the segment colours
// are 3:1 against white (the gaps between them) and their neighbours, and
// each count's text 4.5:1 on its segment (WCAG 1.4.1, 1.4.11).
func TestMatrixSegments(t *testing.T) {
	t.Parallel()
	svg := matrixChart(0, "m", []string{"Kitchen"}, []string{"Good", "Fair", "Poor"}, [][]int64{{1000, 1, 3}}, look{zero: '0'})
	for _, want := range []string{`>1000</text>`, `>1</text>`, `>3</text>`} {
		if !strings.Contains(svg, `class="sc sc`) || !strings.Contains(svg, want) {
			t.Errorf("the chart lacks the count %s: %s", want, svg)
		}
	}
	for _, w := range segWidths([]int64{1000, 1, 3}, 1004, 176) {
		if w < segMin(1) {
			t.Errorf("a segment %v units wide, narrower than its count", w)
		}
	}
	if ws := segWidths([]int64{1000, 1, 3}, 1004, 176); ws[0]+ws[1]+ws[2] > 176.001 {
		t.Errorf("segments %v wider than the row", ws)
	}
	css, err := web.ReadFile("web/report.css")
	if err != nil {
		t.Fatal(err)
	}
	var pal []rgb
	for i := range chartColors {
		m := regexp.MustCompile(`\.seg` + string(rune('0'+i)) + `\{fill:(#[0-9a-f]{6})\}`).FindSubmatch(css)
		if m == nil {
			t.Fatalf("report.css has no colour for .seg%d", i)
		}
		c, _ := parseHex(string(m[1]))
		pal = append(pal, c)
	}
	black := rgb{0x11, 0x11, 0x11}
	for i, c := range pal {
		next := pal[(i+1)%len(pal)]
		txt := white
		if i%2 == 1 {
			txt = black
		}
		if contrast(c, white) < 3 || contrast(c, next) < 3 || contrast(c, txt) < 4.5 {
			t.Errorf(".seg%d %s: %.2f on white, %.2f against .seg%d, its count %.2f", i, c.hex(), contrast(c, white), contrast(c, next), (i+1)%len(pal), contrast(c, txt))
		}
	}
}

// TestRankingList: a ranking is a list in rank order with a select a
// choice (the plain form's fields), two move buttons each and a live
// region; a plain form shown again lists the choices in its ranks; only a
// page with a ranking loads ranking.js and ranking.css.
func TestRankingList(t *testing.T) {
	t.Parallel()
	rank := view(survey.Element{ID: 2, Type: survey.TypeRanking, Title: "Order"})
	rank.Choices = []survey.ChoiceItem{{ID: 3, Name: "Tea"}, {ID: 4, Name: "Coffee"}, {ID: 5, Name: "Juice"}}
	var d doc
	d.question(rank, url.Values{"r2_3": {"3"}, "r2_4": {"1"}, "r2_5": {"2"}}, textsFor("en"), false)
	out := string(d.bytes())
	order := regexp.MustCompile(`class="rank-name">(\w+)<`).FindAllStringSubmatch(out, -1)
	if len(order) != 3 || order[0][1] != "Coffee" || order[1][1] != "Juice" || order[2][1] != "Tea" {
		t.Errorf("the items are not in rank order: %v", order)
	}
	for _, want := range []string{`<ol class="ranks">`, `name="r2_4"`, `<span class="sr">Move up: Coffee</span>`,
		`<span class="sr">Move down: Tea</span>`, `aria-live="polite"`, `data-msg="%s: %d of %d"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the ranking lacks %s", want)
		}
	}
	v := survey.ResponderSurvey{URLSlug: "s", Name: "n", Language: "en", Questions: [][]survey.ElementView{{rank}}}
	page := string(renderSurvey(surveyPage{page: newPage("en", "n"), Survey: v, Action: "/s/s/"}))
	if !strings.Contains(page, assetNames["ranking.js"]) || !strings.Contains(page, `<link rel="stylesheet" href="`+assetNames["ranking.css"]+`">`) {
		t.Errorf("a page with a ranking does not load ranking.js and ranking.css")
	}
	v.Questions = [][]survey.ElementView{{view(survey.Element{ID: 6, Type: survey.TypeText, Title: "Why"})}}
	if page := string(renderSurvey(surveyPage{page: newPage("en", "n"), Survey: v, Action: "/s/s/"})); strings.Contains(page, "ranking.") {
		t.Errorf("a page without a ranking loads its script or styles")
	}
}

// TestPlainThanks: the plain form's thanks keeps the survey's theme and
// footer and shows the thanks as a heading, as the script's page does.
func TestPlainThanks(t *testing.T) {
	t.Parallel()
	v := survey.ResponderSurvey{URLSlug: "s", Name: "Lunch", Language: "en", Theme: survey.Theme{BackgroundColor: "#102030"},
		Appreciations: []survey.ElementView{view(survey.Element{Title: "Thanks a lot", Description: "See you"})}}
	p := newSurveyPage(v, &http.Request{URL: &url.URL{}})
	out := string(renderPlainThanks(p, "/s/s/sheet/x/"))
	for _, want := range []string{"<style>:root{--bg:#102030;}</style>", `<h2 id="message">Thanks a lot</h2><p>See you</p>`, `id="sheet-link"`, `<footer class="brand">`} {
		if !strings.Contains(out, want) {
			t.Errorf("the plain thanks lacks %s:\n%s", want, out)
		}
	}
}
