package pages_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Page fixes the server alone shows; the browser tests
// (infra/local) show the rest, with axe-core over every page state.

func postForm(h http.Handler, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// hidden is the value of a hidden field of a page.
func hidden(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `" value="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no %s field", name)
	}
	return m[1]
}

// TestPlainFormTimeLimit: with a responding duration, the plain form's
// session starts when the page was served (sealed into the form), so a
// form sent after the time (and its 30 s grace) is refused and records
// nothing (it was once recorded with duration_seconds 0).
func TestPlainFormTimeLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	// Without a duration no time is sealed (no KMS call for nothing).
	if served := hidden(t, f.get("/s/"+f.sv.URLSlug+"/").body, "served"); served != "" {
		t.Errorf("a page without a time limit seals its time: %q", served)
	}
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{Set: map[string]any{"responding_ duration": "00:00:01"}}); err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	clock.Store(time.Now().UnixMicro())
	now := func() time.Time { return time.UnixMicro(clock.Load()) }
	h := testenv.Conform(pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: now}))
	get := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil))
		if rec.Code != 200 {
			t.Fatalf("page: %d", rec.Code)
		}
		return rec.Body.String()
	}
	answer := fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)

	late := get()
	clock.Add((33 * time.Second).Microseconds())
	rec := postForm(h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=late&served="+hidden(t, late, "served")+answer)
	if rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "The time to respond has ended.") {
		t.Errorf("a form sent 33 s after its page was served: %d %.300s", rec.Code, rec.Body)
	}
	// A forged or another survey's time is no time: the session starts
	// when the form is sent, as a page fetched anew would.
	rec = postForm(h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=forged&served=AAAA"+answer)
	if rec.Code != 200 {
		t.Errorf("a form with a forged time: %d %.300s", rec.Code, rec.Body)
	}
	inTime := get()
	clock.Add((20 * time.Second).Microseconds())
	if rec := postForm(h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=ok&served="+hidden(t, inTime, "served")+answer); rec.Code != 200 {
		t.Errorf("a form sent within the time (and grace): %d %.300s", rec.Code, rec.Body)
	}
	testenv.Tally(t) // the report's counts come from the stream
	if a, err := f.st.Aggregates(context.Background(), f.sv.ID); err != nil || a.Responses != 2 {
		t.Errorf("responses recorded %d (%v), want 2: the late form's is not", a.Responses, err)
	}
}

// TestPlainFormTiedRanks: a ranking whose selects give two choices one
// rank shows the form again with a message and records nothing (finding
// 7: every rank at 1 recorded the default order).
func TestPlainFormTiedRanks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0)
	ctx := context.Background()
	ids, err := f.st.NewIDs(ctx, "choice", 3)
	if err != nil {
		t.Fatal(err)
	}
	e := survey.NewElement(survey.TypeRanking)
	e.Title = "Rank these"
	e.Choices = []survey.ChoiceItem{{ID: ids[0], Name: "Price"}, {ID: ids[1], Name: "Quality"}, {ID: ids[2], Name: "Speed"}}
	ch, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	rid := ch.Element.ID
	ranks := func(r ...int) string {
		var b strings.Builder
		for i, id := range ids {
			fmt.Fprintf(&b, "&r%d_%d=%d", rid, id, r[i])
		}
		return b.String()
	}
	for _, tied := range [][]int{{1, 1, 1}, {1, 2, 2}, {3, 1, 3}} {
		rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=tie"+ranks(tied...))
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "\u2068Rank these\u2069: Give each choice a different rank.") {
			t.Errorf("ranks %v: %d %.300s", tied, rec.Code, rec.Body)
		}
	}
	if a, _ := f.st.Aggregates(ctx, f.sv.ID); a.Responses != 0 {
		t.Fatalf("%d responses recorded from tied ranks", a.Responses)
	}
	if rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=ok"+ranks(2, 3, 1)); rec.Code != 200 {
		t.Errorf("distinct ranks: %d %.300s", rec.Code, rec.Body)
	}
}

// TestPersianPageMessages: a Persian survey's refusals are in Persian,
// on the plain form and in the table its script reads.
func TestPersianPageMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	ctx := context.Background()
	fa := int64(1)
	if err := f.st.UpdateSettings(ctx, f.aid, f.sv.ID, store.SettingsUpdate{Language: &fa, Set: map[string]any{"code_auth": true}}); err != nil {
		t.Fatal(err)
	}
	page := f.get("/s/" + f.sv.URLSlug + "/")
	if !strings.Contains(page.body, `lang="fa" dir="rtl"`) || !strings.Contains(page.body, "کد شما پذیرفته نشد.") ||
		!strings.Contains(page.body, "پاسخ به این پرسش الزامی است.") {
		t.Errorf("the Persian page lacks its messages: %.600s", page.body)
	}
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=k&code=WRONG")
	body := rec.Body.String()
	if rec.Code != 403 || !strings.Contains(body, `<p dir="auto">کد شما پذیرفته نشد.</p>`) || strings.Contains(body, "Authentication failed.</p>") {
		t.Errorf("a wrong code on the Persian plain form: %d %s", rec.Code, body)
	}
}

// TestPageBasics: the page names its icon (an asset, not a 404) and has a
// description; its text is sent gzipped to a browser, which is how the
// weights below are measured.
func TestPageBasics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	page := f.get("/s/" + f.sv.URLSlug + "/")
	icon := regexp.MustCompile(`<link rel="icon" href="(/assets/favicon\.[0-9a-f]{12}\.svg)" type="image/svg\+xml">`).FindStringSubmatch(page.body)
	if icon == nil {
		t.Fatalf("no icon: %.400s", page.body)
	}
	if r := f.get(icon[1]); r.code != 200 || r.header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("icon: %d %v", r.code, r.header)
	}
	if !strings.Contains(page.body, `<meta name="description" content="Pages">`) {
		t.Errorf("no description")
	}
	if !regexp.MustCompile(`<head>[\s\S]*<script src="/assets/boot\.[0-9a-f]{12}\.js"></script>[\s\S]*</head>`).MatchString(page.body) {
		t.Errorf("no script before the first paint")
	}
	for _, path := range []string{
		"/s/" + f.sv.URLSlug + "/",
		"/r/" + f.sv.ReportCode + "/",
		regexp.MustCompile(`/assets/app\.[0-9a-f]{12}\.js`).FindString(page.body),
		regexp.MustCompile(`/assets/app\.[0-9a-f]{12}\.css`).FindString(page.body),
	} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		plain := f.get(path).body
		zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
		if err != nil || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped (%v, %q)", path, err, rec.Header().Get("Content-Encoding"))
			continue
		}
		var got bytes.Buffer
		_, err = got.ReadFrom(zr)
		// The survey page differs by its fresh Idempotency-Key.
		same := got.String() == plain || strings.HasPrefix(path, "/s/") && got.Len() == len(plain)
		if err != nil || !same {
			t.Errorf("%s: gunzipped body differs (%v)", path, err)
		}
		t.Logf("%-36s %6d B, gzipped %5d B", path, len(plain), rec.Body.Len())
	}
}

// TestPlainFormRefusalsInPersian: the refusals a responder meets on a
// Persian page without the script are in Persian, in the responder's
// words (contract section 16), not the API's English for developers:
// more checked boxes than a question allows (a plain form cannot stop
// them), a text over its length, and a form sent again with other
// answers after it was recorded (the back button); the script's table
// has the same words.
func TestPlainFormRefusalsInPersian(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0)
	ctx := context.Background()
	fa := int64(1)
	if err := f.st.UpdateSettings(ctx, f.aid, f.sv.ID, store.SettingsUpdate{Language: &fa}); err != nil {
		t.Fatal(err)
	}
	ids, err := f.st.NewIDs(ctx, "choice", 3)
	if err != nil {
		t.Fatal(err)
	}
	multi := survey.NewElement(survey.TypeMultipleChoice)
	multi.Title, multi.AllowMultipleSelect, multi.MaxSelectableChoices = "رنگ", true, 2
	multi.Choices = []survey.ChoiceItem{{ID: ids[0], Name: "سرخ"}, {ID: ids[1], Name: "سبز"}, {ID: ids[2], Name: "آبی"}}
	m, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, multi, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	name := survey.NewElement(survey.TypeText)
	name.Title, name.MaxLength = "نام", 5
	n, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, name, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	mid, nid := m.Element.ID, n.Element.ID
	path := "/s/" + f.sv.URLSlug + "/"
	if rec := postForm(f.h, path, fmt.Sprintf("idempotency_key=sent&a%d=%d", mid, ids[0])); rec.Code != 200 {
		t.Fatalf("a form within the limits: %d %.300s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"three boxes of at most two", fmt.Sprintf("idempotency_key=k1&a%d=%d&a%d=%d&a%d=%d", mid, ids[0], mid, ids[1], mid, ids[2]), 400,
			"<p dir=\"auto\">\u2068رنگ\u2069: حداکثر ۲ گزینه را انتخاب کنید.</p>"},
		{"a text over its length", fmt.Sprintf("idempotency_key=k2&a%d=abcdefg", nid), 400, "<p dir=\"auto\">\u2068نام\u2069: حداکثر ۵ نویسه بنویسید.</p>"},
		{"sent again with other answers", fmt.Sprintf("idempotency_key=sent&a%d=%d", mid, ids[1]), 422,
			`<p dir="auto">این فرم پیش‌تر با پاسخ‌های دیگری فرستاده شده است.</p>`},
	} {
		rec := postForm(f.h, path, c.body)
		errs := regexp.MustCompile(`<div id="errors"[^\n]*`).FindString(rec.Body.String())
		if rec.Code != c.status || !strings.Contains(errs, c.want) || strings.Contains(errs, "Ensure this field") || strings.Contains(errs, "Idempotency-Key") {
			t.Errorf("%s: %d, want %d and %s: %s", c.name, rec.Code, c.status, c.want, errs)
		}
	}
	// The script's table: the API's counted refusals, by their pattern.
	page := f.get(path).body
	for _, want := range []string{`"Ensure this field has no more than %d elements.":"حداکثر %d گزینه را انتخاب کنید."`,
		`"Ensure this field has no more than %d characters.":"حداکثر %d نویسه بنویسید."`} {
		if !strings.Contains(page, want) {
			t.Errorf("the script's table lacks %s", want)
		}
	}
	if a, _ := f.st.Aggregates(ctx, f.sv.ID); a.Responses > 1 {
		t.Errorf("%d responses recorded, want at most the first", a.Responses)
	}
}

// TestPlainFormBodyOverLimit: a plain form's body over 1 MiB answers 413
// as every route's does (contract section 3), not 400, and records
// nothing; a body at the limit is read.
func TestPlainFormBodyOverLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	path := "/s/" + f.sv.URLSlug + "/"
	answer := fmt.Sprintf("idempotency_key=big&a%d=%d&pad=", f.choices.ID, f.choices.Choices[0].ID)
	for _, c := range []struct {
		name   string
		size   int
		status int
	}{
		{"one byte over 1 MiB", 1<<20 + 1, http.StatusRequestEntityTooLarge},
		{"two MiB", 2 << 20, http.StatusRequestEntityTooLarge},
	} {
		rec := postForm(f.h, path, answer+strings.Repeat("x", c.size-len(answer)))
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), "Request body is larger than 1 MiB.") {
			t.Errorf("%s: %d %.300s", c.name, rec.Code, rec.Body)
		}
	}
	if rec := postForm(f.h, path, answer+strings.Repeat("x", 1<<20-len(answer))); rec.Code != 200 {
		t.Errorf("a body of exactly 1 MiB: %d %.300s", rec.Code, rec.Body)
	}
}

// TestPlainFormLineBreaks: a browser sends each line break of a textarea
// as CR LF; the plain form reads the text the responder typed, as the
// script sends it (LF), so a text the browser's maxlength let through in
// full is within max_length and is stored without the CRs (before: 400
// "no more than 10 characters", and "\r\n" stored).
func TestPlainFormLineBreaks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0)
	ctx := context.Background()
	e := survey.NewElement(survey.TypeText)
	e.Title, e.MaxLength = "Lines", 10
	ch, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", fmt.Sprintf("idempotency_key=lines&a%d=ab%%0D%%0Acd%%0D%%0Aef%%0D%%0Ag", ch.Element.ID))
	if rec.Code != 200 {
		t.Fatalf("ten characters in four lines: %d %s", rec.Code, regexp.MustCompile(`<div id="errors"[^\n]*`).FindString(rec.Body.String()))
	}
	rs := f.responses(t)
	if len(rs) != 1 || string(rs[0].Answers[ch.Element.ID]) != `"ab\ncd\nef\ng"` {
		t.Errorf("stored %+v", rs)
	}
}

// TestPlainFormStaleAfterAnEdit: a form filled while the owner edits the
// survey (a choice removed, a question deleted, a matrix's row removed)
// is refused in the page's language, saying that the survey changed, and
// shown again as it is now; before, a Persian page showed the API's
// English for developers ("Invalid pk \"7\" - object does not exist.";
// the script's page, which sends answers by id, also "Unknown question."
// and "Unknown row \"7\".").
func TestPlainFormStaleAfterAnEdit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0)
	ctx := context.Background()
	fa := int64(1)
	if err := f.st.UpdateSettings(ctx, f.aid, f.sv.ID, store.SettingsUpdate{Language: &fa}); err != nil {
		t.Fatal(err)
	}
	ids, err := f.st.NewIDs(ctx, "choice", 7)
	if err != nil {
		t.Fatal(err)
	}
	pick := survey.NewElement(survey.TypeMultipleChoice)
	pick.Title, pick.Choices = "رنگ", []survey.ChoiceItem{{ID: ids[0], Name: "سرخ"}, {ID: ids[1], Name: "سبز"}}
	gone := survey.NewElement(survey.TypeText)
	gone.Title = "نام"
	grid := survey.NewElement(survey.TypeMatrix)
	grid.Title = "جدول"
	grid.Rows = []survey.NamedItem{{ID: ids[2], Name: "یک"}, {ID: ids[3], Name: "دو"}}
	grid.Columns = []survey.NamedItem{{ID: ids[4], Name: "آری"}, {ID: ids[5], Name: "نه"}}
	var made []survey.Element
	for _, e := range []survey.Element{pick, gone, grid} {
		ch, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, ch.Element)
	}
	pid, gid, mid := made[0].ID, made[1].ID, made[2].ID
	// The form as the page served it, filled in; then the owner edits.
	form := fmt.Sprintf("idempotency_key=stale&a%d=%d&a%d=Ali&m%d_%d=%d", pid, ids[1], gid, mid, ids[3], ids[4])
	if _, err := f.st.UpdateElement(ctx, f.aid, f.sv.ID, pid, func(e *survey.Element) error { e.Choices = e.Choices[:1]; return nil }, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	if err := f.st.DeleteElement(ctx, f.aid, f.sv.ID, gid); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateElement(ctx, f.aid, f.sv.ID, mid, func(e *survey.Element) error { e.Rows = e.Rows[:1]; return nil }, survey.Placement{}); err != nil {
		t.Fatal(err)
	}
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", form)
	errs := regexp.MustCompile(`<div id="errors"[^\n]*`).FindString(rec.Body.String())
	const changed = "پرسش‌نامه هنگام پاسخ دادن شما تغییر کرد؛ پاسخ‌هایتان را بررسی کنید و دوباره بفرستید."
	// The plain form reads the fields of the questions as they are now:
	// the deleted question's and the removed row's are not sent.
	if want := "<p dir=\"auto\">\u2068رنگ\u2069: " + changed + `</p></div>`; !strings.HasSuffix(errs, want) {
		t.Errorf("a stale form: %d, want %s in %s", rec.Code, want, errs)
	}
	if rec.Code != 400 || strings.Contains(errs, "Invalid") || strings.Contains(errs, "Unknown") {
		t.Errorf("a stale form: %d %s", rec.Code, errs)
	}
	// The script's table words them the same.
	page := f.get("/s/" + f.sv.URLSlug + "/").body
	for _, key := range []string{`Invalid pk \"%d\" - object does not exist.`, `Unknown question.`, `Unknown row \"%d\".`} {
		if !strings.Contains(page, `"`+key+`":"`+changed+`"`) {
			t.Errorf("the script's table lacks %s", key)
		}
	}
	if a, _ := f.st.Aggregates(ctx, f.sv.ID); a.Responses != 0 {
		t.Errorf("%d responses recorded from a stale form", a.Responses)
	}
}

// TestPlainFormCaptchaNeedsScript: a captcha_needed survey's challenge is
// solved by the page's script (contract section 16), so a plain form
// cannot carry one; it is refused saying that answering needs
// JavaScript, in the page's language (before: "This field is required.",
// naming no field the responder can see), and records nothing.
func TestPlainFormCaptchaNeedsScript(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	fa := int64(1)
	f.set(t, store.SettingsUpdate{Language: &fa, Set: map[string]any{"captcha_needed": true}})
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", "idempotency_key=cap"+f.answers())
	errs := regexp.MustCompile(`<div id="errors"[^\n]*`).FindString(rec.Body.String())
	want := `<p dir="auto">پاسخ به این پرسش‌نامه به جاوااسکریپت نیاز دارد. جاوااسکریپت مرورگر خود را روشن کنید.</p>`
	if rec.Code != 400 || !strings.Contains(errs, want) {
		t.Errorf("a plain form to a captcha survey: %d %s", rec.Code, errs)
	}
	if rs := f.responses(t); len(rs) != 0 {
		t.Errorf("%d responses recorded", len(rs))
	}
}

// TestPlainFormKeyShape: the plain form's idempotency_key takes the
// Idempotency-Key header's shape (contract section 11: 1-255 visible
// ASCII characters), of which the session's own key (session: and the
// token's last 32 characters) and a client's are two; any other (a NUL, a
// control or non-ASCII character, a space, 256 characters; once only the
// length was checked) is a 400 on the form that starts no session and
// records nothing, and the form shown again carries a good key of its
// own, so that sending it again records.
func TestPlainFormKeyShape(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	path := "/s/" + f.sv.URLSlug + "/"
	answer := fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)
	for _, tc := range []struct{ name, key string }{
		// A hand-made form without the field, or with it empty, recorded
		// with a key of the page's own, once each time it was sent
		// (hostile10).
		{"missing", "(none)"},
		{"empty", ""},
		{"a NUL", "k\x00"},
		{"a control character", "k\x01"},
		{"a line break", "k\n1"},
		{"a space", "k 1"},
		{"DEL", "k\x7f"},
		{"Cyrillic", "ключ"},
		{"Persian", "کلید"},
		{"256 characters", strings.Repeat("k", 256)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := "idempotency_key=" + url.QueryEscape(tc.key) + answer
			if tc.key == "(none)" {
				form = answer[1:]
			}
			rec := postForm(f.h, path, form)
			body := rec.Body.String()
			if rec.Code != 400 || !strings.Contains(body, "Send one key of 1 to 255 visible ASCII characters.") {
				t.Fatalf("%d %.400s", rec.Code, body)
			}
			if again := hidden(t, body, "idempotency_key"); again == html.EscapeString(tc.key) || !responding.ValidKey(again) {
				t.Errorf("the form shown again carries the key %q", again)
			}
			if s := hidden(t, body, "session"); s != "" {
				t.Errorf("a session was started: %q", s)
			}
		})
	}
	if rs := f.responses(t); len(rs) != 0 {
		t.Fatalf("after the refusals: %d responses", len(rs))
	}

	// The shapes that are taken: a client's key of 255 visible characters,
	// and the session's own key with its session (the page's script's,
	// kept in the form when the script stops).
	var visible strings.Builder
	for i := range 255 {
		visible.WriteByte(byte('!' + i%94))
	}
	if rec := postForm(f.h, path, "idempotency_key="+url.QueryEscape(visible.String())+answer); rec.Code != 200 {
		t.Errorf("a client's key of 255 visible characters: %d %.400s", rec.Code, rec.Body)
	}
	svc := responding.Service{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now}
	started, err := svc.Start(context.Background(), responding.StartRequest{Slug: f.sv.URLSlug})
	if err != nil {
		t.Fatal(err)
	}
	own := responding.SessionKey(started.Token)
	if rec := postForm(f.h, path, "idempotency_key="+url.QueryEscape(own)+"&session="+url.QueryEscape(started.Token)+answer); rec.Code != 200 {
		t.Errorf("the session's own key: %d %.400s", rec.Code, rec.Body)
	}
	if rs := f.responses(t); len(rs) != 2 {
		t.Errorf("%d responses, want 2", len(rs))
	}
}

// TestPlainFormResentAfterAClose (contract section 11: the same
// Idempotency-Key with the same body answers the first response again,
// however the survey changed since; docs/responding.md, the plain form
// is recorded "by the same code as the JSON API"): a plain form sent
// again with its key after the survey was stopped shows the thanks of
// the response its first sending recorded. It showed "This survey is
// closed." (410) with that response recorded: a form without a session
// starts one first, and that start refused before the key was asked
// (outside, on make run: hostile6). A key that recorded nothing, or the
// same key with other answers, is refused as before: 410.
//
// The same after the survey was moved to the trash, where the JSON API's
// retry answers its 201 too: the form showed the trashed survey's 404
// page before its key was asked (outside, on make run: 6 of 6 forms that
// showed the thanks showed 404 when sent again after a trash; hostile8).
// Another key, or other answers, still show the 404 page.
func TestPlainFormResentAfterAClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		refused int // what another form answers after the close
		close   func(f fixture) error
	}{
		{"stopped", 410, func(f fixture) error {
			stopped := true
			return f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{IsStopped: &stopped})
		}},
		{"trashed", 404, func(f fixture) error { return f.st.TrashSurvey(context.Background(), f.aid, f.sv.ID) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 2)
			path := "/s/" + f.sv.URLSlug + "/"
			answer := fmt.Sprintf("&a%d=%d&a%d=4", f.choices.ID, f.choices.Choices[0].ID, f.rating.ID)
			// The first sending has a request's deadline, as on Lambda: a
			// replay within it waits for its fence (store.replayed); the
			// resend below comes after it. 5 s: 2 s answered 503 on a
			// loaded 2-core machine.
			first := testenv.WithDeadline(f.h, 5*time.Second)
			sent := time.Now()
			if rec := postForm(first, path, "idempotency_key=resent-1"+answer); rec.Code != 200 || !strings.Contains(rec.Body.String(), `<section class="thanks" id="thanks"><h2`) {
				t.Fatalf("first sending: %d %.400s", rec.Code, rec.Body)
			}
			if err := tc.close(f); err != nil {
				t.Fatal(err)
			}
			for time.Since(sent) < 6500*time.Millisecond { // the first request's time, and the store's margin, over
				time.Sleep(100 * time.Millisecond)
			}
			const thanks = `<section class="thanks" id="thanks"><h2 id="message">` // the plain thanks (the form has a hidden one for its script)
			rec := postForm(f.h, path, "idempotency_key=resent-1"+answer)
			if rec.Code != 200 || !strings.Contains(rec.Body.String(), thanks) {
				t.Errorf("the same form sent again after the survey was %s: %d %.400s; want the thanks (200)", tc.name, rec.Code, rec.Body)
			}
			for _, other := range []struct{ name, body string }{
				{"another key", "idempotency_key=resent-2" + answer},
				{"the key with other answers", "idempotency_key=resent-1" + fmt.Sprintf("&a%d=%d&a%d=2", f.choices.ID, f.choices.Choices[1].ID, f.rating.ID)},
			} {
				if rec := postForm(f.h, path, other.body); rec.Code != tc.refused || strings.Contains(rec.Body.String(), thanks) {
					t.Errorf("%s after the survey was %s: %d %.400s; want %d", other.name, tc.name, rec.Code, rec.Body, tc.refused)
				}
			}
			if rs := f.responses(t); len(rs) != 1 {
				t.Errorf("%d responses recorded, want 1", len(rs))
			}
		})
	}
}
