package pages

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestRenderEscapes: every text of a survey reaches the page escaped, in
// text and in attributes, and the theme writes only hex colors.
func TestRenderEscapes(t *testing.T) {
	t.Parallel()
	evil := `"><script>alert(1)</script>'`
	img := `https://x.example/a.png" onerror="alert(1)`
	v := survey.ResponderSurvey{URLSlug: "slug", Name: evil, Language: "en",
		Theme:   survey.Theme{BackgroundColor: "#fff;}body{background:url(x)", QuestionColor: "#123456"},
		Welcome: []survey.ElementView{{ElementFields: survey.ElementFields{Element: survey.Element{Title: evil, Description: evil}}}},
		Questions: [][]survey.ElementView{
			{{ElementFields: survey.ElementFields{Element: survey.Element{ID: 1, Type: survey.TypeText, Title: evil, MaxLength: 10}}}},
			{{ElementFields: survey.ElementFields{Element: survey.Element{ID: 2, Type: survey.TypePictureChoice, Title: evil}}, Choices: []survey.ChoiceItem{{ID: 3, Name: evil, ImageURL: &img}}}},
			{{
				ElementFields: survey.ElementFields{Element: survey.Element{ID: 4, Type: survey.TypeMatrix, Title: evil}},
				Rows:          []survey.NamedItem{{ID: 5, Name: evil}}, Columns: []survey.NamedItem{{ID: 6, Name: evil}},
			}},
			{{ElementFields: survey.ElementFields{Element: survey.Element{ID: 7, Type: survey.TypeOpinionScale, Title: evil, ScaleMin: 0, ScaleMax: 2}}, LeftLabel: &evil}},
		},
	}
	p := surveyPage{page: newPage("en", evil), Survey: v, Action: "/s/slug/", IdempotencyKey: evil, QS: evil,
		Variables: map[string]string{evil: evil}, Errors: []string{evil}}
	p.ThemeCSS = themeCSS(v.Theme)
	out := string(renderSurvey(p))
	for _, bad := range []string{"<script>alert", `" onerror="`, "url(x)"} {
		if strings.Contains(out, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if p.ThemeCSS != ":root{--q:#123456;}" {
		t.Errorf("theme CSS %q", p.ThemeCSS)
	}
	chart := barChart(0, evil, []string{evil}, []int64{3}, look{zero: '0'})
	if strings.Contains(chart, "<script>") {
		t.Errorf("the chart holds a script: %s", chart)
	}
}
