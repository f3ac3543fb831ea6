package variables_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/responders"
	"surveyservice/functions/variables"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	surveyURL = "https://survey.example.com"
	// missingID is a valid id that no survey or variable ever gets.
	missingID   = math.MaxInt32
	notFound    = `{"detail":"Not found."}`
	deleted     = `{"detail":"Survey is deleted."}`
	invalidLink = `{"qs":["Invalid link."]}`
	linkUsed    = `{"detail":"This link has been used."}`
	qsRequired  = `{"qs":["This field is required."]}`
	maxLinks    = 5000
	b64alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

func listPath(sid any) string     { return fmt.Sprintf("/api/surveys/%v/variables/", sid) }
func varPath(sid, vid any) string { return fmt.Sprintf("/api/surveys/%v/variables/%v/", sid, vid) }
func hashesPath(sid any) string   { return fmt.Sprintf("/api/surveys/%v/variables/hashes/", sid) }

// valuesPath is the public route that resolves a link; qs is sent as given
// (query-escaped), so that any string can be tried.
func valuesPath(slug, qs string) string {
	return "/api/public/surveys/" + url.PathEscape(slug) + "/variables/?qs=" + url.QueryEscape(qs)
}

// reply is one answer and the AWS calls the request made.
type reply struct {
	code   int
	body   string
	header http.Header
	dynamo int
	kms    int
	ops    map[string]int
}

// send sends one request; headers are name, value pairs.
func send(tb testing.TB, h http.Handler, method, target, body string, headers ...string) reply {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return serveReq(h, req)
}

func serveReq(h http.Handler, req *http.Request) reply {
	r := testenv.Serve(h, req)
	return reply{code: r.Code, body: string(r.Body), header: r.Header,
		dynamo: r.Calls.DynamoDB(), kms: r.Calls.KMS(), ops: r.Calls.Ops()}
}

// jsonEqual compares two JSON texts as values, numbers by their text (so
// 30 and 30.0 differ, as a client sees them).
func jsonEqual(a, b string) bool {
	x, errX := decodeJSON(a)
	y, errY := decodeJSON(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("extra data")
	}
	return v, nil
}

// expect checks a status and a JSON body (compared as values).
func expect(tb testing.TB, what string, r reply, code int, body string) {
	tb.Helper()
	if r.code != code || !jsonEqual(r.body, body) {
		tb.Errorf("%s: got %d %s, want %d %s", what, r.code, r.body, code, body)
	}
}

// readOps are the DynamoDB operations that write nothing.
var readOps = map[string]bool{"DynamoDB.GetItem": true, "DynamoDB.BatchGetItem": true, "DynamoDB.Query": true}

// noWrites checks that a request wrote nothing to DynamoDB and called KMS
// never.
func noWrites(tb testing.TB, what string, r reply) {
	tb.Helper()
	for op, n := range r.ops {
		if strings.HasPrefix(op, "KMS.") || !readOps[op] {
			tb.Errorf("%s: made %d %s call(s); a refused request writes nothing (ops %v)", what, n, op, r.ops)
		}
	}
}

// newSealer is a cold sealer (a fresh container) over the store's table.
func newSealer(tb testing.TB, st *store.Store) *links.Sealer {
	tb.Helper()
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(tb), "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": testenv.AccessKey(tb), "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		tb.Fatal(err)
	}
	return links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(tb), st)
}

// newHandler mounts the variables and responders groups on one handler,
// both with the sealer, as `make run` serves them.
func newHandler(st *store.Store, sealer *links.Sealer) http.Handler {
	v := variables.New(variables.Deps{Auth: api.NewAuthenticator(st), Store: st, Sealer: sealer, SurveyURL: surveyURL})
	return testenv.Conform(api.Mount(v, responders.New(responders.Deps{Store: st, Sealer: sealer, Now: time.Now})))
}

// fixture is one account of its own, its key, a folder, and the handler.
type fixture struct {
	st     *store.Store
	sealer *links.Sealer
	h      http.Handler
	acct   survey.Account
	key    string
	folder int64
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	o := testenv.NewOwner(tb, survey.PlanPro, "Links")
	sealer := newSealer(tb, o.Store)
	f := &fixture{st: o.Store, sealer: sealer, h: newHandler(o.Store, sealer), acct: o.Account, key: o.Key, folder: o.Folder}
	// Warm the authenticator: later counts are the handler's own calls.
	o.Warm(tb, f.h, listPath("warm"), 404)
	return f
}

// withHandler is the fixture's account served by another container (a
// cold sealer and authenticator over the same table).
func (f *fixture) withHandler(tb testing.TB) *fixture {
	tb.Helper()
	g := *f
	g.sealer = newSealer(tb, f.st)
	g.h = newHandler(f.st, g.sealer)
	if r := g.do(tb, "GET", listPath("warm"), ""); r.code != 404 {
		tb.Fatalf("warm-up: %d %s", r.code, r.body)
	}
	return &g
}

// do sends a request with the fixture's key; a body goes as JSON.
func (f *fixture) do(tb testing.TB, method, path, body string) reply {
	tb.Helper()
	if body == "" {
		return send(tb, f.h, method, path, "", "Authorization", "API-Key "+f.key)
	}
	return send(tb, f.h, method, path, body, "Authorization", "API-Key "+f.key, "Content-Type", "application/json")
}

// survey creates a live survey of the account.
func (f *fixture) survey(tb testing.TB, name string) survey.Survey {
	tb.Helper()
	sv := testenv.NewSurvey(tb, f.st, f.acct.ID, f.folder, name)
	if !survey.ValidSlug(sv.URLSlug) {
		tb.Fatalf("survey %d has slug %q", sv.ID, sv.URLSlug)
	}
	return sv
}

// create posts variables, which must answer 201, and returns the list.
func (f *fixture) create(tb testing.TB, sid int64, body string) []survey.Variable {
	tb.Helper()
	r := f.do(tb, "POST", listPath(sid), body)
	if r.code != 201 {
		tb.Fatalf("POST %s: %d %s", body, r.code, r.body)
	}
	var vars []survey.Variable
	if err := json.Unmarshal([]byte(r.body), &vars); err != nil {
		tb.Fatalf("body %s: %v", r.body, err)
	}
	return vars
}

// list answers the survey's variables, which must be 200.
func (f *fixture) list(tb testing.TB, sid int64) []survey.Variable {
	tb.Helper()
	r := f.do(tb, "GET", listPath(sid), "")
	if r.code != 200 {
		tb.Fatalf("GET variables of %d: %d %s", sid, r.code, r.body)
	}
	var vars []survey.Variable
	if err := json.Unmarshal([]byte(r.body), &vars); err != nil {
		tb.Fatalf("body %s: %v", r.body, err)
	}
	return vars
}

// unchanged checks that the survey's variables are still want.
func (f *fixture) unchanged(tb testing.TB, what string, sid int64, want []survey.Variable) {
	tb.Helper()
	if got := f.list(tb, sid); !reflect.DeepEqual(got, want) {
		tb.Errorf("%s: variables are now %+v, want %+v", what, got, want)
	}
}

// variableJSON is one item of a request body.
func variableJSON(name any, rest ...any) string {
	m := map[string]any{"name": name, "variable_source": 0}
	for i := 0; i+1 < len(rest); i += 2 {
		if rest[i+1] == nil {
			delete(m, rest[i].(string))
			continue
		}
		m[rest[i].(string)] = rest[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestVariables: the variables routes, one subtest a feature, on one
// account of its own (the subtests are the functions variables*).

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// nameMessage is the one message of a {"name": [msg]} body.
func nameMessage(tb testing.TB, body string) string {
	tb.Helper()
	var errs map[string][]string
	if err := json.Unmarshal([]byte(body), &errs); err != nil || len(errs["name"]) != 1 {
		tb.Fatalf("body %s: want one message on name", body)
	}
	return errs["name"][0]
}

// linkSurvey is a survey with the variables city (1), age (2) and vip (1).
func (f *fixture) linkSurvey(tb testing.TB, name string) survey.Survey {
	tb.Helper()
	sv := f.survey(tb, name)
	f.create(tb, sv.ID, `[{"name":"city","variable_source":0},{"name":"age","variable_source":0,"type":2},{"name":"vip","variable_source":0}]`)
	return sv
}

// urls posts the items as values and returns the tokens of the answered
// URLs, each checked against {survey_url}/s/{slug}/?qs={token}.
func (f *fixture) urls(tb testing.TB, sv survey.Survey, items []string) []string {
	tb.Helper()
	r := f.do(tb, "POST", hashesPath(sv.ID), `{"values":[`+strings.Join(items, ",")+`]}`)
	if r.code != 200 {
		tb.Fatalf("hashes: %d %.500s", r.code, r.body)
	}
	return tokensOf(tb, sv, r.body, len(items))
}

func tokensOf(tb testing.TB, sv survey.Survey, body string, n int) []string {
	tb.Helper()
	var out map[string][]string
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 1 {
		tb.Fatalf("body %.300s: want {\"urls\": [...]} (%v)", body, err)
	}
	urls := out["urls"]
	if len(urls) != n {
		tb.Fatalf("%d urls for %d items", len(urls), n)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(surveyURL+"/s/"+sv.URLSlug+"/?qs=") + `([A-Za-z0-9_-]+)$`)
	tokens := make([]string, n)
	seen := make(map[string]bool, n)
	for i, u := range urls {
		m := re.FindStringSubmatch(u)
		if m == nil {
			tb.Fatalf("url %d %q is not %s/s/%s/?qs=TOKEN", i, u, surveyURL, sv.URLSlug)
		}
		if seen[m[1]] {
			tb.Fatalf("url %d repeats a token", i)
		}
		seen[m[1]] = true
		tokens[i] = m[1]
	}
	return tokens
}

// resolve opens a link through the public route, without an API key.
func (f *fixture) resolve(tb testing.TB, slug, token string, headers ...string) reply {
	tb.Helper()
	return send(tb, f.h, "GET", valuesPath(slug, token), "", headers...)
}

// respondWith records a response started from the link (contract section
// 11): a session with ?qs=token, then a submission with no answers.
func (f *fixture) respondWith(tb testing.TB, slug, token string) reply {
	tb.Helper()
	return f.submit(tb, slug, token, nil)
}

// submit records a response: a session (with ?qs= when token is set),
// then a submission with no answers and vars, when not nil.
func (f *fixture) submit(tb testing.TB, slug, token string, vars map[string]any) reply {
	tb.Helper()
	base := "/api/public/surveys/" + url.PathEscape(slug)
	sess := map[string]string{}
	if token != "" {
		sess["qs"] = token
	}
	body, _ := json.Marshal(sess)
	s := send(tb, f.h, "POST", base+"/sessions/", string(body), "Content-Type", "application/json")
	if s.code != 201 {
		return s
	}
	var out struct{ Session string }
	if err := json.Unmarshal([]byte(s.body), &out); err != nil {
		tb.Fatalf("session %s: %v", s.body, err)
	}
	sub := map[string]any{"session": out.Session, "answers": map[string]any{}}
	if vars != nil {
		sub["variables"] = vars
	}
	body, _ = json.Marshal(sub)
	return send(tb, f.h, "POST", base+"/responses/", string(body), "Content-Type", "application/json",
		"Idempotency-Key", fmt.Sprintf("links-%d", time.Now().UnixNano()))
}

// resolves checks that the token answers exactly {"values": want}.
func (f *fixture) resolves(tb testing.TB, what, slug, token, want string) {
	tb.Helper()
	r := f.resolve(tb, slug, token)
	if r.code != 200 || !jsonEqual(r.body, `{"values":`+want+`}`) {
		tb.Errorf("%s: resolved to %d %s, want 200 {\"values\":%s}", what, r.code, r.body, want)
	}
}
