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

// TestAutoOnlyWhenNextHides: data-auto (a page one pick leaves, which
// app.js reads only with hide_next_button) is written on such pages of a
// survey that hides Next, and on no page of one that shows it: a 50-page
// survey carried it 50 times for nothing (500 bytes of its weight).
func TestAutoOnlyWhenNextHides(t *testing.T) {
	t.Parallel()
	pick := view(survey.Element{ID: 1, Type: survey.TypeRating, Title: "Rate", RatingMax: 5})
	name := view(survey.Element{ID: 2, Type: survey.TypeText, Title: "Name", MaxLength: 10})
	for _, hide := range []bool{false, true} {
		v := survey.ResponderSurvey{URLSlug: "s", Name: "n", Language: "en", HideNextButton: hide,
			Questions: [][]survey.ElementView{{pick}, {name}, {pick, name}}}
		out := string(renderSurvey(surveyPage{page: newPage("en", v.Name), Survey: v, Action: "/s/s/"}))
		for page, want := range map[string]bool{"0": hide, "1": false, "2": false} {
			if got := strings.Contains(out, `data-page="`+page+`" data-auto>`); got != want {
				t.Errorf("hide_next_button %v: page %s carries data-auto %v, want %v", hide, page, got, want)
			}
		}
	}
}
