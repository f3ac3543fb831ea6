package responses_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// clock is a settable clock for export links.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// reply is one answer of the handler and the AWS calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  *awsenv.Calls
}

func (r reply) String() string { return fmt.Sprintf("%d %.300s", r.code, r.body) }

// serve sends one request with the key (none when "").
func serve(h http.Handler, method, target, key string) reply {
	r := testenv.Serve(h, testenv.NewRequest(method, target, key, "", nil))
	return reply{code: r.Code, body: r.Body, header: r.Header, calls: r.Calls}
}

// fixture is one account of its own with a survey of a text question and
// two variables, its key, a clock and the group's handler.
type fixture struct {
	st     *store.Store
	h      http.Handler
	acct   survey.Account
	key    string
	clk    *clock
	folder int64
	sid    int64
	text   int64 // the text question's id
	jobs   *jobQueue
	// at is the group's handler served at another API address
	// (API_BASE_URL) than testenv.APIBase, h's.
	at func(base string) http.Handler
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st := testenv.Store(t)
	acct, key := testenv.NewAccount(t, survey.PlanEnterprise)
	clk := &clock{t: t0.Add(24 * time.Hour)}
	sealer := testenv.Sealer(t)
	// A queue of the fixture's own: account ids repeat across the tests'
	// tables, and the tests share one moto.
	jobs := newJobQueue(t, fmt.Sprintf("exports-%d-%d", acct.ID, time.Now().UnixNano()))
	// The synchronous workbook export's jobs: a queue the export
	// function's handler drains as soon as a job is sent (Lambda's event
	// source mapping, without its second of latency).
	books := &drainedQueue{jobQueue: newJobQueue(t, fmt.Sprintf("workbooks-%d-%d", acct.ID, time.Now().UnixNano())), tb: t,
		e: responses.NewExporter(responses.ExporterDeps{Store: st, Exports: testenv.Exports(t), Workbook: responses.Workbooks(workbook.New), MaxAttempts: exports.MaxReceives})}
	f := &fixture{st: st, acct: acct, key: key, clk: clk, jobs: jobs, at: func(base string) http.Handler {
		return testenv.Conform(api.ServeAt(base, responses.New(responses.Deps{Auth: api.NewAuthenticator(st), Store: st,
			Sealer: sealer, Exports: testenv.Exports(t), Jobs: jobs.Queue, Workbooks: books, Now: clk.Now})))
	}}
	f.h = f.at(testenv.APIBase)
	fo, err := st.CreateFolder(t.Context(), acct.ID, "Responses tests", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.folder = fo.ID
	f.sid, f.text = f.newSurvey(t, "Feedback")
	// Warm the authenticator and the sealer's data key: later counts are
	// the handler's own calls on a warm container.
	if r := f.do("GET", listPath(f.sid)+"?page_size=1"); r.code != 200 {
		t.Fatalf("warm-up: %v", r)
	}
	if _, err := sealer.SealFor(t.Context(), "warm-up:", f.sid, []byte("warm")); err != nil {
		t.Fatal(err)
	}
	return f
}

// newSurvey creates a survey with one text question and the variables
// city and age; it answers the survey's and the question's ids.
func (f *fixture) newSurvey(t testing.TB, name string) (sid, text int64) {
	t.Helper()
	ctx := t.Context()
	sv, err := f.st.CreateSurvey(ctx, survey.Survey{AccountID: f.acct.ID, FolderID: f.folder, Name: name, Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	e := survey.NewElement(survey.TypeText)
	e.Title = "What did you think?"
	ch, err := f.st.CreateElement(ctx, f.acct.ID, sv.ID, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.CreateVariables(ctx, f.acct.ID, sv.ID, nil, 0, []survey.Variable{
		{Name: "city", Type: survey.VariableString}, {Name: "age", Type: survey.VariableInteger}}); err != nil {
		t.Fatal(err)
	}
	return sv.ID, ch.Element.ID
}

// seed stores n responses of the survey, submitted a second apart from t0
// on (every third one in the same microsecond as the one before, so that
// ids break ties), answering the text question "answer <i>".
func (f *fixture) seed(t testing.TB, sid, text int64, n int) []survey.Response {
	return f.seedFrom(t, sid, text, n, t0)
}

// seedFrom is seed from another time.
func (f *fixture) seedFrom(t testing.TB, sid, text int64, n int, from time.Time) []survey.Response {
	t.Helper()
	rs := make([]survey.Response, n)
	for i := range rs {
		at := from.Add(time.Duration(i) * time.Second)
		if i%3 == 2 {
			at = rs[i-1].SubmittedAt
		}
		answer, _ := json.Marshal(fmt.Sprintf("answer %d", i))
		rs[i] = survey.Response{SurveyID: sid, SubmittedAt: at, StartedAt: at.Add(-90 * time.Second),
			Answers: map[int64]json.RawMessage{text: answer}, Variables: map[string]any{"city": "Tabriz", "age": json.Number(fmt.Sprint(20 + i))}}
		if i%4 == 0 {
			rs[i].Code = fmt.Sprintf("CODE-%d", i)
		}
	}
	out, err := storetest.ImportResponses(t.Context(), f.st, rs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// createElement stores an element of survey sid (in group when not nil)
// and answers it with the ids the store gave it and its choices.
func (f *fixture) createElement(t testing.TB, sid int64, e survey.Element, group *int64) survey.Element {
	t.Helper()
	ch, err := f.st.CreateElement(t.Context(), f.acct.ID, sid, e, survey.Placement{Group: group})
	if err != nil {
		t.Fatal(err)
	}
	return ch.Element
}

// do sends a request with the fixture's key.
func (f *fixture) do(method, target string) reply { return serve(f.h, method, target, f.key) }

// count is the survey's submitted_responses, read from the store.
func (f *fixture) count(t testing.TB, sid int64) int64 {
	t.Helper()
	sv, err := f.st.Survey(t.Context(), f.acct.ID, sid)
	if err != nil {
		t.Fatal(err)
	}
	return sv.SubmittedResponses
}

func listPath(sid int64) string        { return fmt.Sprintf("/api/surveys/%d/responses/", sid) }
func detailPath(sid, rid int64) string { return fmt.Sprintf("/api/surveys/%d/responses/%d/", sid, rid) }
func tablePath(sid int64) string {
	return fmt.Sprintf("/api/v2/surveys/%d/responses/results-table/", sid)
}
func exportPath(sid int64) string { return fmt.Sprintf("/api/v2/surveys/%d/responses/export/", sid) }
func relative(t testing.TB, u string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(u, "http://example.com")
	if !ok {
		t.Fatalf("link %q is not on the request's host", u)
	}
	return rest
}

// page is the JSON list's answer.
type page struct {
	Count   int64                 `json:"count"`
	Next    *string               `json:"next"`
	Results []survey.ResponseView `json:"results"`
}

func decode[T any](t testing.TB, r reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", r, err)
	}
	return v
}

// newestFirst is rs in the list's order.
func newestFirst(rs []survey.Response) []int64 {
	ids := make([]int64, len(rs))
	sorted := append([]survey.Response(nil), rs...)
	sortResponses(sorted, false)
	for i, r := range sorted {
		ids[i] = r.ID
	}
	return ids
}

func sortResponses(rs []survey.Response, ascending bool) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if !ascending {
			a, b = b, a
		}
		if !a.SubmittedAt.Equal(b.SubmittedAt) {
			return a.SubmittedAt.Before(b.SubmittedAt)
		}
		return a.ID < b.ID
	})
}
