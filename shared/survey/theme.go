package survey

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Theme is a survey's look.
type Theme struct {
	ID                            int64            `json:"id"`
	Order                         int64            `json:"order"`
	BackgroundColor               string           `json:"background_color"`
	QuestionColor                 string           `json:"question_color"`
	AnswerColor                   string           `json:"answer_color"`
	ButtonColor                   string           `json:"button_color"`
	AccentColor                   string           `json:"accent_color"`
	FontFamily                    int64            `json:"font_family"`
	FontSize                      int64            `json:"font_size"`
	BackgroundImage               *BackgroundImage `json:"background_image"`
	BackgroundImageID             *int64           `json:"background_image_id"`
	BackgroundImageRepeat         int64            `json:"background_image_repeat"`
	BackgroundImageFit            int64            `json:"background_image_fit"`
	BackgroundImagePosition       int64            `json:"background_image_position"`
	BackgroundImageBrightness     int64            `json:"background_image_brightness"`
	BackgroundImageSizePercentage int64            `json:"background_image_size_percentage"`
	IsPublic                      bool             `json:"is_public"`
	ThumbnailURL                  string           `json:"thumbnail_url"`
}

// BackgroundImage is a theme's background picture.
type BackgroundImage struct {
	ID           int64  `json:"id"`
	URL          string `json:"url"`
	ThumbnailURL string `json:"thumbnail_url"`
}

// MaxThemes is how many themes an account holds (contract section 22).
const MaxThemes = 200

// ErrTooManyThemes is the 400 of a create beyond MaxThemes.
var ErrTooManyThemes = FieldError("non_field_errors", fmt.Sprintf("An account holds at most %d themes.", MaxThemes))

// ThemeInUse is the 409 of deleting a theme that n surveys use (the trash's
// included).
func ThemeInUse(n int) error {
	if n == 1 {
		return Errorf(ECONFLICT, "This theme is used by 1 survey.")
	}
	return Errorf(ECONFLICT, "This theme is used by %d surveys.", n)
}

// Font is a typeface the service serves from its own origin.
type Font struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Scripts []string `json:"scripts"`
	// Family is the CSS family name of the served files; empty for the
	// system font, which downloads nothing on a Latin page.
	Family string `json:"-"`
	// Fallback is the CSS stack drawn until the file arrives (and for the
	// scripts the font does not draw).
	Fallback string `json:"-"`
	// Serif tells the fallback metrics apart (Times New Roman, not Arial).
	Serif bool `json:"-"`
}

// Scripts the fonts draw.
const (
	ScriptArabic = "arabic"
	ScriptLatin  = "latin"
)

const (
	sans  = `system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif`
	serif = `Georgia,"Times New Roman",serif`
)

// FontDefault is the font of the default theme: the system's for Latin
// text, Vazirmatn for Persian and Arabic (FontFor).
const FontDefault int64 = 1

// Fonts are the service's fonts, in the order GET /api/themes/fonts/ lists
// them. Every file is OFL-1.1, from the Fontsource npm packages (the
// pages group embeds them; functions/pages/fonts/).
var Fonts = []Font{
	{ID: 1, Name: "System (Vazirmatn for Persian and Arabic)", Scripts: []string{ScriptArabic, ScriptLatin}, Fallback: sans},
	{ID: 2, Name: "Vazirmatn", Scripts: []string{ScriptArabic, ScriptLatin}, Family: "Vazirmatn", Fallback: sans},
	{ID: 3, Name: "Inter", Scripts: []string{ScriptLatin}, Family: "Inter", Fallback: sans},
	{ID: 4, Name: "Noto Naskh Arabic", Scripts: []string{ScriptArabic}, Family: "Noto Naskh Arabic", Fallback: serif, Serif: true},
	{ID: 5, Name: "Lalezar", Scripts: []string{ScriptArabic, ScriptLatin}, Family: "Lalezar", Fallback: sans},
	{ID: 6, Name: "Lora", Scripts: []string{ScriptLatin}, Family: "Lora", Fallback: serif, Serif: true},
	{ID: 7, Name: "Source Code Pro", Scripts: []string{ScriptLatin}, Family: "Source Code Pro", Fallback: `ui-monospace,Menlo,Consolas,monospace`},
}

// FontByID is the font with the id, and whether there is one.
func FontByID(id int64) (Font, bool) {
	for _, f := range Fonts {
		if f.ID == id {
			return f, true
		}
	}
	return Font{}, false
}

// FontFor is the font a page in the language draws: the theme's, except
// that the default font draws Persian and Arabic in Vazirmatn (contract
// section 22: not the system's).
func FontFor(id int64, lang string) Font {
	f, ok := FontByID(id)
	if !ok {
		f = Fonts[0]
	}
	if f.ID == FontDefault && (lang == "fa" || lang == "ar") {
		v, _ := FontByID(2)
		return v
	}
	return f
}

// DefaultTheme is the public theme every new survey starts with. Its media
// paths resolve against MEDIA_URL, like the catalog's.
func DefaultTheme() Theme {
	t, _ := PublicTheme(1)
	return t
}

// publicLooks are the service's designed public themes: colors, font,
// size. Their order is their id.
var publicLooks = []struct {
	name                                 string
	bg, question, answer, button, accent string
	font, size                           int64
}{
	{"Default", "#FFFFFF", "#212121", "#424242", "#1E88E5", "#1E88E5", 1, 2},
	{"Midnight", "#10172A", "#F1F5F9", "#1E293B", "#6366F1", "#818CF8", 3, 2},
	{"Sand", "#F5EBDD", "#3E2C1C", "#4A3A2A", "#B45309", "#B45309", 6, 2},
	{"Forest", "#E8F3EC", "#14532D", "#1F2937", "#15803D", "#15803D", 2, 2},
	{"Rose", "#FDF2F8", "#831843", "#374151", "#BE185D", "#DB2777", 1, 2},
	{"Persian blue", "#EEF2FF", "#1E3A8A", "#1F2937", "#1D4ED8", "#2563EB", 2, 3},
	{"Saffron", "#FFF7E6", "#7C2D12", "#292524", "#C2410C", "#EA580C", 5, 3},
	{"Slate", "#F1F5F9", "#0F172A", "#334155", "#0F766E", "#0D9488", 3, 1},
	{"Terminal", "#0B0F0C", "#A7F3D0", "#111827", "#047857", "#10B981", 7, 2},
	{"Manuscript", "#FBF8F1", "#1C1917", "#292524", "#7F1D1D", "#991B1B", 4, 3},
}

// PublicThemes are the service's public themes, in order (ids 1-10; every
// account's theme takes an id above PublicThemeMaxID).
func PublicThemes() []Theme {
	out := make([]Theme, len(publicLooks))
	for i := range publicLooks {
		out[i], _ = PublicTheme(int64(i + 1))
	}
	return out
}

// PublicThemeMaxID is the highest id a public theme may take: ids up to it
// are the service's (store ids of themes start above it).
const PublicThemeMaxID = 100

// PublicThemeName is the name of a public theme, for the gallery and docs.
func PublicThemeName(id int64) string {
	if id < 1 || int(id) > len(publicLooks) {
		return ""
	}
	return publicLooks[id-1].name
}

// PublicTheme is the public theme with the id, and whether there is one.
// Its thumbnail_url is a /media/ path (ThumbnailPath) resolved against
// MEDIA_URL where it is answered.
func PublicTheme(id int64) (Theme, bool) {
	if id < 1 || int(id) > len(publicLooks) {
		return Theme{}, false
	}
	l := publicLooks[id-1]
	t := Theme{
		ID: id, Order: id, BackgroundColor: l.bg, QuestionColor: l.question, AnswerColor: l.answer,
		ButtonColor: l.button, AccentColor: l.accent, FontFamily: l.font, FontSize: l.size,
		BackgroundImageRepeat: 1, BackgroundImageFit: 1, BackgroundImagePosition: 5,
		BackgroundImageBrightness: 100, BackgroundImageSizePercentage: 100, IsPublic: true,
	}
	t.ThumbnailURL = t.ThumbnailPath()
	return t, true
}

// IsPublicThemeID reports whether id names a public theme.
func IsPublicThemeID(id int64) bool { _, ok := PublicTheme(id); return ok }

// ThumbnailPath is the /media/ path of the theme's picture: an SVG the
// pages group draws from the path alone (its colors, and the service-made
// background image's 320 px file with its brightness), so that a change of
// the theme is a new address and every address may be cached for ever.
func (t Theme) ThumbnailPath() string {
	var b strings.Builder
	b.WriteString("/media/themes/thumbnails/")
	for i, c := range []string{t.BackgroundColor, t.QuestionColor, t.AnswerColor, t.ButtonColor, t.AccentColor} {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(strings.ToLower(strings.TrimPrefix(c, "#")))
	}
	if file := t.imageThumbnailFile(); file != "" {
		fmt.Fprintf(&b, "-%s-%d", file, t.BackgroundImageBrightness)
	}
	b.WriteString(".svg")
	return b.String()
}

// thumbnailImagePath is where the service serves a background image's
// sizes (backgrounds.MediaPath, which imports this package).
const thumbnailImagePath = "/media/themes/images/"

var thumbnailImageFile = regexp.MustCompile(`^([1-9][0-9]{0,18})-([1-9][0-9]{0,18})-320$`)

// imageThumbnailFile is the name, without ".webp", of the 320 px file of
// the theme's background image when the service made it ("" otherwise).
func (t Theme) imageThumbnailFile() string {
	if t.BackgroundImage == nil {
		return ""
	}
	_, file, ok := strings.Cut(t.BackgroundImage.ThumbnailURL, thumbnailImagePath)
	if file, ok = strings.CutSuffix(file, ".webp"); !ok || !thumbnailImageFile.MatchString(file) {
		return ""
	}
	return file
}

// Thumbnail is what a ThumbnailPath's file name says: the five colors
// (with "#") and, for a theme with a background image, the image's 320 px
// file name (as backgrounds.MediaPath serves it) and its brightness.
type Thumbnail struct {
	Colors     [5]string
	Image      string
	Brightness int64
}

// ParseThumbnail reads a ThumbnailPath's file name back
// ("ffffff-212121-....svg", or with "-<theme>-<image>-320-<brightness>"
// before ".svg"), and whether it is one.
func ParseThumbnail(name string) (Thumbnail, bool) {
	var out Thumbnail
	rest, ok := strings.CutSuffix(name, ".svg")
	if !ok {
		return out, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 5 && len(parts) != 9 {
		return out, false
	}
	for i, p := range parts[:5] {
		c := "#" + p
		if !ValidColor(c) {
			return out, false
		}
		out.Colors[i] = strings.ToLower(c)
	}
	if len(parts) == 9 {
		file := strings.Join(parts[5:8], "-")
		br, err := strconv.ParseInt(parts[8], 10, 64)
		if !thumbnailImageFile.MatchString(file) || err != nil || br < 0 || br > 200 || strconv.FormatInt(br, 10) != parts[8] {
			return out, false
		}
		out.Image, out.Brightness = file+".webp", br
	}
	return out, true
}

var colorPattern = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)

// ValidColor reports whether s is #rgb, #rrggbb or #rrggbbaa.
func ValidColor(s string) bool { return colorPattern.MatchString(s) }

// ThemeRanges are the bounds of the theme's integer fields (inclusive), in
// the order a 400 names them.
var ThemeRanges = []struct {
	Field    string
	Min, Max int64
}{
	{"font_size", 1, 3},
	{"background_image_repeat", 1, 2},
	{"background_image_fit", 1, 3},
	{"background_image_position", 1, 9},
	{"background_image_brightness", 0, 200},
	{"background_image_size_percentage", 10, 200},
}

// ThemeColorFields are the theme's color fields.
var ThemeColorFields = []string{"background_color", "question_color", "answer_color", "button_color", "accent_color"}

// ColorMessage is the 400 of a color that is not #rgb, #rrggbb or #rrggbbaa.
const ColorMessage = "Enter a color as #rgb, #rrggbb or #rrggbbaa."

// FontMessage is the 400 of a font_family that names none of Fonts.
func FontMessage(id int64) string {
	return fmt.Sprintf("%q is not a valid choice.", fmt.Sprint(id))
}

// SetColor sets the color field by its JSON name.
func (t *Theme) SetColor(field, v string) {
	switch field {
	case "background_color":
		t.BackgroundColor = v
	case "question_color":
		t.QuestionColor = v
	case "answer_color":
		t.AnswerColor = v
	case "button_color":
		t.ButtonColor = v
	case "accent_color":
		t.AccentColor = v
	}
}

// SetInt sets the integer field by its JSON name (ThemeRanges, font_family
// and order).
func (t *Theme) SetInt(field string, v int64) {
	switch field {
	case "order":
		t.Order = v
	case "font_family":
		t.FontFamily = v
	case "font_size":
		t.FontSize = v
	case "background_image_repeat":
		t.BackgroundImageRepeat = v
	case "background_image_fit":
		t.BackgroundImageFit = v
	case "background_image_position":
		t.BackgroundImagePosition = v
	case "background_image_brightness":
		t.BackgroundImageBrightness = v
	case "background_image_size_percentage":
		t.BackgroundImageSizePercentage = v
	}
}

// WithMedia is the theme as answered: its /media/ paths made absolute
// under mediaURL.
func (t Theme) WithMedia(mediaURL string) Theme {
	abs := func(p string) string {
		if strings.HasPrefix(p, "/media/") {
			return strings.TrimRight(mediaURL, "/") + p
		}
		return p
	}
	t.ThumbnailURL = abs(t.ThumbnailPath())
	if t.BackgroundImage != nil {
		bi := *t.BackgroundImage
		bi.URL, bi.ThumbnailURL = abs(bi.URL), abs(bi.ThumbnailURL)
		t.BackgroundImage = &bi
	}
	return t
}
