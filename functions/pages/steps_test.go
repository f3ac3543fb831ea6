package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// stepsFixture is a survey with display rules, one question a page:
//
//	0 pick (Yes, No), required
//	1 why (text), required, shown when 0 = Yes
//	2 rate (rating), shown when 0 = No
//	3 last (text)
type stepsFixture struct {
	fixture
	pick, why, rate, last survey.Element
}

func newStepsFixture(t *testing.T) stepsFixture {
	t.Helper()
	f := stepsFixture{fixture: newFixture(t, 0)}
	ctx := context.Background()
	ids, err := f.st.NewIDs(ctx, store.KindChoice, 2)
	if err != nil {
		t.Fatal(err)
	}
	add := func(e survey.Element) survey.Element {
		ch, err := f.st.CreateElement(ctx, f.aid, f.sv.ID, e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		return ch.Element
	}
	pick := survey.NewElement(survey.TypeMultipleChoice)
	pick.Title, pick.AnswerRequired = "Coffee?", true
	pick.Choices = []survey.ChoiceItem{{ID: ids[0], Name: "Yes", Order: 1}, {ID: ids[1], Name: "No", Order: 2}}
	f.pick = add(pick)
	why := survey.NewElement(survey.TypeText)
	why.Title, why.AnswerRequired = "Why coffee?", true
	why.Conditions = []survey.Condition{{FirstOperand: f.pick.ID, ArithmeticOperator: survey.OpEquals, SecondOperand: &survey.Operand{Type: 1, ID: &ids[0]}}}
	f.why = add(why)
	rate := survey.NewElement(survey.TypeRating)
	rate.Title = "Rate tea"
	rate.Conditions = []survey.Condition{{FirstOperand: f.pick.ID, ArithmeticOperator: survey.OpEquals, SecondOperand: &survey.Operand{Type: 1, ID: &ids[1]}}}
	f.rate = add(rate)
	last := survey.NewElement(survey.TypeText)
	last.Title = "Anything else?"
	f.last = add(last)
	return f
}

// post sends the plain form: the page's hidden fields (steps, session,
// key...) and the fields given.
func (f stepsFixture) post(t *testing.T, page string, fields url.Values) (int, string) {
	t.Helper()
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], htmlUnescape(m[2]))
	}
	for k, v := range fields {
		form[k] = v
	}
	rec := postForm(f.h, "/s/"+f.sv.URLSlug+"/", form.Encode())
	return rec.Code, rec.Body.String()
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'").Replace(s)
}

// shownQuestions are the data-id of the questions a page shows.
func shownQuestions(page string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`class="q[^"]*" data-id="(\d+)"[^>]*?( hidden)?>`).FindAllStringSubmatch(page, -1) {
		if m[2] == "" {
			ids = append(ids, m[1])
		}
	}
	return ids
}

func (f stepsFixture) stored(t *testing.T) []map[string]json.RawMessage {
	t.Helper()
	rs, err := f.st.ResponsesPage(context.Background(), f.sv.ID, store.ResponseQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, r := range rs.Responses {
		m := map[string]json.RawMessage{}
		for id, a := range r.Answers {
			m[fmt.Sprint(id)] = a
		}
		out = append(out, m)
	}
	return out
}

// TestPlainFormSteps: without the script, a survey with rules goes page
// by page on the server: each page shows only what its rules show, a
// field of a question not shown (sent anyway) is never read, a required
// shown question keeps the page, going back and changing an answer
// clears the answer of the question it hides, and the last page submits
// once (a resend records nothing more).
func TestPlainFormSteps(t *testing.T) {
	t.Parallel()
	f := newStepsFixture(t)
	id := func(e survey.Element) string { return fmt.Sprint(e.ID) }
	yes, no := fmt.Sprint(f.pick.Choices[0].ID), fmt.Sprint(f.pick.Choices[1].ID)

	page := f.get("/s/" + f.sv.URLSlug + "/").body
	// Every page is on the first for the script; without it, the
	// questions its rules hide before any answer carry hidden.
	if got := shownQuestions(page); strings.Join(got, ",") != id(f.pick)+","+id(f.last) {
		t.Errorf("first page shows %v, want the pick and the last (why and rate hidden)", got)
	}
	if !strings.Contains(page, `class="steps"`) || !strings.Contains(page, `id="plain-next" class="plain">Next</button>`) {
		t.Errorf("the first page has no plain steps: %.500s", page)
	}

	// Path A: Yes; a forged answer to rate (hidden) is sent too: not read.
	code, page := f.post(t, page, url.Values{"a" + id(f.pick): {yes}, "a" + id(f.rate): {"5"}, "a" + id(f.why): {"ignored: not on this page"}})
	if code != 200 || strings.Join(shownQuestions(page), ",") != id(f.why) {
		t.Fatalf("after Yes: %d, shows %v, want why alone: %.600s", code, shownQuestions(page), page)
	}
	if !strings.Contains(page, `value="2"`) || !strings.Contains(page, `max="3"`) || strings.Contains(page, "<script") {
		t.Errorf("why's page: progress 2 of 3 shown pages and no script wanted: %.900s", page)
	}
	// Required: the page again with the message.
	code, again := f.post(t, page, url.Values{"nav": {"next"}})
	if code != 400 || !strings.Contains(again, "\u2068Why coffee?\u2069: This question requires an answer.") || strings.Join(shownQuestions(again), ",") != id(f.why) {
		t.Fatalf("why left empty: %d %.600s", code, again)
	}
	code, page = f.post(t, again, url.Values{"a" + id(f.why): {"it wakes me"}, "nav": {"next"}})
	if code != 200 || strings.Join(shownQuestions(page), ",") != id(f.last) || !strings.Contains(page, ">Submit</button>") {
		t.Fatalf("after why: %d shows %v: %.600s", code, shownQuestions(page), page)
	}
	// Back twice to the pick, change it to No: why is hidden and its
	// answer cleared, rate is shown.
	_, page = f.post(t, page, url.Values{"nav": {"prev"}})
	if got := shownQuestions(page); strings.Join(got, ",") != id(f.why) || !strings.Contains(page, "it wakes me</textarea>") {
		t.Fatalf("back from the last: shows %v: %.600s", got, page)
	}
	_, page = f.post(t, page, url.Values{"a" + id(f.why): {"it wakes me"}, "nav": {"prev"}})
	if got := shownQuestions(page); strings.Join(got, ",") != id(f.pick) || !strings.Contains(page, `value="`+yes+`" checked`) {
		t.Fatalf("back to the pick: shows %v: %.600s", got, page)
	}
	_, page = f.post(t, page, url.Values{"a" + id(f.pick): {no}, "nav": {"next"}})
	if got := shownQuestions(page); strings.Join(got, ",") != id(f.rate) {
		t.Fatalf("after No: shows %v, want rate: %.600s", got, page)
	}
	_, page = f.post(t, page, url.Values{"a" + id(f.rate): {"4"}})
	final := url.Values{"a" + id(f.last): {"tea person"}}
	code, thanks := f.post(t, page, final)
	if code != 200 || !strings.Contains(thanks, `id="message"`) {
		t.Fatalf("the last page: %d %.600s", code, thanks)
	}
	// The same last form again (a resend): the thanks, nothing recorded.
	if code, again := f.post(t, page, final); code != 200 || !strings.Contains(again, `id="message"`) {
		t.Errorf("the last form again: %d %.300s", code, again)
	}
	rs := f.stored(t)
	if len(rs) != 1 {
		t.Fatalf("%d responses, want 1", len(rs))
	}
	got, _ := json.Marshal(rs[0])
	want := fmt.Sprintf(`{"%s":[%s],"%s":4,"%s":"tea person"}`, id(f.pick), no, id(f.rate), id(f.last))
	if string(got) != want {
		t.Errorf("stored %s, want %s (why cleared)", got, want)
	}

	// A tampered state is refused and changes nothing.
	page = f.get("/s/" + f.sv.URLSlug + "/").body
	_, page = f.post(t, page, url.Values{"a" + id(f.pick): {no}})
	steps := regexp.MustCompile(`name="steps" value="([^"]+)"`).FindStringSubmatch(page)
	if steps == nil {
		t.Fatalf("no steps: %.400s", page)
	}
	forged := strings.Replace(page, steps[1], steps[1][:len(steps[1])-3]+"AAA", 1)
	if code, body := f.post(t, forged, url.Values{"a" + id(f.rate): {"2"}}); code != 400 || !strings.Contains(body, "The form could not be read.") {
		t.Errorf("a tampered state: %d %.400s", code, body)
	}
	if n := len(f.stored(t)); n != 1 {
		t.Errorf("%d responses after a tampered state, want 1", n)
	}
}

// TestPlainFormStepsTimeLimit: the steps keep the time to respond: the
// session starts when the first page was served, and a page posted after
// the time (and its grace) shows the time-up message, as the script's
// countdown does, and records nothing.
func TestPlainFormStepsTimeLimit(t *testing.T) {
	t.Parallel()
	f := newStepsFixture(t)
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{Set: map[string]any{"responding_ duration": "00:00:10"}}); err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	clock.Store(time.Now().UnixMicro())
	f.h = testenv.Conform(pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: func() time.Time { return time.UnixMicro(clock.Load()) }}))
	id := func(e survey.Element) string { return fmt.Sprint(e.ID) }
	yes := fmt.Sprint(f.pick.Choices[0].ID)
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil))
	page := rec.Body.String()
	clock.Add((20 * time.Second).Microseconds()) // past 10 s, within the 30 s grace
	code, page := f.post(t, page, url.Values{"a" + id(f.pick): {yes}})
	if code != 200 || strings.Join(shownQuestions(page), ",") != id(f.why) {
		t.Fatalf("within the grace: %d %.400s", code, page)
	}
	clock.Add((25 * time.Second).Microseconds()) // 45 s after the page was served
	code, page = f.post(t, page, url.Values{"a" + id(f.why): {"late"}})
	if code != 410 || !strings.Contains(page, "The time to respond has ended.") {
		t.Errorf("a page posted after the time: %d %.400s", code, page)
	}
	if n := len(f.stored(t)); n != 0 {
		t.Errorf("%d responses recorded after the time", n)
	}
}

// TestPlainFormSheetLink: a plain form's thanks links the responder's
// answer sheet when the survey shows it, as the script's thanks does.
func TestPlainFormSheetLink(t *testing.T) {
	t.Parallel()
	f := newStepsFixture(t)
	ctx := context.Background()
	if err := f.st.UpdateSettings(ctx, f.aid, f.sv.ID, store.SettingsUpdate{Set: map[string]any{
		"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true, "show_answer_key_after_response_submit": true}}); err != nil {
		t.Fatal(err)
	}
	page := f.get("/s/" + f.sv.URLSlug + "/").body
	_, page = f.post(t, page, url.Values{fmt.Sprintf("a%d", f.pick.ID): {fmt.Sprint(f.pick.Choices[1].ID)}})
	_, page = f.post(t, page, nil)
	code, thanks := f.post(t, page, nil)
	link := regexp.MustCompile(`<a id="sheet-link" href="([^"]+)">See your answer sheet</a>`).FindStringSubmatch(thanks)
	if code != 200 || link == nil {
		t.Fatalf("thanks: %d %.600s", code, thanks)
	}
	if r := f.get(htmlUnescape(link[1])); r.code != 200 || !strings.Contains(r.body, `id="score"`) {
		t.Errorf("the sheet's link: %d %.300s", r.code, r.body)
	}
}

// TestLogicScriptsOnlyWhenNeeded: the logic scripts and their data block
// come with a page that has rules (or timers per question, randomized
// choices, the answer sheet), and a page without any is lighter by them.
func TestLogicScriptsOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	plain, rules := newFixture(t, 2), newStepsFixture(t)
	logic := regexp.MustCompile(`<script src="/assets/logic(_page)?\.[0-9a-f]{12}\.js"></script>|id="logic"`) // logic_page.js is served within logic.js
	if got := logic.FindAllString(plain.get("/s/"+plain.sv.URLSlug+"/").body, -1); len(got) != 0 {
		t.Errorf("a page without rules loads %v", got)
	}
	if got := logic.FindAllString(rules.get("/s/"+rules.sv.URLSlug+"/").body, -1); len(got) != 2 {
		t.Errorf("a page with rules loads %v, want the data block and the one logic script", got)
	}
	if err := plain.st.UpdateSettings(context.Background(), plain.aid, plain.sv.ID, store.SettingsUpdate{Set: map[string]any{"responding_duration_type": 2}}); err != nil {
		t.Fatal(err)
	}
	if got := logic.FindAllString(plain.get("/s/"+plain.sv.URLSlug+"/").body, -1); len(got) != 2 {
		t.Errorf("a page with per-question timers loads %v, want the data block and the one logic script", got)
	}
}
