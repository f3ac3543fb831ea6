package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// getLang is a page with an Accept-Language header.
func (f fixture) getLang(path, accept string) result {
	ctx, calls := awsenv.WithCalls(context.Background())
	req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
	req.Header.Set("Accept", "text/html")
	if accept != "" {
		req.Header.Set("Accept-Language", accept)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return result{rec.Code, rec.Header(), string(b), calls}
}

// TestPageLanguage: section 24 on the page. The language is ?lang= (one
// of the survey's; another is ignored), else Accept-Language by q-value
// and primary subtag (q=0 excludes), else the default; the page's lang,
// dir and own words follow it; the switcher is plain links keeping the
// address's parameters; an untranslated text shows the default's, marked
// with its own lang and dir; a warm view stays one read of the survey
// whatever the number of languages.
func TestPageLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey: a multiple choice (Red, Green, Blue) and a rating
	ctx := t.Context()
	if err := f.st.SetLanguages(ctx, f.aid, f.sv.ID, []string{"fa", "ar"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, f.sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"survey": map[string]any{"name": "نظرسنجی"}, "elements": map[string]any{
		fmt.Sprint(f.choices.ID): map[string]any{"title": "پرسش یک", "choices": map[string]any{fmt.Sprint(f.choices.Choices[0].ID): "قرمز"}}}}
	tr, err := decodeTranslation(body, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, f.sv.ID, "fa", tr); err != nil {
		t.Fatal(err)
	}
	path := "/s/" + f.sv.URLSlug + "/"
	for _, tc := range []struct {
		name, query, accept, lang string
	}{
		{"no preference: the default", "", "", "en"},
		{"?lang=fa", "?lang=fa", "", "fa"},
		{"?lang= not the survey's is ignored", "?lang=tr", "fa", "fa"},
		{"?lang= wins over the header", "?lang=ar", "fa", "ar"},
		{"the header's best", "", "de-DE, fa-IR;q=0.8, en;q=0.5", "fa"},
		{"q-values, not order", "", "en;q=0.2, AR;q=0.9", "ar"},
		{"q=0 excludes", "", "fa;q=0, ar;q=0, de", "en"},
		{"q=0 on a subtag's other range excludes", "", "fa-IR;q=0, fa;q=0.9, en;q=0.1", "en"},
	} {
		p := f.getLang(path+tc.query, tc.accept)
		dir := survey.Dir(tc.lang)
		if p.code != 200 || !strings.Contains(p.body, fmt.Sprintf(`<html lang="%s" dir="%s">`, tc.lang, dir)) {
			t.Errorf("%s: %d, want lang %s: %.300s", tc.name, p.code, tc.lang, p.body)
		}
		if !strings.Contains(strings.Join(p.header.Values("Vary"), ","), "Accept-Language") {
			t.Errorf("%s: Vary %q", tc.name, p.header.Values("Vary"))
		}
	}

	fa := f.getLang(path+"?lang=fa&qs=abc", "")
	for _, want := range []string{
		"<h1>نظرسنجی</h1>", "پرسش یک", "قرمز",
		`<span lang="en" dir="ltr">Green</span>`, // untranslated: the default's text, marked
		`<span lang="en" dir="ltr">Question 2</span>`,
		`<nav class="langs" aria-label="زبان">`,
		`<a href="/s/` + f.sv.URLSlug + `/?lang=en&amp;qs=abc" hreflang="en" lang="en" dir="ltr">English</a>`,
		`<a href="/s/` + f.sv.URLSlug + `/?lang=ar&amp;qs=abc" hreflang="ar" lang="ar" dir="rtl">العربية</a>`,
		`action="/s/` + f.sv.URLSlug + `/?lang=fa"`,
		">ارسال<", // the page's own words
	} {
		if !strings.Contains(fa.body, want) {
			t.Errorf("the fa page lacks %q", want)
		}
	}
	if strings.Contains(fa.body, "\ue000") || strings.Contains(fa.body, ">Red<") {
		t.Error("the fa page leaks a mark or the translated choice's default")
	}
	ar := f.getLang(path+"?lang=ar", "")
	if !strings.Contains(ar.body, `<h1><span lang="en" dir="ltr">Pages</span></h1>`) {
		t.Errorf("the ar page's untranslated name: %.600s", ar.body)
	}
	en := f.getLang(path, "")
	if strings.Contains(en.body, `dir="ltr">Green`) || !strings.Contains(en.body, "Red") {
		t.Error("the default page marks its own texts")
	}

	// A warm view reads a read copy of the survey's state alone, in any language.
	for _, q := range []string{"?lang=fa", "?lang=ar", ""} {
		v := f.getLang(path+q, "")
		if want := map[string]int{"DynamoDB.GetItem": 1, "DynamoDB.PutItem": 1}; fmt.Sprint(v.calls.Ops()) != fmt.Sprint(want) {
			t.Errorf("a warm view %s: %v, want %v: a copy of the survey's state (its version) and the view's record", q, v.calls.Ops(), want)
		}
	}
}

// decodeTranslation reads texts as the translations route does.
func decodeTranslation(body map[string]any, c store.SurveyCollection) (survey.Translation, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return survey.Translation{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return survey.Translation{}, err
	}
	return survey.DecodeTranslation(raw, c.Survey.Name, c.Elements)
}

// TestPlainFormLanguage: the form without the script records the page's
// language in its response (contract section 24): the ?lang= of its
// action, else the browser's Accept-Language, else the survey's default.
func TestPlainFormLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey
	if err := f.st.SetLanguages(t.Context(), f.aid, f.sv.ID, []string{"fa"}); err != nil {
		t.Fatal(err)
	}
	slug := f.sv.URLSlug
	for i, tc := range []struct {
		name, query, accept, want string
	}{
		{"?lang= of the form's action", "?lang=fa", "", "fa"},
		{"Accept-Language", "", "fa-IR, en;q=0.5", "fa"},
		{"the default", "", "", "en"},
		{"a ?lang= not the survey's is ignored", "?lang=ar", "", "en"},
	} {
		b := &plainBrowser{h: f.h}
		req := httptest.NewRequest("GET", "/s/"+slug+"/"+tc.query, nil)
		req.Header.Set("Accept", "text/html")
		if tc.accept != "" {
			req.Header.Set("Accept-Language", tc.accept)
		}
		page := b.do(t, req).Body.String()
		body := "idempotency_key=" + url.QueryEscape(hidden(t, page, "idempotency_key")) + "&served=" + url.QueryEscape(hidden(t, page, "served")) + f.answers()
		post := httptest.NewRequest("POST", "/s/"+slug+"/"+tc.query, strings.NewReader(body))
		post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.accept != "" {
			post.Header.Set("Accept-Language", tc.accept)
		}
		if rec := b.do(t, post); rec.Code != 200 {
			t.Fatalf("%s: the form: %d %.400s", tc.name, rec.Code, rec.Body)
		}
		rs := f.responses(t)
		if len(rs) != i+1 {
			t.Fatalf("%s: %d responses, want %d", tc.name, len(rs), i+1)
		}
		if got := rs[i].Language; got != tc.want {
			t.Errorf("%s: the response's language %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestReportLanguage: the public report reads in any of the survey's
// languages with ?lang= (contract section 24): the page's lang, dir and
// words, the survey's name and the charts' titles and labels translated
// (untranslated ones in the default), the counts by id the same in every
// language; another lang answers 400 before anything else is read.
func TestReportLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey: a multiple choice (Red, Green, Blue) and a rating
	ctx := t.Context()
	if err := f.st.SetLanguages(ctx, f.aid, f.sv.ID, []string{"fa"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, f.sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decodeTranslation(map[string]any{"survey": map[string]any{"name": "نظرسنجی"}, "elements": map[string]any{
		fmt.Sprint(f.choices.ID): map[string]any{"title": "پرسش یک", "choices": map[string]any{fmt.Sprint(f.choices.Choices[0].ID): "قرمز"}}}}, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, f.sv.ID, "fa", tr); err != nil {
		t.Fatal(err)
	}
	// One response (Red) given in fa, one in en: both count for the same
	// choice, read in either language.
	for _, q := range []string{"?lang=fa", ""} {
		b := &plainBrowser{h: f.h}
		req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/"+q, nil)
		req.Header.Set("Accept", "text/html")
		page := b.do(t, req).Body.String()
		body := "idempotency_key=" + url.QueryEscape(hidden(t, page, "idempotency_key")) + "&served=" + url.QueryEscape(hidden(t, page, "served")) + f.answers()
		post := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/"+q, strings.NewReader(body))
		post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if rec := b.do(t, post); rec.Code != 200 {
			t.Fatalf("the form %s: %d %.300s", q, rec.Code, rec.Body)
		}
	}
	testenv.Tally(t)

	path := "/r/" + f.sv.ReportCode + "/"
	desc := regexp.MustCompile(`<desc id="chart0-d">([^<]*)</desc>`)
	for _, tc := range []struct {
		query, lang, name, title, first string
	}{
		{"", "en", "Pages", "Question 1", "Red"},
		{"?lang=en", "en", "Pages", "Question 1", "Red"},
		{"?lang=fa", "fa", "نظرسنجی", "پرسش یک", "قرمز"},
	} {
		rep := f.get(path + tc.query)
		if rep.code != 200 || !strings.Contains(rep.body, fmt.Sprintf(`<html lang="%s" dir="%s">`, tc.lang, survey.Dir(tc.lang))) {
			t.Fatalf("report%s: %d %.300s", tc.query, rep.code, rep.body)
		}
		if !strings.Contains(rep.body, "<h1>"+tc.name+" — ") || !strings.Contains(rep.body, tc.title) {
			t.Errorf("report%s: name %q or title %q missing: %.600s", tc.query, tc.name, tc.title, rep.body)
		}
		two := "2"
		if tc.lang == "fa" {
			two = "۲"
		}
		if m := desc.FindStringSubmatch(rep.body); m == nil || !strings.HasPrefix(m[1], tc.first+": "+two) || !strings.Contains(m[1], "Green") {
			t.Errorf("report%s: the choices' chart %q, want %s counted twice and Green untranslated", tc.query, m, tc.first)
		}
	}
	for _, q := range []string{"?lang=ar", "?lang=de", "?lang="} {
		if rep := f.get(path + q); rep.code != 400 || !strings.Contains(rep.body, "lang: Not one of this survey") {
			t.Errorf("report%s: %d %.300s, want 400", q, rep.code, rep.body)
		}
	}
}

// TestSheetLanguage: the answer sheet a responder reads is in the
// language they answered in (contract section 24: every text the
// responder reads is in the page's language), the sheet page's lang, dir,
// own words and digits, its titles and choice names (untranslated ones in
// the default); a response given in the default reads it in the default.
func TestSheetLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey: a multiple choice (Red, Green, Blue) and a rating
	ctx := t.Context()
	red := f.choices.Choices[0].ID
	if _, err := f.st.UpdateElement(ctx, f.aid, f.sv.ID, f.choices.ID, func(e *survey.Element) error {
		e.CorrectChoice = &red
		return nil
	}, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	f.set(t, store.SettingsUpdate{Set: map[string]any{"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true,
		"show_answer_key_after_response_submit": true}})
	if err := f.st.SetLanguages(ctx, f.aid, f.sv.ID, []string{"fa"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, f.sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decodeTranslation(map[string]any{"survey": map[string]any{"name": "نظرسنجی"}, "elements": map[string]any{
		fmt.Sprint(f.choices.ID): map[string]any{"title": "پرسش یک", "choices": map[string]any{fmt.Sprint(red): "قرمز"}}}}, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, f.sv.ID, "fa", tr); err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`<a id="sheet-link" href="([^"]+)">`)
	for _, tc := range []struct {
		query, lang string
		want        []string
	}{
		{"?lang=fa", "fa", []string{"<h1>نظرسنجی</h1>", "<h2>پرسش یک</h2>", ": قرمز", "۱"}},
		{"", "en", []string{"<h1>Pages</h1>", "<h2>Question 1</h2>", ": Red", "1/1"}},
	} {
		b := &plainBrowser{h: f.h}
		req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/"+tc.query, nil)
		req.Header.Set("Accept", "text/html")
		page := b.do(t, req).Body.String()
		body := "idempotency_key=" + url.QueryEscape(hidden(t, page, "idempotency_key")) + "&served=" + url.QueryEscape(hidden(t, page, "served")) + f.answers()
		post := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/"+tc.query, strings.NewReader(body))
		post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		thanks := b.do(t, post).Body.String()
		m := link.FindStringSubmatch(thanks)
		if m == nil {
			t.Fatalf("%q: no sheet link: %.600s", tc.query, thanks)
		}
		sheet := f.get(htmlUnescape(m[1]))
		if sheet.code != 200 || !strings.Contains(sheet.body, fmt.Sprintf(`<html lang="%s" dir="%s">`, tc.lang, survey.Dir(tc.lang))) {
			t.Errorf("the sheet of a response in %s: %d %.400s", tc.lang, sheet.code, sheet.body)
		}
		for _, w := range tc.want {
			if !strings.Contains(sheet.body, w) {
				t.Errorf("the sheet of a response in %s lacks %q: %.1200s", tc.lang, w, sheet.body)
			}
		}
	}
}

// TestThrottledPageLanguage: a refused page navigation (a limit's 429)
// speaks the language the page would have (contract section 24: every
// text the responder reads, the page's own words included): ?lang=, else
// Accept-Language, else the survey's default, with the survey's name in
// that language; a report's refusal its ?lang= (section 24's owner reads).
func TestThrottledPageLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey
	f.nameIn(t, "fa", "نظرسنجی", "fa")
	rates := ratelimit.Service
	rates.Client.Limit = 1
	h := pages.Limited(pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now}), f.st, rates, time.Now)
	for i, tc := range []struct {
		name, path, accept, lang, title string
	}{
		{"?lang=fa", "/s/" + f.sv.URLSlug + "/?lang=fa", "", "fa", "<title>نظرسنجی</title>"},
		{"Accept-Language", "/s/" + f.sv.URLSlug + "/", "fa-IR, en;q=0.5", "fa", "<title>نظرسنجی</title>"},
		{"the default", "/s/" + f.sv.URLSlug + "/", "", "en", "<title>Pages</title>"},
		{"the report's ?lang=fa", "/r/" + f.sv.ReportCode + "/?lang=fa", "", "fa", "<title>نظرسنجی</title>"},
		{"the report ignores Accept-Language", "/r/" + f.sv.ReportCode + "/", "fa", "en", "<title>Pages</title>"},
	} {
		var last *httptest.ResponseRecorder
		for range 2 {
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set("Accept", "text/html")
			req.Header.Set("Sec-Fetch-Mode", "navigate")
			if tc.accept != "" {
				req.Header.Set("Accept-Language", tc.accept)
			}
			req.RemoteAddr = fmt.Sprintf("203.0.113.%d:1000", 40+i)
			last = httptest.NewRecorder()
			h.ServeHTTP(last, req)
		}
		body := last.Body.String()
		if last.Code != http.StatusTooManyRequests || !strings.Contains(body, fmt.Sprintf(`<html lang="%s" dir="%s">`, tc.lang, survey.Dir(tc.lang))) ||
			!strings.Contains(body, tc.title) {
			t.Errorf("%s: %d, want 429 in %s with %s: %.500s", tc.name, last.Code, tc.lang, tc.title, body)
		}
	}
}

// TestSheetMarksByID: the answer sheet marks an answer right or wrong by
// the choice's id, as the score counts it (contract section 24: quizzes
// work on ids), never by its text: a wrong choice named as the right one
// is marked wrong.
func TestSheetMarksByID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2) // an en survey: a multiple choice (Red, Green, Blue) and a rating
	red := f.choices.Choices[0].ID
	if _, err := f.st.UpdateElement(t.Context(), f.aid, f.sv.ID, f.choices.ID, func(e *survey.Element) error {
		e.CorrectChoice = &red
		e.Choices[1].Name = "Red" // Green, renamed as the right one
		return nil
	}, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	f.set(t, store.SettingsUpdate{Set: map[string]any{"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true,
		"show_answer_key_after_response_submit": true}})
	for _, tc := range []struct {
		choice int64
		mark   string
	}{{f.choices.Choices[1].ID, "(wrong)"}, {red, "(right)"}} {
		b := &plainBrowser{h: f.h}
		req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil)
		req.Header.Set("Accept", "text/html")
		page := b.do(t, req).Body.String()
		answers := fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, tc.choice, f.rating.ID)
		thanks := b.send(t, f.sv.URLSlug, page, answers).Body.String()
		m := regexp.MustCompile(`<a id="sheet-link" href="([^"]+)">`).FindStringSubmatch(thanks)
		if m == nil {
			t.Fatalf("no sheet link: %.600s", thanks)
		}
		if sheet := f.get(htmlUnescape(m[1])); sheet.code != 200 || !strings.Contains(sheet.body, `<span class="mark">`+tc.mark+`</span>`) {
			t.Errorf("choice %d: the sheet lacks %s: %d %.1000s", tc.choice, tc.mark, sheet.code, sheet.body)
		}
	}
}

// TestNotFoundInTheResponderLanguage: the 404 page of an address that
// names no survey (an unknown slug or report code, an unknown asset) has
// no survey's language; it speaks the responder's (?lang=, else
// Accept-Language, among the pages' languages), right to left and in
// Vazirmatn on a Persian page. Before, it was English, left to right, to
// everyone.
func TestNotFoundInTheResponderLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	for _, c := range []struct {
		name, path, accept string
		want               []string
	}{
		{"fa", "/s/nosuchslug/", "fa-IR,fa;q=0.9,en;q=0.8", []string{`<html lang="fa" dir="rtl">`, "<h1>یافت نشد</h1>", "در این نشانی چیزی نیست.",
			`href="/assets/vazirmatn-arabic-wght-normal.`, `font-family:"Vazirmatn"`}},
		{"en", "/s/nosuchslug/", "en-US,en;q=0.9", []string{`<html lang="en" dir="ltr">`, "<h1>Not found</h1>", "There is nothing at this address."}},
		{"none", "/r/nosuchcode/", "", []string{`<html lang="en" dir="ltr">`, "There is nothing at this address."}},
		{"unknown language", "/s/nosuchslug/", "de,ja;q=0.5", []string{`<html lang="en" dir="ltr">`, "There is nothing at this address."}},
		{"ar after de", "/assets/app.000000000000.css", "de,ar;q=0.5", []string{`<html lang="ar" dir="rtl">`, "لا يوجد شيء في هذا العنوان."}},
		{"?lang=", "/s/nosuchslug/?lang=tr", "fa", []string{`<html lang="tr" dir="ltr">`, "Bu adreste bir şey yok."}},
		{"?lang= unknown", "/s/nosuchslug/?lang=xx", "fa", []string{`<html lang="fa" dir="rtl">`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.getLang(c.path, c.accept)
			if r.code != 404 {
				t.Fatalf("%d", r.code)
			}
			for _, w := range c.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("no %q in %.600s", w, r.body)
				}
			}
		})
	}
}

// nameIn gives the fixture's survey the languages langs besides its
// default, and the name name in lang.
func (f fixture) nameIn(t *testing.T, lang, name string, langs ...string) {
	t.Helper()
	ctx := t.Context()
	if err := f.st.SetLanguages(ctx, f.aid, f.sv.ID, langs); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, f.sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decodeTranslation(map[string]any{"survey": map[string]any{"name": name}}, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, f.sv.ID, lang, tr); err != nil {
		t.Fatal(err)
	}
}
