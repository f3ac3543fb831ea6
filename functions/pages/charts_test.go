package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestMatrixRankingCharts: a matrix and a ranking with show_charts get a
// chart on the report: the matrix a stacked bar a
// row (a segment for each column picked in it, the row's total past its
// end, a legend), the ranking the mean rank of each choice, best first;
// each chart's description reads every count; the counts follow an edit
// and a delete (through the tally); a Persian report draws them right to
// left, inside the chart's box.
func TestMatrixRankingCharts(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "charts", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []int64{4, 1} { // English, Persian
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "Charts", Language: lang, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		ids, err := st.NewIDs(ctx, "choice", 8)
		if err != nil {
			t.Fatal(err)
		}
		m := survey.NewElement(survey.TypeMatrix)
		m.Title, m.ShowCharts = "Rate the rooms", true
		m.Rows = []survey.NamedItem{{ID: ids[0], Name: "Kitchen"}, {ID: ids[1], Name: "Garden"}}
		m.Columns = []survey.NamedItem{{ID: ids[2], Name: "Good"}, {ID: ids[3], Name: "Fair"}, {ID: ids[4], Name: "Poor"}}
		r := survey.NewElement(survey.TypeRanking)
		r.Title, r.ShowCharts = "Order the drinks", true
		r.Choices = []survey.ChoiceItem{{ID: ids[5], Name: "Tea"}, {ID: ids[6], Name: "Coffee"}, {ID: ids[7], Name: "Juice"}}
		var els []survey.Element
		for _, e := range []survey.Element{m, r} {
			ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{})
			if err != nil {
				t.Fatal(err)
			}
			els = append(els, ch.Element)
		}
		m, r = els[0], els[1]
		byID := map[int64]survey.Element{m.ID: m, r.ID: r}
		kitchen, garden, good, fair, poor := m.Rows[0].ID, m.Rows[1].ID, m.Columns[0].ID, m.Columns[1].ID, m.Columns[2].ID
		tea, coffee, juice := r.Choices[0].ID, r.Choices[1].ID, r.Choices[2].ID
		answers := func(rows map[int64]int64, ranked ...int64) map[int64]json.RawMessage {
			mr := map[string]int64{}
			for k, v := range rows {
				mr[fmt.Sprint(k)] = v
			}
			mj, _ := json.Marshal(mr)
			rj, _ := json.Marshal(ranked)
			return map[int64]json.RawMessage{m.ID: mj, r.ID: rj}
		}
		submit := func(i int, ans map[int64]json.RawMessage) int64 {
			done, err := st.Submit(ctx, store.Submission{
				Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: ans},
				KeyHash:  fmt.Sprintf("%d-%d", lang, i), BodyHash: "b", ReportAttrs: responding.ReportAttrs(byID, ans),
			})
			if err != nil {
				t.Fatal(err)
			}
			return done.ID
		}
		r1 := submit(1, answers(map[int64]int64{kitchen: good, garden: poor}, tea, coffee, juice))
		submit(2, answers(map[int64]int64{kitchen: good, garden: fair}, coffee, tea, juice))
		r3 := submit(3, answers(map[int64]int64{kitchen: poor}, juice, tea, coffee))
		// An edit moves r1's garden from poor to good and its ranking; a
		// delete takes r3 back.
		edited := answers(map[int64]int64{kitchen: good, garden: good}, coffee, tea, juice)
		if _, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: r1, Answers: edited, ReportAttrs: responding.ReportAttrs(byID, edited)}); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteResponse(ctx, a.ID, sv.ID, r3); err != nil {
			t.Fatal(err)
		}
		testenv.Tally(t)

		h := testenv.Conform(pages.New(pages.Deps{Store: st, Sealer: testenv.Sealer(t), Now: time.Now}))
		rep := fixture{st: st, h: h}.get("/r/" + sv.ReportCode + "/")
		if rep.code != 200 || strings.Count(rep.body, `<section class="chart">`) != 2 {
			t.Fatalf("report (%d): %d %.400s", lang, rep.code, rep.body)
		}
		descs := regexp.MustCompile(`<desc id="chart\d-d">([^<]*)</desc>`).FindAllStringSubmatch(rep.body, -1)
		if len(descs) != 2 {
			t.Fatalf("descriptions: %v", descs)
		}
		// Two responses stand: kitchen good twice; garden good and fair.
		// Coffee ranked first twice (1), tea second twice (2), juice third (3).
		// A Persian report reads its numbers in Persian digits.
		digits := strings.NewReplacer()
		if lang == 1 {
			digits = strings.NewReplacer("0", "۰", "1", "۱", "2", "۲", "3", "۳", ".", "٫")
		}
		if want := digits.Replace("Kitchen: Good 2, Fair 0, Poor 0; Garden: Good 1, Fair 1, Poor 0"); descs[0][1] != want {
			t.Errorf("matrix description %q, want %q", descs[0][1], want)
		}
		rankings := "rankings"
		if lang == 1 {
			rankings = "رتبه‌بندی"
		}
		if want := digits.Replace(fmt.Sprintf("Coffee: 1.00 (%[1]s 2); Tea: 2.00 (%[1]s 2); Juice: 3.00 (%[1]s 2)", rankings)); descs[1][1] != want {
			t.Errorf("ranking description %q, want %q", descs[1][1], want)
		}
		if n := strings.Count(rep.body, `class="seg seg`); n != 3+3 { // 3 segments, 3 swatches
			t.Errorf("%d segments and swatches, want 6", n)
		}
		rtl := lang == 1
		if strings.Contains(rep.body, `direction="rtl"`) != rtl || strings.Contains(rep.body, `direction="ltr"`) == rtl {
			t.Errorf("language %d: charts not drawn in the page's direction", lang)
		}
		// Every shape inside the 340-unit box; right to left, the bars end
		// at the labels' column on the right.
		for _, rect := range regexp.MustCompile(`<rect class="(seg seg\d|bar)" x="(-?\d+)" y="\d+" width="(-?\d+)"`).FindAllStringSubmatch(rep.body, -1) {
			var x, w int
			fmt.Sscan(rect[2], &x)
			fmt.Sscan(rect[3], &w)
			if x < 0 || w < 0 || x+w > 340 || (rect[1] == "bar" && w > 0 && (x+w == 340-124) != rtl) {
				t.Errorf("language %d: %s outside its place (x %d, width %d)", lang, rect[0], x, w)
			}
		}
	}
}
