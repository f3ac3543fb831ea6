package pages

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// basePolicy is every page's Content-Security-Policy: only the group's own
// script and stylesheet; images from anywhere over https (picture choices
// link to them); forms post only here. A page with a theme adds the hash
// of its one <style> block, and nothing else inline runs. Framing is the
// policy's last directive: no page is framed (frame-ancestors 'none', and
// X-Frame-Options: DENY from the shared edge) but the responder's page of
// a survey, by the sites its embed_origins name (writeSurveyPage).
const basePolicy = "default-src 'none'; script-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; connect-src 'self'"

// notFramed is the frame-ancestors of every page but the responder's.
const notFramed = "'none'"

// page is what every page template reads.
type page struct {
	Lang, Dir, Title string
	// Description is the page's meta description; the title when empty.
	Description string
	// ThemeCSS is the theme's inline style, and FontPreloads the addresses
	// of the font files the page's first screen draws (setTheme).
	ThemeCSS     string
	FontPreloads []string
	T            texts
	Message      string
	// OEmbed is the page's oEmbed address (discovery link), or "".
	OEmbed string
	// Canonical is the page's own address, at its url_slug, whichever
	// address (slug or preview code) served it; or "".
	Canonical string
	// Forget is the url_slug of a closed survey whose answers kept in the
	// browser the page removes (contract section 20), or "".
	Forget string
	// NoScript is a page that loads no script: a step of a plain form.
	NoScript bool
	// Wide is a page of charts (the report): laid out across a wide
	// screen rather than in one reading column.
	Wide bool
	// Styles are the assets ("signin.css") of the stylesheets the page
	// loads after app.css, for parts only some pages have.
	Styles []string
}

func (p page) description() string {
	if p.Description != "" {
		return p.Description
	}
	return p.Title
}

// writePage answers a rendered page with status, under the policy; it is
// never shown in a frame.
func writePage(w http.ResponseWriter, r *http.Request, status int, body []byte, themeCSS string) {
	writeFramed(w, r, status, body, allow{themeCSS: themeCSS}, notFramed)
}

// allow is what a page's Content-Security-Policy lets in beyond the
// page's own: its theme's inline style, and the origins its script may
// connect to (the uploads bucket's, on a survey with a file-upload
// question).
type allow struct {
	themeCSS string
	connect  []string
}

// writeSurveyPage answers a page of the responder's side of a survey (the
// survey, its closed page, the thanks of a plain form): the sites of the
// survey's embed_origins may frame it, and X-Frame-Options, which cannot
// name them, is left out.
func writeSurveyPage(w http.ResponseWriter, r *http.Request, status int, body []byte, set survey.Settings, a allow) {
	ancestors := survey.FrameAncestors(set.Embedders())
	if ancestors != notFramed {
		w.Header().Del("X-Frame-Options")
	}
	writeFramed(w, r, status, body, a, ancestors)
}

// writeSurveyMessage is writeMessage for a survey's own messages, in its
// language, under its name and in its theme (contract section 22: every
// page a responder sees).
func writeSurveyMessage(w http.ResponseWriter, r *http.Request, status int, v survey.ResponderSurvey, msg string, set survey.Settings) {
	p := newPage(v.Language, v.Name)
	p.Message = msg
	writeThemedMessage(w, r, status, p, v.Theme, set)
}

// writeThemedMessage answers a message page of a survey in its theme: the
// style themeStyle makes for the survey page, allowed by its hash.
func writeThemedMessage(w http.ResponseWriter, r *http.Request, status int, p page, t survey.Theme, set survey.Settings) {
	p.setTheme(t)
	writeSurveyPage(w, r, status, renderMessage(p), set, allow{themeCSS: p.ThemeCSS})
}

func writeFramed(w http.ResponseWriter, r *http.Request, status int, body []byte, a allow, ancestors string) {
	policy := basePolicy
	for _, origin := range a.connect {
		policy += " " + origin
	}
	if strings.Contains(a.themeCSS, "@font-face") {
		policy += "; font-src 'self'" // the theme's font, from the group's own assets
	}
	style := "style-src 'self'"
	if a.themeCSS != "" {
		sum := sha256.Sum256([]byte(a.themeCSS))
		style += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", policy+"; "+style+"; frame-ancestors "+ancestors)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if api.WritesBody(r) {
		_, _ = w.Write(body)
	}
}

// writeMessage answers a page with one message: not found, closed.
func writeMessage(w http.ResponseWriter, r *http.Request, status int, lang, title, msg string) {
	p := newPage(lang, title)
	p.Message = msg
	writePage(w, r, status, renderMessage(p), "")
}

// writeNotFound answers the 404 page in the responder's language: an
// address that names no survey has no survey's language, so it is the
// one of the pages' languages that ?lang= names, else the first of
// Accept-Language's, else English; right to left and in the Persian
// font (the default theme's, as a refusal page without its survey) on a
// Persian or Arabic page.
func writeNotFound(w http.ResponseWriter, r *http.Request) {
	lang := "en"
	if q := r.URL.Query().Get("lang"); textsByLang[q].NotFound != "" {
		lang = q
	} else {
		for _, tag := range survey.AcceptLanguages(r.Header.Get("Accept-Language")) {
			if textsByLang[tag].NotFound != "" {
				lang = tag
				break
			}
		}
		w.Header().Add("Vary", "Accept-Language")
	}
	p := newPage(lang, textsByLang[lang].NotFound)
	p.Message = p.T.NothingHere
	p.setTheme(survey.DefaultTheme())
	writePage(w, r, http.StatusNotFound, renderMessage(p), p.ThemeCSS)
}

func newPage(lang, title string) page {
	dir := "ltr"
	if lang == "fa" || lang == "ar" {
		dir = "rtl"
	}
	if lang == "" {
		lang = "en"
	}
	return page{Lang: lang, Dir: dir, Title: title, T: textsFor(lang)}
}

var hexColor = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)

// themeCSS is the survey's theme as CSS custom properties; a color that is
// not a plain hex color is left out, so no theme can write other CSS. Each
// color is made readable where the page draws it (contrast.go): question
// text on the background and on the white question boxes, answer text on
// the boxes, white button text on the button color, and the accent (focus
// ring, radio, chart bars) as a control on white.
func themeCSS(t survey.Theme) string {
	var b strings.Builder
	bg, hasBg := parseHex(t.BackgroundColor)
	if !hasBg {
		bg = rgb{0xf7, 0xf7, 0xf9} // app.css's --bg
	}
	for _, c := range []struct {
		name, value string
		ratio       float64
		against     []rgb
	}{
		{"--bg", t.BackgroundColor, 0, nil},
		{"--q", t.QuestionColor, 4.5, []rgb{bg, white}},
		{"--a", t.AnswerColor, 4.5, []rgb{white}},
		{"--btn", t.ButtonColor, 4.5, []rgb{white}},
		{"--accent", t.AccentColor, 3, []rgb{white}},
	} {
		v, ok := parseHex(c.value)
		if !ok {
			continue
		}
		if c.against != nil {
			v = readable(v, c.ratio, c.against...)
		}
		b.WriteString(c.name + ":" + v.hex() + ";")
	}
	if b.Len() == 0 {
		return ""
	}
	return ":root{" + b.String() + "}"
}

// texts are the page's own words in the survey's language.
type texts struct {
	Next, Previous, Submit, Code, Progress, Thanks, TimeUp, TimeLeft, Closed, Responses, Average, Report, Required string
	// The answer sheet's (contract section 15).
	Score, YourAnswer, CorrectAnswer, Right, Wrong, SeeSheet string
	// Preview is the notice of a template survey's page (contract section 17).
	Preview string
	// The report's ranking charts: the mean rank, and how many ranked.
	MeanRank, Rankings string
	// File are a file-upload question's words (contract section 16).
	File fileTexts
	// Zero is the language's digit zero (zeroOf): numbers people read are
	// written in its digits.
	Zero rune
	// NPS names a 0-10 scale's Net Promoter Score on the report, and its
	// three groups (9-10, 7-8, 0-6).
	NPS, Promoters, Passives, Detractors string
	// A ranking's buttons, and what a move announces (name, place, of).
	MoveUp, MoveDown, Moved string
	// The 404 page's title and message.
	NotFound, NothingHere string
}

var textsByLang = map[string]texts{
	"en": {Next: "Next", Previous: "Previous", Submit: "Submit", Code: "Your code", Progress: "Progress",
		Thanks: "Thank you! Your response was recorded.", TimeUp: "The time to respond has ended.", TimeLeft: "Time left",
		Closed: "This survey is closed.", Responses: "Responses", Average: "Average", Report: "Report", Required: "required",
		Score: "Score", YourAnswer: "Your answer", CorrectAnswer: "Correct answer", Right: "right", Wrong: "wrong", SeeSheet: "See your answer sheet",
		Preview: "This is a preview: answers are not saved.", MeanRank: "Mean rank (1 is first)", Rankings: "rankings",
		NPS: "Net Promoter Score", Promoters: "promoters", Passives: "passives", Detractors: "detractors",
		MoveUp: "Move up", MoveDown: "Move down", Moved: "%s: %d of %d",
		NotFound: "Not found", NothingHere: "There is nothing at this address."},
	"fa": {Next: "بعدی", Previous: "قبلی", Submit: "ارسال", Code: "کد شما", Progress: "پیشرفت",
		Thanks: "سپاس! پاسخ شما ثبت شد.", TimeUp: "زمان پاسخ‌دهی به پایان رسیده است.", TimeLeft: "زمان باقی‌مانده",
		Closed: "این پرسش‌نامه بسته است.", Responses: "پاسخ‌ها", Average: "میانگین", Report: "گزارش", Required: "الزامی",
		Score: "نمره", YourAnswer: "پاسخ شما", CorrectAnswer: "پاسخ درست", Right: "درست", Wrong: "نادرست", SeeSheet: "دیدن پاسخ‌نامه",
		Preview: "این یک پیش‌نمایش است: پاسخ‌ها ذخیره نمی‌شوند.", MeanRank: "میانگین رتبه (۱ یعنی نخست)", Rankings: "رتبه‌بندی",
		NPS: "خالص امتیاز ترویج‌کنندگان (NPS)", Promoters: "مروجان", Passives: "منفعل‌ها", Detractors: "منتقدان",
		MoveUp: "بالا بردن", MoveDown: "پایین بردن", Moved: "%s: %d از %d",
		NotFound: "یافت نشد", NothingHere: "در این نشانی چیزی نیست."},
	"ar": {Next: "التالي", Previous: "السابق", Submit: "إرسال", Code: "رمزك", Progress: "التقدم",
		Thanks: "شكرًا! تم تسجيل إجابتك.", TimeUp: "انتهى وقت الإجابة.", TimeLeft: "الوقت المتبقي",
		Closed: "هذا الاستبيان مغلق.", Responses: "الإجابات", Average: "المتوسط", Report: "تقرير", Required: "مطلوب",
		Score: "الدرجة", YourAnswer: "إجابتك", CorrectAnswer: "الإجابة الصحيحة", Right: "صحيحة", Wrong: "خاطئة", SeeSheet: "عرض ورقة الإجابات",
		Preview: "هذه معاينة: لا يتم حفظ الإجابات.", MeanRank: "متوسط الترتيب (١ هو الأول)", Rankings: "ترتيبات",
		NPS: "صافي نقاط الترويج (NPS)", Promoters: "المروّجون", Passives: "المحايدون", Detractors: "المنتقدون",
		MoveUp: "نقل لأعلى", MoveDown: "نقل لأسفل", Moved: "%s: %d من %d",
		NotFound: "غير موجود", NothingHere: "لا يوجد شيء في هذا العنوان."},
	"tr": {Next: "İleri", Previous: "Geri", Submit: "Gönder", Code: "Kodunuz", Progress: "İlerleme",
		Thanks: "Teşekkürler! Yanıtınız kaydedildi.", TimeUp: "Yanıt verme süresi sona erdi.", TimeLeft: "Kalan süre",
		Closed: "Bu anket kapalı.", Responses: "Yanıtlar", Average: "Ortalama", Report: "Rapor", Required: "zorunlu",
		Score: "Puan", YourAnswer: "Yanıtınız", CorrectAnswer: "Doğru yanıt", Right: "doğru", Wrong: "yanlış", SeeSheet: "Cevap kâğıdınızı görün",
		Preview: "Bu bir önizlemedir: yanıtlar kaydedilmez.", MeanRank: "Ortalama sıra (1 birincidir)", Rankings: "sıralama",
		NPS: "Net Tavsiye Skoru (NPS)", Promoters: "destekçiler", Passives: "pasifler", Detractors: "kötüleyenler",
		MoveUp: "Yukarı taşı", MoveDown: "Aşağı taşı", Moved: "%s: %d / %d",
		NotFound: "Bulunamadı", NothingHere: "Bu adreste bir şey yok."},
}

func textsFor(lang string) texts {
	t, ok := textsByLang[lang]
	if !ok {
		t = textsByLang["en"]
	}
	t.File = fileTextsFor(lang)
	t.Zero = zeroOf(lang)
	return t
}

// liveSurvey finds a survey by one of its public codes (lookup: its slug or
// its report code) and reads its item collection in one Query. It answers
// the request itself, and ok is false, when there is no such survey or it
// is in the trash (a 404 page) or the store fails.
func liveSurvey(w http.ResponseWriter, r *http.Request, st Store, lookup func(context.Context, string) (int64, error), code string) (c store.SurveyCollection, ok bool) {
	c, trashed, ok := surveyOrTrashed(w, r, st, lookup, code)
	if trashed {
		writeNotFound(w, r)
	}
	return c, ok
}

// surveyOrTrashed is liveSurvey's read, except that a survey in the trash
// comes back trashed with nothing written (ok false): a plain form sent
// again asks its key first (handleForm).
func surveyOrTrashed(w http.ResponseWriter, r *http.Request, st Store, lookup func(context.Context, string) (int64, error), code string) (c store.SurveyCollection, trashed, ok bool) {
	ctx := r.Context()
	sid, err := lookup(ctx, code)
	if err == nil {
		c, err = st.PublicCollection(ctx, sid, false)
	}
	switch {
	case err == nil && c.Survey.Deleted:
		return c, true, false
	case survey.ErrorCode(err) == survey.ENOTFOUND:
		writeNotFound(w, r)
		return c, false, false
	case err != nil:
		api.Error(w, r, err)
		return c, false, false
	}
	return c, false, true
}

// NotFound answers a serving route on a host that serves nothing there
// (contract section 23): the 404 page, or the API's 404 under /api/.
func NotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.Error(w, r, survey.ErrNotFound)
			return
		}
		writeNotFound(w, r)
	})
}
