package pages_test

import (
	"context"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"surveyservice/functions/pages"
	"surveyservice/shared/survey"
)

// TestThemeThumbnails: every public theme's thumbnail_url (and an
// account's theme's) is served: 200, an SVG picture of the theme's
// colors, cached for a year; a name that is not five colors is 404.
func TestThemeThumbnails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	themes := survey.PublicThemes()
	own := survey.DefaultTheme()
	own.BackgroundColor, own.ButtonColor = "#123", "#abcdef80"
	themes = append(themes, own)
	for _, th := range themes {
		path := th.WithMedia("").ThumbnailURL
		res := f.get(path)
		if res.code != 200 || res.header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("theme %d: GET %s: %d %q", th.ID, path, res.code, res.header.Get("Content-Type"))
		}
		if !strings.Contains(res.header.Get("Cache-Control"), "immutable") {
			t.Errorf("theme %d: Cache-Control %q", th.ID, res.header.Get("Cache-Control"))
		}
		if err := xml.Unmarshal([]byte(res.body), new(struct{})); err != nil {
			t.Errorf("theme %d: not XML: %v", th.ID, err)
		}
		for _, c := range []string{th.BackgroundColor, th.QuestionColor, th.ButtonColor, th.AccentColor} {
			if !strings.Contains(res.body, `"`+strings.ToLower(c)+`"`) {
				t.Errorf("theme %d: the picture lacks its color %s", th.ID, c)
			}
		}
	}
	for _, bad := range []string{"ffffff.svg", "ffffff-212121-424242-1e88e5-zzzzzz.svg", "ffffff-212121-424242-1e88e5-1e88e5.png", "..svg"} {
		if res := f.get("/media/themes/thumbnails/" + bad); res.code != 404 {
			t.Errorf("%s: %d, want 404", bad, res.code)
		}
	}
}

// TestThemedPage: the page draws the theme's font (the woff2 files of the
// group's own origin, font-display swap, by unicode-range, under the
// policy's font-src), its size and its background image; the default
// theme on an English page loads no font and its style is the colors'
// alone, and a Persian page of the default theme gets Vazirmatn.
func TestThemedPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, 1)
	th := survey.DefaultTheme()
	th.FontFamily, th.FontSize = 3, 3 // Inter, large
	img := pages.AssetPath("sea.svg")
	th.BackgroundImage = &survey.BackgroundImage{ID: 7, URL: img, ThumbnailURL: img}
	th.BackgroundImageFit, th.BackgroundImagePosition, th.BackgroundImageBrightness, th.BackgroundImageRepeat = 1, 3, 80, 1
	th, err := f.st.CreateTheme(ctx, f.aid, th, false)
	if err != nil {
		t.Fatal(err)
	}
	plain := f.get("/s/" + f.sv.URLSlug + "/")
	if strings.Contains(plain.body, "@font-face") || strings.Contains(plain.header.Get("Content-Security-Policy"), "font-src") {
		t.Errorf("the default theme's English page loads a font")
	}
	fa, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.aid, FolderID: f.sv.FolderID, Name: "نظرسنجی", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.SetSurveyTheme(ctx, f.aid, f.sv.ID, th.ID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, slug string
		want       []string
		not        []string
	}{
		{"en, Inter and an image", f.sv.URLSlug, []string{
			`@font-face{font-family:"Inter";src:url(/assets/inter-latin-wght-normal.`, `font-display:swap}`,
			`:root body{font-family:"Inter","Inter-f",sans-serif}`, `html{font-size:112.5%}`,
			`background:url("` + img + `") right top/cover no-repeat;filter:brightness(80%)`,
		}, []string{"vazirmatn"}},
		{"fa, the default theme", fa.URLSlug, []string{
			`@font-face{font-family:"Vazirmatn";src:url(/assets/vazirmatn-arabic-wght-normal.`, `font-display:swap;unicode-range:U+0600-06FF`,
			`:root body{font-family:"Vazirmatn",`,
		}, []string{"background:url", "font-size:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := f.get("/s/" + c.slug + "/")
			if res.code != 200 {
				t.Fatalf("page: %d", res.code)
			}
			style := regexp.MustCompile(`<style>([^<]*)</style>`).FindStringSubmatch(res.body)
			if style == nil {
				t.Fatal("no theme style")
			}
			for _, w := range c.want {
				if !strings.Contains(style[1], w) {
					t.Errorf("the style lacks %s:\n%s", w, style[1])
				}
			}
			for _, n := range c.not {
				if strings.Contains(style[1], n) {
					t.Errorf("the style has %s:\n%s", n, style[1])
				}
			}
			if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "font-src 'self'") {
				t.Errorf("policy without font-src 'self': %s", csp)
			}
			for _, m := range regexp.MustCompile(`url\((/assets/[^)"]+\.woff2)\)`).FindAllStringSubmatch(style[1], -1) {
				font := f.get(m[1])
				if font.code != 200 || font.header.Get("Content-Type") != "font/woff2" || !strings.HasPrefix(font.body, "wOF2") {
					t.Errorf("%s: %d %q", m[1], font.code, font.header.Get("Content-Type"))
				}
			}
		})
	}
}

// BenchmarkSurveyPageThemed is BenchmarkSurveyPage's survey with a theme
// of a web font (Inter) and a background image: the inline style grows by
// the @font-face rules and the image's layer, at most themedGrowth bytes
// over the same survey's page unthemed. The font file itself is fetched
// only by pages whose theme names it (and only its scripts' subsets), so
// it is reported apart (font-bytes), not in the page's weight.
func BenchmarkSurveyPageThemed(b *testing.B) {
	f := newFixture(b, 50)
	plain := len(f.get("/s/" + f.sv.URLSlug + "/").body)
	th := survey.DefaultTheme()
	th.FontFamily = 3
	img := pages.AssetPath("sea.svg")
	th.BackgroundImage = &survey.BackgroundImage{ID: 7, URL: img, ThumbnailURL: img}
	th, err := f.st.CreateTheme(context.Background(), f.aid, th, false)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.st.SetSurveyTheme(context.Background(), f.aid, f.sv.ID, th.ID); err != nil {
		b.Fatal(err)
	}
	themedBody := f.get("/s/" + f.sv.URLSlug + "/").body
	themed := len(themedBody)
	if themed-plain > themedGrowth || !strings.Contains(themedBody, "@font-face") {
		b.Errorf("the theme adds %d bytes to the page (at most %d)", themed-plain, themedGrowth)
	}
	// The themed page's budget is every page's.
	if weight := benchPage(b, f); weight >= pageBudget {
		b.Errorf("the themed page weighs %d bytes with its service worker, over the %d of its budget", weight, pageBudget)
	}
	b.ReportMetric(float64(themed-plain), "theme-bytes")
	b.ReportMetric(float64(len(f.get(pages.AssetPath("inter-latin-wght-normal.woff2")).body)), "font-bytes")
}

// themedGrowth is the most a theme with a font and an image adds to a page.
const themedGrowth = 700

// TestLatinPageDrawsPersianTexts: a survey with Persian or Arabic among
// its languages, read in English, shows Persian text: the languages'
// own names (فارسی) and, where a survey in fa is read in a translation,
// its untranslated texts (marked lang="fa"). The page loaded fonts by its
// own language alone, so those were drawn in the system's font, not
// Vazirmatn as on a Persian page (hostile10). Now Vazirmatn's Arabic file
// is declared for its range alone (a page without such a character
// downloads nothing more), after the theme's font and before its local
// fallback; an English survey without such a language still loads no
// font, and a theme font that draws Arabic needs nothing more.
func TestLatinPageDrawsPersianTexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, 1)
	arabicFace := `@font-face{font-family:"Vazirmatn";src:url(/assets/vazirmatn-arabic-wght-normal.`
	style := func(t *testing.T, slug, lang string) (string, string) {
		t.Helper()
		res := f.get("/s/" + slug + "/?lang=" + lang)
		if res.code != 200 {
			t.Fatalf("page: %d", res.code)
		}
		m := regexp.MustCompile(`<style>([^<]*)</style>`).FindStringSubmatch(res.body)
		if m == nil {
			return "", res.header.Get("Content-Security-Policy")
		}
		return m[1], res.header.Get("Content-Security-Policy")
	}
	if css, _ := style(t, f.sv.URLSlug, "en"); strings.Contains(css, "@font-face") {
		t.Fatalf("an English survey of one language loads a font:\n%s", css)
	}
	if err := f.st.SetLanguages(ctx, f.aid, f.sv.ID, []string{"fa"}); err != nil {
		t.Fatal(err)
	}
	inter, err := f.st.CreateTheme(ctx, f.aid, func() survey.Theme { th := survey.DefaultTheme(); th.FontFamily = 3; return th }(), false)
	if err != nil {
		t.Fatal(err)
	}
	lalezar, err := f.st.CreateTheme(ctx, f.aid, func() survey.Theme { th := survey.DefaultTheme(); th.FontFamily = 5; return th }(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		theme int64 // 0: the default
		want  []string
		not   []string
	}{
		{"the system font", 0, []string{arabicFace, `font-display:swap;unicode-range:U+0600-06FF`,
			`:root body{font-family:"Vazirmatn",system-ui,`}, []string{"vazirmatn-latin"}},
		{"Inter", inter.ID, []string{arabicFace, `:root body{font-family:"Inter","Vazirmatn","Inter-f",sans-serif}`}, []string{"vazirmatn-latin"}},
		{"Lalezar draws Arabic", lalezar.ID, []string{`"Lalezar"`}, []string{"Vazirmatn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.theme != 0 {
				if err := f.st.SetSurveyTheme(ctx, f.aid, f.sv.ID, c.theme); err != nil {
					t.Fatal(err)
				}
			}
			css, csp := style(t, f.sv.URLSlug, "en")
			for _, w := range c.want {
				if !strings.Contains(css, w) {
					t.Errorf("the English page's style lacks %s:\n%s", w, css)
				}
			}
			for _, n := range c.not {
				if strings.Contains(css, n) {
					t.Errorf("the English page's style has %s:\n%s", n, css)
				}
			}
			if !strings.Contains(csp, "font-src 'self'") {
				t.Errorf("policy without font-src 'self': %s", csp)
			}
		})
	}
}
