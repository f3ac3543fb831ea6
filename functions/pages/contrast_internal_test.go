package pages

import (
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestThemeContrast: whatever colors a theme has, the page draws them
// readable (the default theme's buttons were once white on #1e88e5,
// 3.67:1).
func TestThemeContrast(t *testing.T) {
	t.Parallel()
	themes := []survey.Theme{
		survey.DefaultTheme(),
		{BackgroundColor: "#fff", QuestionColor: "#bbb", AnswerColor: "#eee", ButtonColor: "#ff0", AccentColor: "#fafafa"},
		{BackgroundColor: "#ffffff", QuestionColor: "#777777", AnswerColor: "#999", ButtonColor: "#43a047", AccentColor: "#ffeb3b"},
		{QuestionColor: "#2257d6", ButtonColor: "#90caf9cc"},
	}
	type pair struct {
		what   string
		fg, bg rgb
		min    float64
	}
	for _, th := range themes {
		css := themeCSS(th)
		vars := map[string]rgb{}
		for _, decl := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(css, ":root{"), ";}"), ";") {
			name, value, _ := strings.Cut(decl, ":")
			c, ok := parseHex(value)
			if !ok {
				t.Fatalf("%s: %q is not a color", css, decl)
			}
			vars[name] = c
		}
		bg, ok := vars["--bg"]
		if !ok {
			bg = rgb{0xf7, 0xf7, 0xf9}
		}
		var pairs []pair
		if c, ok := vars["--btn"]; ok {
			pairs = append(pairs, pair{"button text", white, c, 4.5})
		}
		if c, ok := vars["--q"]; ok {
			pairs = append(pairs, pair{"question on the boxes", c, white, 4.5}, pair{"title on the background", c, bg, 4.5})
		}
		if c, ok := vars["--a"]; ok {
			pairs = append(pairs, pair{"answers", c, white, 4.5})
		}
		if c, ok := vars["--accent"]; ok {
			pairs = append(pairs, pair{"accent", c, white, 3})
		}
		for _, p := range pairs {
			if r := contrast(p.fg, p.bg); r < p.min {
				t.Errorf("theme %+v: %s %s on %s is %.2f:1, want %.1f:1 (%s)", th, p.what, p.fg.hex(), p.bg.hex(), r, p.min, css)
			}
		}
	}
	// A color that meets its contrast is kept; the default theme's button
	// is darkened just enough.
	if css := themeCSS(survey.Theme{ButtonColor: "#2257d6", QuestionColor: "#212121"}); css != ":root{--q:#212121;--btn:#2257d6;}" {
		t.Errorf("readable colors changed: %s", css)
	}
	if css := themeCSS(survey.DefaultTheme()); !strings.Contains(css, "--btn:#1b79cc;") {
		t.Errorf("default theme: %s, want --btn:#1b79cc", css)
	}
}
