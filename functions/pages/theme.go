package pages

import (
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/survey"
)

// The theme's fonts (contract section 22) are the Fontsource npm packages'
// woff2 files (OFL-1.1, each family's licence beside its files in fonts/),
// served from the group's own origin as immutable assets. Only the Arabic
// and Latin subsets are kept: the scripts the fonts list names.
//
//go:embed fonts/*.woff2
var fontFiles embed.FS

// fontSubsets are the woff2 files of each family by script, as
// fonts/ holds them (a variable "wght" file draws every weight the page
// uses; Lalezar has one weight).
var fontSubsets = map[string]map[string]string{
	"Vazirmatn":         {survey.ScriptArabic: "vazirmatn-arabic-wght-normal.woff2", survey.ScriptLatin: "vazirmatn-latin-wght-normal.woff2"},
	"Inter":             {survey.ScriptLatin: "inter-latin-wght-normal.woff2"},
	"Noto Naskh Arabic": {survey.ScriptArabic: "noto-naskh-arabic-arabic-wght-normal.woff2"},
	"Lalezar":           {survey.ScriptArabic: "lalezar-arabic-400-normal.woff2", survey.ScriptLatin: "lalezar-latin-400-normal.woff2"},
	"Lora":              {survey.ScriptLatin: "lora-latin-wght-normal.woff2"},
	"Source Code Pro":   {survey.ScriptLatin: "source-code-pro-latin-wght-normal.woff2"},
}

// unicodeRanges are the subsets' ranges, shortened from Fontsource's (the
// blocks Persian, Arabic and Western text use): the browser downloads a
// subset only when the page has a character in its range, so a Persian
// page with only Persian text fetches the Arabic file alone.
var unicodeRanges = map[string]string{
	survey.ScriptArabic: "U+0600-06FF,U+0750-077F,U+08A0-08FF,U+200C-200E,U+FB50-FDFF,U+FE70-FEFC",
	survey.ScriptLatin:  "U+0000-00FF,U+0131,U+0152-0153,U+2000-206F,U+20AC,U+2122,U+2212",
}

// fallbackMetrics fit the local fallback font to the web font's width, so
// that a line breaks in the same place before and after the file arrives
// and nothing moves (CLS 0; the page's line-height is fixed, so the
// vertical metrics do not move lines). Families not listed draw their
// fallback unadjusted.
var fallbackMetrics = map[string]string{
	"Inter":     `src:local("Arial");size-adjust:107%;ascent-override:90%;descent-override:22%`,
	"Vazirmatn": `src:local("Arial");size-adjust:104%;ascent-override:100%;descent-override:45%`,
	"Lora":      `src:local("Times New Roman");size-adjust:113%;ascent-override:90%;descent-override:24%`,
}

// persianFont is the family Persian and Arabic text is drawn in when the
// theme's font has no Arabic letters.
const persianFont = "Vazirmatn"

// withFonts adds the font files to the assets loadAssets made, as the
// package's variables are set: before anything that reads assetNames (the
// service worker's cache name counts the fonts).
func withFonts(byHashed map[string]asset, byPlain map[string]string) (map[string]asset, map[string]string) {
	for _, files := range fontSubsets {
		for _, f := range files {
			b, err := fontFiles.ReadFile("fonts/" + f)
			if err != nil {
				panic(err) // embedded: a build error
			}
			addAsset(byHashed, byPlain, f, "font/woff2", b)
		}
	}
	return byHashed, byPlain
}

// pageFonts are the families the page of lang draws in the theme's font:
// the font's, then Vazirmatn on a Persian or Arabic page when the font has
// no Arabic letters; none for the system font.
func pageFonts(t survey.Theme, lang string) []survey.Font {
	f := survey.FontFor(t.FontFamily, lang)
	families := []survey.Font{}
	if f.Family != "" {
		families = append(families, f)
	}
	if (lang == "fa" || lang == "ar") && !fontDraws(f, survey.ScriptArabic) {
		families = append(families, survey.FontFor(survey.FontDefault, lang))
	}
	return families
}

// fontPreload is the addresses of the font files the page of lang draws
// its first screen in: the Latin subset, and on a Persian or Arabic page
// the Arabic one first and the Latin one too (its spaces and punctuation
// are in the Latin range, which the browser would otherwise discover only
// at the first layout, and swap in a second time, after the first paint).
// Preloaded, they arrive with the style sheet, so the fallback is seldom
// drawn at all.
func fontPreload(t survey.Theme, lang string) []string {
	scripts := []string{survey.ScriptLatin}
	if lang == "fa" || lang == "ar" {
		scripts = []string{survey.ScriptArabic, survey.ScriptLatin}
	}
	var files []string
	for _, script := range scripts {
		for _, fam := range pageFonts(t, lang) {
			if file, ok := fontSubsets[fam.Family][script]; ok {
				files = append(files, assetNames[file])
				break
			}
		}
	}
	return files
}

// setTheme gives the page of the survey's theme its style (themeStyle)
// and its font's preload: every page a responder or a report reader sees
// draws the theme through this one place. languages are the survey's (the
// page may show texts, and the languages' own names, in each).
func (p *page) setTheme(t survey.Theme, languages ...string) {
	p.ThemeCSS, p.FontPreloads = themeStyle(t, p.Lang, languages...), fontPreload(t, p.Lang)
}

// arabicTexts reports whether a page in lang drawn in families may show
// Persian or Arabic text its fonts do not draw: a survey in fa or ar read
// in a Latin language shows its untranslated texts (marked lang="fa") and
// the languages' own names in their script.
func arabicTexts(families []survey.Font, lang string, languages []string) bool {
	if lang == "fa" || lang == "ar" || !slices.ContainsFunc(languages, func(l string) bool { return l == "fa" || l == "ar" }) {
		return false
	}
	return !slices.ContainsFunc(families, func(f survey.Font) bool { return fontDraws(f, survey.ScriptArabic) })
}

// fontCSS is the @font-face rules and the body's font-family of the
// theme's font on a page in lang: "" for the system font (the default
// theme on a Latin page downloads nothing and its page does not grow).
// On a Latin page of a survey with Persian or Arabic texts whose fonts
// draw none, Vazirmatn's Arabic file draws them (its range alone: a page
// without such a character downloads nothing more).
func fontCSS(t survey.Theme, lang string, languages ...string) string {
	families := pageFonts(t, lang)
	arabic := arabicTexts(families, lang, languages)
	if len(families) == 0 && !arabic {
		return ""
	}
	var b, stack strings.Builder
	if arabic {
		fmt.Fprintf(&b, `@font-face{font-family:"%s";src:url(%s);font-weight:100 900;font-display:swap;unicode-range:%s}`,
			persianFont, assetNames[fontSubsets[persianFont][survey.ScriptArabic]], unicodeRanges[survey.ScriptArabic])
	}
	if len(families) == 0 {
		// The system font: Vazirmatn for its range, the system's stack
		// for the rest.
		return b.String() + `:root body{font-family:"` + persianFont + `",` + survey.FontFor(t.FontFamily, lang).Fallback + "}"
	}
	for i, fam := range families {
		for _, script := range []string{survey.ScriptArabic, survey.ScriptLatin} {
			file, ok := fontSubsets[fam.Family][script]
			if !ok {
				continue
			}
			// A Latin page of a Latin-only font needs no range: the one file
			// is the one the page draws.
			rng := ""
			if len(fontSubsets[fam.Family]) > 1 || lang == "fa" || lang == "ar" {
				rng = ";unicode-range:" + unicodeRanges[script]
			}
			fmt.Fprintf(&b, `@font-face{font-family:"%s";src:url(%s);font-weight:100 900;font-display:swap%s}`, fam.Family, assetNames[file], rng)
		}
		fmt.Fprintf(&stack, `"%s",`, fam.Family)
		if i == 0 && arabic {
			// Before the fallback's face, which is a local font that may
			// draw Arabic letters in its own way.
			fmt.Fprintf(&stack, `"%s",`, persianFont)
		}
		// The fallback's family is "<font>-f": a name no one reads, kept
		// short because each themed page carries it twice.
		if m, ok := fallbackMetrics[fam.Family]; ok {
			fmt.Fprintf(&b, `@font-face{font-family:"%s-f";%s}`, fam.Family, m)
			fmt.Fprintf(&stack, `"%s-f",`, fam.Family)
		}
	}
	// :root body outranks app.css's body:lang(fa) rule.
	return b.String() + ":root body{font-family:" + stack.String() + generic(families[0].Fallback) + "}"
}

// generic is the generic family that ends a fallback stack: the
// Fallback face stands in for the file, so the stack's named system fonts
// would only repeat bytes.
func generic(stack string) string {
	return stack[strings.LastIndexByte(stack, ',')+1:]
}

func fontDraws(f survey.Font, script string) bool {
	_, ok := fontSubsets[f.Family][script]
	return ok
}

// fontSizes are the root font size of font_size 1 (small) and 3 (large);
// 2, the default, leaves app.css's 16 px. Text fields keep at least 16 px
// (app.css), so that a phone does not zoom into them.
var fontSizes = map[int64]string{1: "93.75%", 3: "112.5%"}

// imagePositions are background_image_position 1-9, top left to bottom
// right, row by row.
var imagePositions = []string{"left top", "center top", "right top", "left center", "center", "right center", "left bottom", "center bottom", "right bottom"}

// safeURL is what a background image's address may hold inside the
// style's url("..."): the service makes these addresses itself, and
// anything else is left out rather than escaped.
var safeURL = regexp.MustCompile(`^[A-Za-z0-9/:._~%?=&+-]+$`)

// imageCSS draws the theme's background image behind the page: a fixed
// layer under everything, with its repeat, fit, position, brightness and
// size; the question cards stay opaque white (app.css) so their text keeps
// its contrast, and the loose text on the page (the title, the footer)
// gets the same white backdrop: the colors are made readable on white
// (themeCSS), not on an image nobody has measured.
func imageCSS(t survey.Theme) string {
	bi := t.BackgroundImage
	if bi == nil || bi.URL == "" || !safeURL.MatchString(bi.URL) {
		return ""
	}
	if u, err := url.Parse(bi.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http" && !strings.HasPrefix(bi.URL, "/")) {
		return ""
	}
	size := map[int64]string{1: "cover", 2: "contain"}[t.BackgroundImageFit]
	if size == "" { // 3: the image's own size, scaled by size_percentage of the page's width
		size = fmt.Sprintf("%d%% auto", clamp(t.BackgroundImageSizePercentage, 10, 200, 100))
	}
	repeat := "no-repeat"
	if t.BackgroundImageRepeat == 2 {
		repeat = "repeat"
	}
	pos := imagePositions[clamp(t.BackgroundImagePosition, 1, 9, 5)-1]
	filter := ""
	if b := clamp(t.BackgroundImageBrightness, 0, 200, 100); b != 100 {
		filter = fmt.Sprintf(";filter:brightness(%d%%)", b)
	}
	return fmt.Sprintf(`body::before{content:"";position:fixed;inset:0;z-index:-1;background:url("%s") %s/%s %s%s}`, bi.URL, pos, size, repeat, filter) +
		`main>h1,main>p,footer{background:#fff;border-radius:.5rem;padding:.25rem .75rem;width:fit-content}` + phoneImageCSS(bi.URL)
}

func clamp(v, lo, hi, def int64) int64 {
	if v < lo || v > hi {
		return def
	}
	return v
}

// themeStyle is the page's whole theme as its one inline style: the
// colors (themeCSS), the font, the size and the background image.
func themeStyle(t survey.Theme, lang string, languages ...string) string {
	css := themeCSS(t) + fontCSS(t, lang, languages...) + imageCSS(t)
	if s, ok := fontSizes[t.FontSize]; ok {
		css += "html{font-size:" + s + "}body{font-size:1rem}"
	}
	return css
}

// handleThemeThumbnail draws a theme's thumbnail_url (contract section 22:
// a picture of the theme, its colors and image, made by the service,
// served from MEDIA_URL): its five colors, and the background image's 320
// px file with its brightness, are its file name
// (survey.Theme.ThumbnailPath), so a change of the theme is a new address
// and every answer is cached for a year. The image is inside the SVG as a
// data: URL: an SVG drawn by <img> loads nothing else (browsers refuse an
// image's subresources), so a link to the WebP would draw nothing. A name
// that is not the service's, or an image removed, answers 404; a failing
// bucket 503, which nothing caches.
func handleThemeThumbnail(media Media) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		th, ok := survey.ParseThumbnail(r.PathValue("file"))
		if !ok {
			writeNotFound(w, r)
			return
		}
		var photo []byte
		if th.Image != "" {
			if _, ok := backgrounds.MediaKey(th.Image); !ok || media == nil {
				writeNotFound(w, r)
				return
			}
			var err error
			photo, err = media.Media(r.Context(), th.Image)
			if errors.Is(err, backgrounds.ErrNoObject) {
				writeNotFound(w, r)
				return
			}
			if err != nil {
				api.Logger(r.Context()).Error("theme thumbnail", "name", th.Image, "err", err.Error())
				w.Header().Set("Retry-After", "5")
				http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
				return
			}
		}
		writeFile(w, r, "image/svg+xml", "public, max-age=31536000, immutable", "default-src 'none'; img-src data:", themeThumbnail(th.Colors, photo, th.Brightness))
	})
}

// themeThumbnail is the picture of a theme: its background (the color,
// and the image over it when there is one, covering the picture at its
// brightness, as the page draws it), a white question card with a
// question line in the question color and two answers (one chosen, in
// the accent color), and a button.
func themeThumbnail(c [5]string, photo []byte, brightness int64) []byte {
	bg, question, answer, button, accent := c[0], c[1], c[2], c[3], c[4]
	var img string
	if len(photo) > 0 {
		filter := ""
		if brightness != 100 {
			k := strconv.FormatFloat(float64(brightness)/100, 'f', -1, 64)
			filter = `<filter id="b"><feComponentTransfer><feFuncR type="linear" slope="` + k + `"/><feFuncG type="linear" slope="` + k +
				`"/><feFuncB type="linear" slope="` + k + `"/></feComponentTransfer></filter>`
			img = ` filter="url(#b)"`
		}
		img = filter + `<image width="320" height="200" preserveAspectRatio="xMidYMid slice"` + img +
			` href="data:image/webp;base64,` + base64.StdEncoding.EncodeToString(photo) + `"/>`
	}
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200">`+
		`<rect width="320" height="200" fill="%[1]s"/>%[6]s`+
		`<rect x="40" y="28" width="240" height="112" rx="10" fill="#fff" stroke="#d0d0d7"/>`+
		`<rect x="60" y="48" width="150" height="12" rx="6" fill="%[2]s"/>`+
		`<circle cx="68" cy="84" r="7" fill="none" stroke="%[5]s" stroke-width="3"/><circle cx="68" cy="84" r="3" fill="%[5]s"/>`+
		`<rect x="84" y="79" width="110" height="10" rx="5" fill="%[3]s"/>`+
		`<circle cx="68" cy="112" r="7" fill="none" stroke="%[3]s" stroke-width="2"/>`+
		`<rect x="84" y="107" width="80" height="10" rx="5" fill="%[3]s"/>`+
		`<rect x="40" y="152" width="88" height="28" rx="8" fill="%[4]s"/>`+
		`<rect x="58" y="163" width="52" height="6" rx="3" fill="#fff"/></svg>`, bg, question, answer, button, accent, img))
}
