package settings_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/settings"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The tests' "now": 2026-06-15 at noon UTC, so that today, tomorrow and
// yesterday are fixed.
var now0 = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

const (
	today     = "2026-06-15"
	tomorrow  = "2026-06-16"
	yesterday = "2026-06-14"
	// missingID is a valid id that no survey ever gets.
	missingID   = math.MaxInt32
	notFound    = `{"detail":"Not found."}`
	deleted     = `{"detail":"Survey is deleted."}`
	invalidPage = `{"detail":"Invalid page."}`
	textPlain   = `{"detail":"Unsupported media type \"text/plain\" in request."}`
	msgBlank    = "This field may not be blank."
	msgNull     = "This field may not be null."
	msgNotStr   = "Not a valid string."
	msgNotBool  = "Must be a valid boolean."
	msgNotInt   = "A valid integer is required."
)

func settingsPath(id any) string { return fmt.Sprintf("/api/surveys/%v/settings/", id) }
func codesPath(id any) string {
	return fmt.Sprintf("/api/surveys/%v/settings/authentication-codes/", id)
}

// clock is a "now" the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  *awsenv.Calls
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

// serve sends one request; body nil sends none at all.
func serve(h http.Handler, method, path, key, contentType string, body *string) reply {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(*body)
	}
	r := testenv.Serve(h, testenv.NewRequest(method, path, key, contentType, rd))
	return reply{code: r.Code, body: r.Body, header: r.Header, calls: r.Calls}
}

// fixture is one account of its own, its key, a folder, a clock and the
// group's handler.
type fixture struct {
	st     *store.Store
	h      http.Handler
	acct   survey.Account
	key    string
	clk    *clock
	folder int64
}

func newFixture(t *testing.T, plan survey.Plan) *fixture {
	t.Helper()
	o := testenv.NewOwner(t, plan, "Settings tests")
	clk := &clock{t: now0}
	// The authenticator's clock stands still: a test slower than the key
	// cache's 30 s (a loaded machine) must not see a key read in its counts.
	auth := api.NewAuthenticator(o.Store)
	warmed := time.Now()
	auth.Now = func() time.Time { return warmed }
	f := &fixture{st: o.Store, h: testenv.Conform(api.ServeAt(testenv.APIBase, settings.New(settings.Deps{Auth: auth, Store: o.Store, Now: clk.Now}))),
		acct: o.Account, key: o.Key, clk: clk, folder: o.Folder}
	// Warm the authenticator: later counts are the handler's own calls.
	o.Warm(t, f.h, settingsPath("warm"), 404)
	return f
}

// do sends a request with the fixture's key; a non-empty body goes as JSON.
func (f *fixture) do(method, path, body string) reply {
	if body == "" {
		return serve(f.h, method, path, f.key, "", nil)
	}
	return serve(f.h, method, path, f.key, "application/json", &body)
}

// newSurvey creates a survey of the account through the store.
func (f *fixture) newSurvey(t *testing.T, name string) int64 {
	t.Helper()
	return testenv.NewSurvey(t, f.st, f.acct.ID, f.folder, name).ID
}

// get answers the settings of a survey, which must be 200.
func (f *fixture) get(t *testing.T, sid int64) map[string]any {
	t.Helper()
	r := f.do("GET", settingsPath(sid), "")
	if r.code != 200 {
		t.Fatalf("GET settings %d: %v", sid, r)
	}
	return decodeMap(t, r.body)
}

// patch sends a PATCH of the settings; body is a JSON string or a value to
// marshal.
func (f *fixture) patch(t *testing.T, sid int64, body any) reply {
	t.Helper()
	s, ok := body.(string)
	if !ok {
		s = mustJSON(t, body)
	}
	return f.do("PATCH", settingsPath(sid), s)
}

// coll reads the survey and its item collection through the store.
func (f *fixture) coll(t *testing.T, sid int64) store.SurveyCollection {
	t.Helper()
	c, err := f.st.SurveyCollection(t.Context(), f.acct.ID, sid)
	if err != nil {
		t.Fatalf("survey %d: %v", sid, err)
	}
	return c
}

// codePage answers a page of codes, which must be 200.
func (f *fixture) codePage(t *testing.T, sid int64, query string) map[string]any {
	t.Helper()
	r := f.do("GET", codesPath(sid)+query, "")
	if r.code != 200 {
		t.Fatalf("GET codes %d%s: %v", sid, query, r)
	}
	return decodeMap(t, r.body)
}

// count is the `count` of the codes list.
func (f *fixture) count(t *testing.T, sid int64) int {
	t.Helper()
	return int(f.codePage(t, sid, "")["count"].(float64))
}

// allCodes reads every code of the survey, page by page of 5000.
func (f *fixture) allCodes(t *testing.T, sid int64) []string {
	t.Helper()
	out := []string{}
	for page := 1; ; page++ {
		p := f.codePage(t, sid, fmt.Sprintf("?page_size=5000&page=%d", page))
		out = append(out, strs(t, p["results"])...)
		if p["next"] == nil {
			return out
		}
	}
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %#v", v)
	}
	out := make([]string, len(l))
	for i, x := range l {
		if out[i], ok = x.(string); !ok {
			t.Fatalf("item %d is not a string: %#v", i, x)
		}
	}
	return out
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// generic is v as encoding/json decodes it into any.
func generic(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// jsonEqual reports whether the JSON body equals want (a JSON string or a
// value).
func jsonEqual(body []byte, want any) bool {
	var got any
	if err := json.Unmarshal(body, &got); err != nil {
		return false
	}
	if s, ok := want.(string); ok {
		var w any
		if err := json.Unmarshal([]byte(s), &w); err != nil {
			panic(err)
		}
		return reflect.DeepEqual(got, w)
	}
	return reflect.DeepEqual(got, generic(want))
}

// check asserts a status and, when want is not nil, the JSON body.
func check(t *testing.T, what string, r reply, code int, want any) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: status %d, want %d; body %s", what, r.code, code, r.body)
		return
	}
	if want != nil && !jsonEqual(r.body, want) {
		t.Errorf("%s: body\n %s\nwant\n %s", what, r.body, mustJSON(t, generic(wantValue(want))))
	}
}

func wantValue(want any) any {
	if s, ok := want.(string); ok {
		var w any
		_ = json.Unmarshal([]byte(s), &w)
		return w
	}
	return want
}

// fieldError checks a 400 whose body is exactly {field: [msg]}; msg ""
// accepts any single message.
func fieldError(t *testing.T, what string, r reply, field, msg string) {
	t.Helper()
	if r.code != 400 {
		t.Errorf("%s: status %d, want 400; body %s", what, r.code, r.body)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Errorf("%s: body %s: %v", what, r.body, err)
		return
	}
	if len(m) != 1 {
		t.Errorf("%s: body %s, want errors of %q only", what, r.body, field)
		return
	}
	msgs, ok := m[field].([]any)
	if !ok || len(msgs) != 1 {
		t.Errorf("%s: body %s, want one message under %q", what, r.body, field)
		return
	}
	if s, _ := msgs[0].(string); s == "" || (msg != "" && s != msg) {
		t.Errorf("%s: message %q, want %q", what, msgs[0], msg)
	}
}

// sameSettings checks a settings object against want, key set included.
func sameSettings(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if k := slices.Sorted(maps.Keys(got)); !slices.Equal(k, allKeys()) {
		t.Errorf("%s: keys %q, want %q", what, k, allKeys())
	}
	if !reflect.DeepEqual(generic(got), generic(want)) {
		t.Errorf("%s:\n got %s\nwant %s", what, mustJSON(t, got), mustJSON(t, want))
	}
}

// with returns a copy of a settings object with some fields changed
// (values normalised to what a JSON decoder gives), and
// authentication_needed as section 18 derives it: true exactly when
// service_auth, phone_number_auth or code_auth is on, whatever was sent.
func with(m map[string]any, changes map[string]any) map[string]any {
	out := maps.Clone(m)
	for k, v := range changes {
		out[k] = generic(v)
	}
	if _, ok := out["authentication_needed"]; ok {
		out["authentication_needed"] = out["service_auth"] == true || out["phone_number_auth"] == true || out["code_auth"] == true
	}
	return out
}

// withSurvey returns a copy of a settings object with survey fields changed.
func withSurvey(m map[string]any, changes map[string]any) map[string]any {
	out := maps.Clone(m)
	sv := maps.Clone(m["survey"].(map[string]any))
	for k, v := range changes {
		sv[k] = generic(v)
	}
	out["survey"] = sv
	return out
}
