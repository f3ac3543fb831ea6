package pages_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// fixture is one account's survey of a few charted questions, served by
// the group's router.
type fixture struct {
	st      *store.Store
	h       http.Handler
	sv      survey.Survey
	aid     int64
	choices survey.Element
	rating  survey.Element
}

func newFixture(tb testing.TB, questions int) fixture {
	tb.Helper()
	return newRulesFixture(tb, questions, 0)
}

// newRulesFixture is newFixture with up to rules display rules on each
// question after the first, over earlier ones (a rating at least 3, a
// choice includes Red; and-ed, every fifth or-ed), as an owner's
// survey with logic would have them.
func newRulesFixture(tb testing.TB, questions, rules int) fixture {
	tb.Helper()
	return newLangFixture(tb, questions, rules, 4)
}

// newLangFixture is newRulesFixture of a survey in language (1 fa, 2 tr,
// 3 ar, 4 en).
func newLangFixture(tb testing.TB, questions, rules int, language int64) fixture {
	tb.Helper()
	st := testenv.Store(tb)
	ctx := context.Background()
	a, _ := testenv.NewAccount(tb, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "pages", nil)
	if err != nil {
		tb.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "Pages", Language: language, Theme: survey.DefaultTheme()})
	if err != nil {
		tb.Fatal(err)
	}
	fx := fixture{st: st, sv: sv, aid: a.ID, h: testenv.Conform(api.ServeAt(testenv.APIBase, pages.New(pages.Deps{Store: st, Sealer: testenv.Sealer(tb), Now: time.Now})))}
	ids, err := st.NewIDs(ctx, "choice", 3*questions)
	if err != nil {
		tb.Fatal(err)
	}
	var made []survey.Element
	for i := range questions {
		var e survey.Element
		if i%2 == 0 {
			e = survey.NewElement(survey.TypeMultipleChoice)
			e.Choices = []survey.ChoiceItem{{ID: ids[3*i], Name: "Red"}, {ID: ids[3*i+1], Name: "Green"}, {ID: ids[3*i+2], Name: "Blue"}}
		} else {
			e = survey.NewElement(survey.TypeRating)
		}
		e.Title, e.ShowCharts = fmt.Sprintf("Question %d", i+1), true
		for r := 0; r < rules && i > 0; r++ {
			first := made[(i*7+r*13)%i]
			c := survey.Condition{FirstOperand: first.ID, ArithmeticOperator: survey.OpNotAnswered}
			switch first.Type {
			case survey.TypeRating:
				v := "3"
				c.ArithmeticOperator, c.SecondOperand = survey.OpAtLeast, &survey.Operand{Type: 2, Value: &v}
			case survey.TypeMultipleChoice:
				cid := first.Choices[0].ID
				c.ArithmeticOperator, c.SecondOperand = survey.OpIncludes, &survey.Operand{Type: 1, ID: &cid}
			}
			if r > 0 {
				l := int64(survey.LogicAnd)
				if r%5 == 0 {
					l = survey.LogicOr
				}
				c.LogicalOperator = &l
			}
			e.Conditions = append(e.Conditions, c)
		}
		ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{})
		if err != nil {
			tb.Fatal(err)
		}
		made = append(made, ch.Element)
		if i == 0 {
			fx.choices = ch.Element
		}
		if i == 1 {
			fx.rating = ch.Element
		}
	}
	return fx
}

type result struct {
	code   int
	header http.Header
	body   string
	calls  *awsenv.Calls
}

func (f fixture) get(path string) result {
	ctx, calls := awsenv.WithCalls(context.Background())
	req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
	req.Header.Set("Accept", "text/html")
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return result{rec.Code, rec.Header(), string(b), calls}
}

// TestPages: the page and the report answer HTML under the strict
// policy, with no inline script or style attribute; unknown slugs, codes
// and assets answer 404 pages; assets are immutable under their hash; the
// report alone loads report.css.
func TestPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	page := f.get("/s/" + f.sv.URLSlug + "/")
	if page.code != 200 || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %v", page.code, page.header)
	}
	csp := page.header.Get("Content-Security-Policy")
	// The page may be framed by the sites of embed_origins (any, by
	// default: TestEmbedding); every other page never is.
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "form-action 'self'", "frame-ancestors *", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("policy %q allows unsafe sources", csp)
	}
	for _, bad := range []string{" style=", " onclick=", " onload=", "<script>", "javascript:"} {
		if strings.Contains(page.body, bad) {
			t.Errorf("the page holds %q, which the policy blocks", bad)
		}
	}
	if !regexp.MustCompile(`<script src="/assets/app\.[0-9a-f]{12}\.js"></script>`).MatchString(page.body) {
		t.Errorf("the page does not load its hashed script")
	}
	if again := f.get("/s/" + f.sv.URLSlug + "/"); again.calls.DynamoDB() != 2 {
		t.Errorf("the page made %d DynamoDB calls, want 2 (the survey's collection, the view; the slug is cached)", again.calls.DynamoDB())
	}
	asset := regexp.MustCompile(`/assets/app\.[0-9a-f]{12}\.css`).FindString(page.body)
	if a := f.get(asset); a.code != 200 || !strings.Contains(a.header.Get("Cache-Control"), "immutable") || a.header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("asset %s: %d %v", asset, a.code, a.header)
	}
	// Every 404 of the hosted pages is the HTML page, whatever the path
	// (before: unknown paths and formats answered JSON).
	for _, p := range []string{"/s/nosuchslug/", "/r/nosuchcode/", "/assets/app.css/", "/assets/app.000000000000.css",
		"/s/" + f.sv.URLSlug + "/extra/", "/s/", "/r/", "/s/a/b/c/", "/s/" + f.sv.URLSlug + "/?format=xml", "/r/" + f.sv.ReportCode + "/?format=json2"} {
		if r := f.get(p); r.code != 404 || !strings.Contains(r.body, "There is nothing at this address.") ||
			!strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %d %s %.80s", p, r.code, r.header.Get("Content-Type"), r.body)
		}
	}
	rep := f.get("/r/" + f.sv.ReportCode + "/")
	if rep.code != 200 || !strings.Contains(rep.body, "<svg") || strings.Count(rep.body, `<section class="chart">`) != 2 {
		t.Errorf("report: %d %.300s", rep.code, rep.body)
	}
	// The charts' styles load with the report alone: not a weight the
	// responder's page carries.
	reportCSS := regexp.MustCompile(`<link rel="stylesheet" href="/assets/report\.[0-9a-f]{12}\.css">`)
	if !reportCSS.MatchString(rep.body) || reportCSS.MatchString(page.body) {
		t.Errorf("report.css loaded by the report %v, by the page %v; want the report alone", reportCSS.MatchString(rep.body), reportCSS.MatchString(page.body))
	}
	if rep.calls.DynamoDB() != 3 {
		t.Errorf("the report made %d DynamoDB calls, want 3 (code, collection, shards)", rep.calls.DynamoDB())
	}
}

// TestClosedPage: a stopped survey's page answers 410 with the closed
// message, and so does its plain form.
func TestClosedPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	stopped := true
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{IsStopped: &stopped}); err != nil {
		t.Fatal(err)
	}
	if r := f.get("/s/" + f.sv.URLSlug + "/"); r.code != 410 || !strings.Contains(r.body, "This survey is closed.") {
		t.Errorf("closed page: %d %.200s", r.code, r.body)
	}
	req := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader("idempotency_key=k1&a1=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != 410 {
		t.Errorf("plain form to a closed survey: %d %.200s", rec.Code, rec.Body)
	}
}

// TestPlainFormErrors: a form with a bad answer renders the form again
// with the question's message, 400, and records nothing.
func TestPlainFormErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	body := fmt.Sprintf("idempotency_key=k1&a%d=99999&a%d=%d", f.choices.ID, f.rating.ID, 42)
	req := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "\u2068Question 1\u2069: ") || !strings.Contains(rec.Body.String(), `<form id="survey"`) {
		t.Errorf("bad answers: %d %s", rec.Code, rec.Body)
	}
	// What the responder chose stays chosen.
	if want := fmt.Sprintf(`name="a%d" value="%d" checked`, f.rating.ID, 42); strings.Contains(rec.Body.String(), want) {
		t.Errorf("a value out of the scale is shown checked")
	}
	body2 := fmt.Sprintf("idempotency_key=k2&a%d=99999&a%d=4", f.choices.ID, f.rating.ID)
	req2 := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader(body2))
	req2.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec2 := httptest.NewRecorder()
	f.h.ServeHTTP(rec2, req2)
	if want := fmt.Sprintf(`name="a%d" value="4" checked`, f.rating.ID); rec2.Code != 400 || !strings.Contains(rec2.Body.String(), want) {
		t.Errorf("the form shown again: %d, lacks %s", rec2.Code, want)
	}
	if !strings.Contains(rec2.Body.String(), `name="idempotency_key" value="k2"`) {
		t.Errorf("the form shown again lost its Idempotency-Key")
	}
	if a, err := f.st.Aggregates(context.Background(), f.sv.ID); err != nil || a.Responses != 0 {
		t.Errorf("after a refusal: %+v, %v", a, err)
	}
	req = httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != 415 {
		t.Errorf("JSON to the plain form: %d", rec.Code)
	}
}
