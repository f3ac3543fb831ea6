package variables_test

import (
	"bytes"
	"context"
	"encoding/base64"
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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"surveyservice/functions/responders"
	"surveyservice/functions/variables"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
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
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return reply{code: rec.Code, body: rec.Body.String(), header: rec.Header(),
		dynamo: calls.DynamoDB(), kms: calls.KMS(), ops: calls.Ops()}
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
	if _, err := dec.Token(); err != io.EOF {
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
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
	}
	cfg, err := awsenv.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		tb.Fatal(err)
	}
	return links.NewSealer(kms.NewFromConfig(cfg), testenv.KMSKeyID(tb), st)
}

// newHandler mounts the variables and responders groups on one handler,
// both with the sealer, as `make run` serves them.
func newHandler(st *store.Store, sealer *links.Sealer) http.Handler {
	v := variables.New(api.NewAuthenticator(st), st, sealer, variables.Config{SurveyURL: surveyURL})
	return api.Mount(v, responders.New(st, sealer, time.Now))
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
	st := testenv.Store(tb)
	acct, key := testenv.NewAccount(tb, survey.PlanPro)
	fo, err := st.CreateFolder(context.Background(), acct.ID, "Links", nil)
	if err != nil {
		tb.Fatal(err)
	}
	sealer := newSealer(tb, st)
	f := &fixture{st: st, sealer: sealer, h: newHandler(st, sealer), acct: acct, key: key, folder: fo.ID}
	// Warm the authenticator: later counts are the handler's own calls.
	if r := f.do(tb, "GET", listPath("warm"), ""); r.code != 404 {
		tb.Fatalf("warm-up: %d %s", r.code, r.body)
	}
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
	sv, err := f.st.CreateSurvey(context.Background(), survey.Survey{
		AccountID: f.acct.ID, FolderID: f.folder, Name: name, Language: 1, Theme: survey.DefaultTheme(),
	})
	if err != nil {
		tb.Fatal(err)
	}
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

func TestVariables(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()

	t.Run("create one", func(t *testing.T) {
		sv := f.survey(t, "One")
		r := f.do(t, "POST", listPath(sv.ID), `{"name":"city","variable_source":0}`)
		if r.code != 201 {
			t.Fatalf("POST: %d %s", r.code, r.body)
		}
		var items []map[string]any
		if err := json.Unmarshal([]byte(r.body), &items); err != nil || len(items) != 1 {
			t.Fatalf("body %s: want a list of one (%v)", r.body, err)
		}
		got := items[0]
		id, ok := got["id"].(float64)
		if !ok || id < 1 || id != math.Trunc(id) {
			t.Errorf("id = %v", got["id"])
		}
		want := map[string]any{"id": got["id"], "name": "city", "variable_source": 0.0, "type": 1.0, "has_response": false}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("created %v, want %v", got, want)
		}
		if l := f.list(t, sv.ID); len(l) != 1 || l[0].Name != "city" || l[0].ID != int64(id) {
			t.Errorf("GET lists %+v", l)
		}
	})

	t.Run("create array in order, list, detail", func(t *testing.T) {
		sv := f.survey(t, "Three")
		first := f.create(t, sv.ID, `{"name":"first","variable_source":0,"type":2}`)
		got := f.create(t, sv.ID, `[{"name":"city","variable_source":0},{"name":"age","variable_source":0,"type":2},{"name":"vip","variable_source":0,"type":1,"has_response":true,"id":99,"unknown":"ignored"}]`)
		want := []survey.Variable{
			{Name: "city", Type: 1}, {Name: "age", Type: 2}, {Name: "vip", Type: 1},
		}
		if len(got) != 3 {
			t.Fatalf("created %+v, want 3", got)
		}
		seen := map[int64]bool{first[0].ID: true}
		for i := range got {
			if got[i].ID < 1 || seen[got[i].ID] {
				t.Errorf("item %d has id %d (ids must be positive and distinct)", i, got[i].ID)
			}
			seen[got[i].ID] = true
			want[i].ID = got[i].ID
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("created %+v, want %+v (has_response and id are read-only)", got, want)
		}
		all := append(first, want...)
		if l := f.list(t, sv.ID); !reflect.DeepEqual(l, all) {
			t.Errorf("GET lists %+v, want %+v", l, all)
		}
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Variables, all) {
			t.Errorf("survey detail has variables %+v, want %+v", c.Variables, all)
		}
	})

	t.Run("names accepted", func(t *testing.T) {
		sv := f.survey(t, "Names")
		names := []string{
			"شهر", "نام_خانوادگی", "المدينة", "مُدُن", "٣٤", "۱۲۳", "城市", "город", "हिन्दी",
			"utm_source", "a-b", "_", "-", "123", "X9",
			strings.Repeat("ش", 100), strings.Repeat("a", 100),
		}
		var items []string
		for _, n := range names {
			items = append(items, variableJSON(n))
		}
		got := f.create(t, sv.ID, "["+strings.Join(items, ",")+"]")
		if len(got) != len(names) {
			t.Fatalf("created %d, want %d", len(got), len(names))
		}
		for i, v := range got {
			if v.Name != names[i] {
				t.Errorf("item %d named %q, want %q", i, v.Name, names[i])
			}
		}
		// Strings are trimmed first, as DRF does.
		if got := f.create(t, sv.ID, variableJSON("  padded\t")); got[0].Name != "padded" {
			t.Errorf("name %q, want it trimmed to \"padded\"", got[0].Name)
		}
	})

	t.Run("names refused", func(t *testing.T) {
		sv := f.survey(t, "Bad names")
		before := f.create(t, sv.ID, variableJSON("city"))
		tooLong := "Ensure this field has no more than 100 characters."
		tests := []struct {
			what string
			name any
			msg  string // "" when the contract fixes no message
		}{
			{"101 characters", strings.Repeat("ش", 101), tooLong},
			{"101 ascii", strings.Repeat("a", 101), tooLong},
			{"space", "first name", ""},
			{"dot", "a.b", ""},
			{"emoji", "😀", ""},
			{"emoji inside", "city😀", ""},
			{"slash", "a/b", ""},
			{"quote", `a"b`, ""},
			{"zero-width joiner", "a\u200db", ""},
			{"reserved", survey.ReservedUniqueKey, ""},
			{"duplicate of an existing one", "city", ""},
			{"blank", "", "This field may not be blank."},
			{"only spaces", "   ", "This field may not be blank."},
			{"null", nil, "This field may not be null."},
			{"number", 5, "Not a valid string."},
			{"list", []string{"a"}, "Not a valid string."},
		}
		for _, tt := range tests {
			body := fmt.Sprintf(`{"name":%s,"variable_source":0}`, mustJSON(tt.name))
			r := f.do(t, "POST", listPath(sv.ID), body)
			if r.code != 400 {
				t.Errorf("%s: %s answered %d %s, want 400", tt.what, body, r.code, r.body)
				continue
			}
			var errs map[string][]string
			if err := json.Unmarshal([]byte(r.body), &errs); err != nil || len(errs) != 1 || len(errs["name"]) != 1 {
				t.Errorf("%s: body %s, want one message on name", tt.what, r.body)
				continue
			}
			if tt.msg != "" && errs["name"][0] != tt.msg {
				t.Errorf("%s: message %q, want %q", tt.what, errs["name"][0], tt.msg)
			}
			noWrites(t, tt.what, r)
		}
		f.unchanged(t, "after refused names", sv.ID, before)
	})

	t.Run("duplicates", func(t *testing.T) {
		sv := f.survey(t, "Dups")
		before := f.create(t, sv.ID, variableJSON("city"))
		dup := f.do(t, "POST", listPath(sv.ID), variableJSON("city", "type", 2))
		if dup.code != 400 || !strings.HasPrefix(dup.body, `{"name":[`) {
			t.Errorf("existing name: %d %s, want 400 on name", dup.code, dup.body)
		}
		msg := nameMessage(t, dup.body)
		r := f.do(t, "POST", listPath(sv.ID), "["+variableJSON("d1")+","+variableJSON("d1", "type", 2)+"]")
		expect(t, "duplicate within the array", r, 400, `[{},{"name":[`+mustJSON(msg)+`]}]`)
		r = f.do(t, "POST", listPath(sv.ID), "["+variableJSON("new")+","+variableJSON("city")+"]")
		expect(t, "array item duplicating an existing name", r, 400, `[{},{"name":[`+mustJSON(msg)+`]}]`)
		f.unchanged(t, "after refused duplicates", sv.ID, before)
	})

	t.Run("array all or nothing", func(t *testing.T) {
		sv := f.survey(t, "Atomic")
		before := f.create(t, sv.ID, variableJSON("existing"))
		body := "[" + strings.Join([]string{
			variableJSON("ok1"),
			variableJSON("bad name"),
			variableJSON("ok2", "type", 2),
			variableJSON("ok3", "variable_source", 1),
			variableJSON("ok4", "type", 3),
			`"text"`,
			variableJSON("ok5"),
		}, ",") + "]"
		r := f.do(t, "POST", listPath(sv.ID), body)
		want := `[{},{"name":[` + mustJSON(survey.MsgVariableNameRule) + `]},{},{"variable_source":["\"1\" is not a valid choice."]},{"type":["\"3\" is not a valid choice."]},{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]},{}]`
		expect(t, "array with bad items", r, 400, want)
		noWrites(t, "array with bad items", r)
		f.unchanged(t, "after a refused array", sv.ID, before)
	})

	t.Run("fields", func(t *testing.T) {
		sv := f.survey(t, "Fields")
		tests := []struct {
			what, body, want string
		}{
			{"variable_source missing", `{"name":"a"}`, `{"variable_source":["This field is required."]}`},
			{"variable_source 1", `{"name":"a","variable_source":1}`, `{"variable_source":["\"1\" is not a valid choice."]}`},
			{"variable_source -1", `{"name":"a","variable_source":-1}`, `{"variable_source":["\"-1\" is not a valid choice."]}`},
			{"variable_source \"0\"", `{"name":"a","variable_source":"0"}`, `{"variable_source":["A valid integer is required."]}`},
			{"variable_source 0.5", `{"name":"a","variable_source":0.5}`, `{"variable_source":["A valid integer is required."]}`},
			{"variable_source null", `{"name":"a","variable_source":null}`, `{"variable_source":["This field may not be null."]}`},
			{"type 3", `{"name":"a","variable_source":0,"type":3}`, `{"type":["\"3\" is not a valid choice."]}`},
			{"type 0", `{"name":"a","variable_source":0,"type":0}`, `{"type":["\"0\" is not a valid choice."]}`},
			{"type \"2\"", `{"name":"a","variable_source":0,"type":"2"}`, `{"type":["A valid integer is required."]}`},
			{"type true", `{"name":"a","variable_source":0,"type":true}`, `{"type":["A valid integer is required."]}`},
			{"name missing", `{"variable_source":0}`, `{"name":["This field is required."]}`},
			{"every field", `{"variable_source":"x","type":9}`, `{"name":["This field is required."],"variable_source":["A valid integer is required."],"type":["\"9\" is not a valid choice."]}`},
		}
		for _, tt := range tests {
			r := f.do(t, "POST", listPath(sv.ID), tt.body)
			expect(t, tt.what, r, 400, tt.want)
			noWrites(t, tt.what, r)
		}
		f.unchanged(t, "after refused fields", sv.ID, []survey.Variable{})
	})

	t.Run("bodies", func(t *testing.T) {
		sv := f.survey(t, "Bodies")
		tests := []struct {
			what, ct, body string
			code           int
			want           string // "" checks only the detail's prefix below
		}{
			{"null", "application/json", `null`, 400, `{"non_field_errors":["No data provided"]}`},
			{"a string", "application/json", `"x"`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
			{"a number", "application/json", `5`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
			{"list of a number", "application/json", `[1]`, 400, `[{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}]`},
			{"list with null", "application/json", `[{"name":"a","variable_source":0},null]`, 400, `[{},{"non_field_errors":["Invalid data. Expected a dictionary, but got NoneType."]}]`},
			{"nested list", "application/json", `[[{"name":"a","variable_source":0}]]`, 400, `[{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}]`},
			{"empty body", "", ``, 400, `{"name":["This field is required."],"variable_source":["This field is required."]}`},
			{"empty object", "application/json", `{}`, 400, `{"name":["This field is required."],"variable_source":["This field is required."]}`},
			{"not JSON", "application/json", `{"name":`, 400, ""},
			{"two values", "application/json", `{} {}`, 400, ""},
			{"text/plain", "text/plain", `{"name":"a","variable_source":0}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		}
		for _, tt := range tests {
			headers := []string{"Authorization", "API-Key " + f.key}
			if tt.ct != "" {
				headers = append(headers, "Content-Type", tt.ct)
			}
			r := send(t, f.h, "POST", listPath(sv.ID), tt.body, headers...)
			if tt.want == "" {
				if r.code != tt.code || !strings.HasPrefix(r.body, `{"detail":"JSON parse error - `) {
					t.Errorf("%s: got %d %s, want %d JSON parse error", tt.what, r.code, r.body, tt.code)
				}
			} else {
				expect(t, tt.what, r, tt.code, tt.want)
			}
			noWrites(t, tt.what, r)
		}
		r := f.do(t, "POST", listPath(sv.ID), `[]`)
		t.Logf("POST [] answers %d %s (DRF's ListSerializer allows an empty list)", r.code, r.body)
		if r.code >= 500 {
			t.Errorf("POST []: %d %s", r.code, r.body)
		}
		noWrites(t, "POST []", r)
		f.unchanged(t, "after refused bodies", sv.ID, []survey.Variable{})
	})

	t.Run("delete", func(t *testing.T) {
		sv := f.survey(t, "Delete")
		vars := f.create(t, sv.ID, "["+variableJSON("keep")+","+variableJSON("drop")+"]")
		r := f.do(t, "DELETE", varPath(sv.ID, vars[1].ID), "")
		if r.code != 204 || r.body != "" {
			t.Errorf("DELETE: %d %q, want 204 and no body", r.code, r.body)
		}
		f.unchanged(t, "after DELETE", sv.ID, vars[:1])
		expect(t, "DELETE again", f.do(t, "DELETE", varPath(sv.ID, vars[1].ID), ""), 404, notFound)
		for _, vid := range []any{missingID, "abc", "0", "-1", "1.0", "99999999999"} {
			expect(t, fmt.Sprintf("DELETE variable %v", vid), f.do(t, "DELETE", varPath(sv.ID, vid), ""), 404, notFound)
		}
		f.unchanged(t, "after refused DELETEs", sv.ID, vars[:1])
		// The name is free again.
		f.create(t, sv.ID, variableJSON("drop"))
	})

	t.Run("bad survey ids", func(t *testing.T) {
		for _, sid := range []any{"abc", "0", "-3", missingID} {
			expect(t, fmt.Sprintf("GET survey %v", sid), f.do(t, "GET", listPath(sid), ""), 404, notFound)
			expect(t, fmt.Sprintf("POST survey %v", sid), f.do(t, "POST", listPath(sid), variableJSON("a")), 404, notFound)
			expect(t, fmt.Sprintf("DELETE survey %v", sid), f.do(t, "DELETE", varPath(sid, 1), ""), 404, notFound)
			expect(t, fmt.Sprintf("hashes survey %v", sid), f.do(t, "POST", hashesPath(sid), `{"values":[{"city":"x"}]}`), 404, notFound)
		}
	})

	t.Run("another account's survey", func(t *testing.T) {
		other := newFixture(t)
		sv := other.survey(t, "Theirs")
		theirs := other.create(t, sv.ID, "["+variableJSON("city")+","+variableJSON("age", "type", 2)+"]")
		expect(t, "GET", f.do(t, "GET", listPath(sv.ID), ""), 404, notFound)
		expect(t, "POST", f.do(t, "POST", listPath(sv.ID), variableJSON("mine")), 404, notFound)
		expect(t, "POST array", f.do(t, "POST", listPath(sv.ID), "["+variableJSON("mine")+"]"), 404, notFound)
		expect(t, "DELETE", f.do(t, "DELETE", varPath(sv.ID, theirs[0].ID), ""), 404, notFound)
		r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x","age":3}]}`)
		expect(t, "hashes", r, 404, notFound)
		noWrites(t, "foreign hashes", r)
		other.unchanged(t, "after the other account's requests", sv.ID, theirs)
		// A trashed foreign survey is 404 too, not 409.
		if err := other.st.TrashSurvey(t.Context(), other.acct.ID, sv.ID); err != nil {
			t.Fatal(err)
		}
		expect(t, "POST to a trashed foreign survey", f.do(t, "POST", listPath(sv.ID), variableJSON("mine")), 404, notFound)
		expect(t, "DELETE in a trashed foreign survey", f.do(t, "DELETE", varPath(sv.ID, theirs[0].ID), ""), 404, notFound)
		expect(t, "hashes of a trashed foreign survey", f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x"}]}`), 404, notFound)
	})

	t.Run("trashed survey", func(t *testing.T) {
		sv := f.survey(t, "Trashed")
		vars := f.create(t, sv.ID, "["+variableJSON("city")+","+variableJSON("age", "type", 2)+"]")
		if err := f.st.TrashSurvey(ctx, f.acct.ID, sv.ID); err != nil {
			t.Fatal(err)
		}
		expect(t, "POST", f.do(t, "POST", listPath(sv.ID), variableJSON("new")), 409, deleted)
		expect(t, "POST array", f.do(t, "POST", listPath(sv.ID), "["+variableJSON("new")+"]"), 409, deleted)
		expect(t, "DELETE", f.do(t, "DELETE", varPath(sv.ID, vars[0].ID), ""), 409, deleted)
		r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x","age":3}]}`)
		expect(t, "hashes", r, 409, deleted)
		noWrites(t, "hashes of a trashed survey", r)
		// Reading the trash is allowed, as GET of the survey is.
		f.unchanged(t, "GET in the trash", sv.ID, vars)
		// A bad body is 400 before the survey is read.
		expect(t, "bad body", f.do(t, "POST", listPath(sv.ID), variableJSON("a b")), 400, `{"name":[`+mustJSON(survey.MsgVariableNameRule)+`]}`)
		r = f.do(t, "DELETE", varPath(sv.ID, missingID), "")
		t.Logf("DELETE of a missing variable in a trashed survey answers %d %s", r.code, r.body)
	})

	t.Run("authentication and methods", func(t *testing.T) {
		sv := f.survey(t, "Auth")
		for _, p := range []struct{ method, path string }{
			{"GET", listPath(sv.ID)}, {"POST", listPath(sv.ID)}, {"DELETE", varPath(sv.ID, 1)}, {"POST", hashesPath(sv.ID)},
		} {
			r := send(t, f.h, p.method, p.path, "")
			expect(t, p.method+" "+p.path+" without a key", r, 401, `{"detail":"Authentication credentials were not provided."}`)
			r = send(t, f.h, p.method, p.path, "", "Authorization", "API-Key nope")
			expect(t, p.method+" "+p.path+" with a bad key", r, 401, `{"detail":"Invalid API key."}`)
		}
		r := f.do(t, "PUT", listPath(sv.ID), "{}")
		expect(t, "PUT list", r, 405, `{"detail":"Method \"PUT\" not allowed."}`)
		if a := r.header.Get("Allow"); a != "GET, POST, HEAD, OPTIONS" {
			t.Errorf("Allow of the list %q", a)
		}
		r = f.do(t, "GET", hashesPath(sv.ID), "")
		expect(t, "GET hashes", r, 405, `{"detail":"Method \"GET\" not allowed."}`)
		if a := r.header.Get("Allow"); a != "POST, OPTIONS" {
			t.Errorf("Allow of hashes %q", a)
		}
		// Without the final slash, served the same.
		if r := f.do(t, "GET", strings.TrimSuffix(listPath(sv.ID), "/"), ""); r.code != 200 || r.body != "[]" {
			t.Errorf("GET without the final slash: %d %s", r.code, r.body)
		}
	})
}

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
	base := "/api/public/surveys/" + url.PathEscape(slug)
	body, _ := json.Marshal(map[string]string{"qs": token})
	s := send(tb, f.h, "POST", base+"/sessions/", string(body), "Content-Type", "application/json")
	if s.code != 201 {
		return s
	}
	var out struct{ Session string }
	if err := json.Unmarshal([]byte(s.body), &out); err != nil {
		tb.Fatalf("session %s: %v", s.body, err)
	}
	body, _ = json.Marshal(map[string]any{"session": out.Session, "answers": map[string]any{}})
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

func TestLinks(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Links")

	t.Run("one and three", func(t *testing.T) {
		tokens := f.urls(t, sv, []string{`{"city":"Tehran","age":30,"vip":true}`})
		f.resolves(t, "one", sv.URLSlug, tokens[0], `{"city":"Tehran","age":30,"vip":true}`)

		items := []struct{ in, want string }{
			{`{"city":"شیراز","vip":false,"is_unique":false}`, `{"city":"شیراز","vip":false}`},
			{`{"vip":1.5,"city":7,"age":-12}`, `{"vip":1.5,"city":7,"age":-12}`},
			{`{}`, `{}`},
		}
		var in []string
		for _, it := range items {
			in = append(in, it.in)
		}
		tokens = f.urls(t, sv, in)
		for i, it := range items {
			f.resolves(t, fmt.Sprintf("item %d %s", i, it.in), sv.URLSlug, tokens[i], it.want)
		}
	})

	t.Run("value types are kept", func(t *testing.T) {
		items := []struct{ in, want string }{
			{`{"city":"","age":0}`, `{"city":"","age":0}`},
			{`{"city":"a \"quoted\" \\ \u00e9 \n line"}`, `{"city":"a \"quoted\" \\ é \n line"}`},
			{`{"vip":2.0}`, `{"vip":2.0}`},                           // a float stays a float for type 1
			{`{"vip":1e3,"city":-0.25}`, `{"vip":1e3,"city":-0.25}`}, // numbers keep their text
			{`{"vip":12345678901234567890}`, `{"vip":12345678901234567890}`},
			{`{"age":9007199254740993}`, `{"age":9007199254740993}`},
			{`{"age":2.0}`, `{"age":2}`}, // an integral number is an integer
			{`{"city":true,"vip":false}`, `{"city":true,"vip":false}`},
			{`{"city":"` + strings.Repeat("ш", 500) + `"}`, `{"city":"` + strings.Repeat("ш", 500) + `"}`},
		}
		var in []string
		for _, it := range items {
			in = append(in, it.in)
		}
		tokens := f.urls(t, sv, in)
		for i, it := range items {
			f.resolves(t, fmt.Sprintf("item %d %.60s", i, it.in), sv.URLSlug, tokens[i], it.want)
		}
	})

	t.Run("5000", func(t *testing.T) {
		items := make([]string, maxLinks)
		want := make([]string, maxLinks)
		for i := range items {
			items[i] = fmt.Sprintf(`{"city":"c-%d","age":%d,"vip":%t}`, i, i, i%2 == 0)
			want[i] = items[i]
		}
		start := time.Now()
		tokens := f.urls(t, sv, items)
		t.Logf("5000 links minted in %v", time.Since(start))
		start = time.Now()
		for i, tok := range tokens {
			f.resolves(t, fmt.Sprintf("link %d", i), sv.URLSlug, tok, want[i])
			if t.Failed() {
				break
			}
		}
		t.Logf("5000 links resolved in %v", time.Since(start))
	})

	t.Run("largest accepted values resolve", func(t *testing.T) {
		// Whatever the route accepts must resolve: a link that answers
		// "Invalid link." for its own values is a broken link.
		big := f.survey(t, "Big values")
		var defs []string
		item := map[string]any{}
		for i := range 20 {
			name := fmt.Sprintf("v%d", i)
			defs = append(defs, variableJSON(name))
			item[name] = strings.Repeat("x", 500)
		}
		f.create(t, big.ID, "["+strings.Join(defs, ",")+"]")
		checkMintedResolves(t, f, big, "20 variables of 500 characters", mustJSON(item), mustJSON(item))

		long := strings.Repeat("1234567890", 7) // a 70-digit number, for a type 1 variable
		checkMintedResolves(t, f, sv, "a 70-digit number", `{"vip":`+long+`}`, `{"vip":`+long+`}`)
		longer := strings.Repeat("1234567890", 45) // 450 digits
		checkMintedResolves(t, f, sv, "a 450-digit number", `{"vip":`+longer+`}`, `{"vip":`+longer+`}`)
		checkMintedResolves(t, f, sv, "a long fraction", `{"vip":0.`+longer+`}`, `{"vip":0.`+longer+`}`)
	})

	t.Run("refused", func(t *testing.T) {
		g := f.withHandler(t) // a cold sealer: a refused request calls KMS never
		many := strings.TrimSuffix(strings.Repeat(`{"city":"x"},`, maxLinks+1), ",")
		unknown := `{"values":{"3":{"town":["Unknown variable."]}}}`
		scalar := "Values must be strings, numbers or booleans."
		tests := []struct {
			what, body, want string
		}{
			{"values missing", `{}`, `{"values":["This field is required."]}`},
			{"values missing, other keys", `{"value":[{"city":"x"}]}`, `{"values":["This field is required."]}`},
			{"values an object", `{"values":{"city":"x"}}`, `{"values":["Expected a list of items but got type \"dict\"."]}`},
			{"values a string", `{"values":"x"}`, `{"values":["Expected a list of items but got type \"str\"."]}`},
			{"values a number", `{"values":3}`, `{"values":["Expected a list of items but got type \"int\"."]}`},
			{"values empty", `{"values":[]}`, `{"values":["This list may not be empty."]}`},
			{"5001 items", `{"values":[` + many + `]}`, `{"values":["Ensure this field has no more than 5000 elements."]}`},
			{"item not an object", `{"values":[{"city":"x"},5]}`, `{"values":{"1":{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}}}`},
			{"item a list", `{"values":[[{"city":"x"}]]}`, `{"values":{"0":{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}}}`},
			{"item null", `{"values":[null]}`, `{"values":{"0":{"non_field_errors":["Invalid data. Expected a dictionary, but got NoneType."]}}}`},
			{"unknown variable", `{"values":[{"city":"a"},{"city":"b"},{"city":"c"},{"town":"d"}]}`, unknown},
			{"unknown variable, wrong case", `{"values":[{"City":"a"}]}`, `{"values":{"0":{"City":["Unknown variable."]}}}`},
			{"nested object", `{"values":[{"city":{"a":1}}]}`, `{"values":{"0":{"city":[` + mustJSON(scalar) + `]}}}`},
			{"nested array", `{"values":[{"city":["a"]}]}`, `{"values":{"0":{"city":[` + mustJSON(scalar) + `]}}}`},
			{"null value", `{"values":[{"city":null}]}`, `{"values":{"0":{"city":[` + mustJSON(scalar) + `]}}}`},
			{"float for type 2", `{"values":[{"age":1.5}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"string for type 2", `{"values":[{"age":"30"}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"boolean for type 2", `{"values":[{"age":true}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"is_unique a string", `{"values":[{"is_unique":"true"}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"is_unique a number", `{"values":[{"city":"x","is_unique":1}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"is_unique null", `{"values":[{"is_unique":null}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"several items and fields", `{"values":[{"city":"ok"},{"town":"x","age":"y"},{"city":"ok"},{"is_unique":0,"vip":[]}]}`,
				`{"values":{"1":{"town":["Unknown variable."],"age":["A valid integer is required."]},"3":{"is_unique":["Must be a valid boolean."],"vip":[` + mustJSON(scalar) + `]}}}`},
			{"body a list", `[{"city":"x"}]`, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		}
		for _, tt := range tests {
			r := g.do(t, "POST", hashesPath(sv.ID), tt.body)
			expect(t, tt.what, r, 400, tt.want)
			noWrites(t, tt.what, r)
		}
		r := g.do(t, "POST", hashesPath(sv.ID), `{"values":null}`)
		expect(t, "values null", r, 400, `{"values":["This field may not be null."]}`) // as DRF's ListField
		noWrites(t, "values null", r)

		r = g.do(t, "POST", hashesPath(sv.ID), `{"values":[`)
		if r.code != 400 || !strings.HasPrefix(r.body, `{"detail":"JSON parse error - `) {
			t.Errorf("not JSON: %d %s", r.code, r.body)
		}
		r = send(t, g.h, "POST", hashesPath(sv.ID), `{"values":[{"city":"x"}]}`, "Authorization", "API-Key "+g.key, "Content-Type", "text/plain")
		expect(t, "text/plain", r, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`)
		noWrites(t, "text/plain", r)

		huge := `{"values":[{"city":"` + strings.Repeat("x", 6<<20) + `"}]}`
		r = g.do(t, "POST", hashesPath(sv.ID), huge)
		if r.code != 413 || !strings.HasPrefix(r.body, `{"detail":`) {
			t.Errorf("body over 6 MiB: %d %.200s, want 413 {\"detail\": ...}", r.code, r.body)
		}
		noWrites(t, "body over 6 MiB", r)
		// The same without a Content-Length: the limit holds while reading.
		req := httptest.NewRequest("POST", hashesPath(sv.ID), io.MultiReader(strings.NewReader(huge)) /* no known length */)
		req.ContentLength = -1
		req.Header.Set("Authorization", "API-Key "+g.key)
		req.Header.Set("Content-Type", "application/json")
		r = serveReq(g.h, req)
		if r.code != 413 {
			t.Errorf("chunked body over 6 MiB: %d %.200s, want 413", r.code, r.body)
		}
		noWrites(t, "chunked body over 6 MiB", r)
	})
}

// checkMintedResolves mints one link; if the route accepts the item, the
// link must answer exactly want.
func checkMintedResolves(t *testing.T, f *fixture, sv survey.Survey, what, item, want string) {
	t.Helper()
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[`+item+`]}`)
	switch r.code {
	case 400:
		t.Logf("%s: refused at minting: %.300s", what, r.body)
		return
	case 200:
	default:
		t.Fatalf("%s: hashes answered %d %.300s", what, r.code, r.body)
	}
	token := tokensOf(t, sv, r.body, 1)[0]
	res := f.resolve(t, sv.URLSlug, token)
	if res.code != 200 || !jsonEqual(res.body, `{"values":`+want+`}`) {
		t.Errorf("%s: the route answered 200 with a link (token of %d characters) that resolves to %d %.200s; "+
			"want it to resolve to its values, or the item refused with 400",
			what, len(token), res.code, res.body)
	}
}

// TestKMSCalls runs on a table of its own, so that its first request finds
// no data key.
func TestKMSCalls(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "KMS")
	body := `{"values":[` + strings.TrimSuffix(strings.Repeat(`{"city":"Tehran","age":30,"vip":true},`, maxLinks), ",") + `]}`

	check := func(what string, g *fixture, kmsWant int, op string) []string {
		t.Helper()
		r := g.do(t, "POST", hashesPath(sv.ID), body)
		if r.code != 200 {
			t.Fatalf("%s: %d %.300s", what, r.code, r.body)
		}
		t.Logf("%s: %d DynamoDB call(s), %d KMS call(s): %v", what, r.dynamo, r.kms, r.ops)
		if r.kms != kmsWant || (op != "" && r.ops[op] != 1) {
			t.Errorf("%s: %d KMS calls (%v), want %d %s", what, r.kms, r.ops, kmsWant, op)
		}
		return tokensOf(t, sv, r.body, maxLinks)
	}
	tokens := check("cold sealer, fresh table", f, 1, "KMS.GenerateDataKey")
	check("warm sealer", f, 0, "")
	check("warm sealer again", f, 0, "")
	g := f.withHandler(t)
	check("cold sealer, key in the table", g, 1, "KMS.Decrypt")
	check("that sealer warm", g, 0, "")

	// Opening: a cold container decrypts the key once.
	h := f.withHandler(t)
	for i, want := range []int{1, 0, 0} {
		r := h.resolve(t, sv.URLSlug, tokens[i*100])
		if r.code != 200 {
			t.Fatalf("resolve %d: %d %s", i, r.code, r.body)
		}
		t.Logf("resolve %d: %d DynamoDB call(s), %d KMS call(s): %v", i, r.dynamo, r.kms, r.ops)
		if r.kms != want {
			t.Errorf("resolve %d on a new container: %d KMS calls, want %d", i, r.kms, want)
		}
	}
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Resolve")
	other := f.linkSurvey(t, "Other")

	t.Run("tampered", func(t *testing.T) {
		// Three lengths, so that the last character carries unused bits in
		// some of them.
		items := []string{`{"city":"a"}`, `{"city":"ab"}`, `{"city":"abc"}`}
		tokens := f.urls(t, sv, items)
		for i, tok := range tokens {
			f.resolves(t, "untouched", sv.URLSlug, tok, items[i])
			var opened []string
			for pos := range len(tok) {
				idx := strings.IndexByte(b64alphabet, tok[pos])
				for _, flip := range []int{1, 32} {
					alt := tok[:pos] + string(b64alphabet[idx^flip]) + tok[pos+1:]
					r := f.resolve(t, sv.URLSlug, alt)
					if r.code == 200 {
						opened = append(opened, fmt.Sprintf("position %d of %d (%q→%q)", pos, len(tok), tok[pos], b64alphabet[idx^flip]))
						continue
					}
					expect(t, fmt.Sprintf("token %d changed at %d", i, pos), r, 400, invalidLink)
				}
			}
			if len(opened) > 0 {
				t.Errorf("token %d (%d characters, %d bytes) still opens with one character changed at %s; "+
					"the contract says one changed character makes it invalid", i, len(tok), len(tok)*6/8, strings.Join(opened, ", "))
			}
		}
	})

	t.Run("truncated and garbage", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"Tehran","age":30}`})[0]
		bad := map[string]string{
			"last character cut": tok[:len(tok)-1],
			"two cut":            tok[:len(tok)-2],
			"half":               tok[:len(tok)/2],
			"four":               tok[:4],
			"header only":        tok[:7],
			"abc":                "abc",
			"empty":              "",
			"5 KB of A":          strings.Repeat("A", 5<<10),
			"5 KB token-like":    base64.RawURLEncoding.EncodeToString(append([]byte{1}, bytes.Repeat([]byte{7}, 3800)...)),
			"9 KB":               strings.Repeat("B", 9<<10),
			"standard base64":    strings.NewReplacer("-", "+", "_", "/").Replace(tok) + "+/",
			"padded":             tok + "==",
			"doubled":            tok + tok,
			"not base64":         "%%%%%%",
			"unicode":            "توکن‌نامعتبر",
			"unknown key id":     base64.RawURLEncoding.EncodeToString(append([]byte{1, 0xde, 0xad, 0xbe, 0xef}, bytes.Repeat([]byte{9}, 40)...)),
			"version 2":          versionChanged(t, tok),
		}
		for what, qs := range bad {
			expect(t, what, f.resolve(t, sv.URLSlug, qs), 400, invalidLink)
		}
		f.resolves(t, "the original after the others", sv.URLSlug, tok, `{"city":"Tehran","age":30}`)
	})

	t.Run("another survey's token", func(t *testing.T) {
		mine := f.urls(t, sv, []string{`{"city":"mine"}`})[0]
		theirs := f.urls(t, other, []string{`{"city":"theirs"}`})[0]
		expect(t, "other survey's token on this slug", f.resolve(t, sv.URLSlug, theirs), 400, invalidLink)
		expect(t, "this survey's token on the other slug", f.resolve(t, other.URLSlug, mine), 400, invalidLink)
		f.resolves(t, "own slug", sv.URLSlug, mine, `{"city":"mine"}`)
		f.resolves(t, "own slug", other.URLSlug, theirs, `{"city":"theirs"}`)
		// Another account's survey, too.
		o := newFixture(t)
		osv := o.linkSurvey(t, "Foreign")
		foreign := o.urls(t, osv, []string{`{"city":"foreign"}`})[0]
		expect(t, "another account's token", f.resolve(t, sv.URLSlug, foreign), 400, invalidLink)
	})

	t.Run("qs and slug", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"x"}`})[0]
		r := send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/", "")
		expect(t, "missing qs", r, 400, qsRequired)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/?q="+tok, "")
		expect(t, "qs misspelt", r, 400, qsRequired)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/?qs", "")
		expect(t, "qs without a value", r, 400, invalidLink)
		expect(t, "unknown slug", f.resolve(t, "nosuchslug9", tok), 404, notFound)
		expect(t, "bad slug", f.resolve(t, "no such/slug", tok), 404, notFound)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables?qs="+tok, "")
		if r.code != 200 {
			t.Errorf("without the final slash: %d %s", r.code, r.body)
		}
		r = send(t, f.h, "POST", valuesPath(sv.URLSlug, tok), "")
		if r.code != 405 {
			t.Errorf("POST on the values route: %d %s, want 405", r.code, r.body)
		}
	})

	t.Run("authorization ignored", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"public"}`})[0]
		for _, auth := range []string{"API-Key " + f.key, "API-Key nope", "API-Key", "Bearer abc", "Basic Zm9vOmJhcg==", ""} {
			r := f.resolve(t, sv.URLSlug, tok, "Authorization", auth)
			expect(t, "Authorization "+auth, r, 200, `{"values":{"city":"public"}}`)
		}
		expect(t, "bad link with a bad key", f.resolve(t, sv.URLSlug, "abc", "Authorization", "API-Key nope"), 400, invalidLink)
	})

	t.Run("is_unique", func(t *testing.T) {
		tokens := f.urls(t, sv, []string{`{"city":"once","age":1,"is_unique":true}`, `{"city":"many","is_unique":false}`, `{"city":"plain"}`})
		// Resolving a one-use link does not use it (contract 11 amends 8):
		// the response that carries it does.
		for i := range 3 {
			expect(t, fmt.Sprintf("resolve %d", i), f.resolve(t, sv.URLSlug, tokens[0]), 200, `{"values":{"city":"once","age":1}}`)
		}
		if r := f.respondWith(t, sv.URLSlug, tokens[0]); r.code != 201 {
			t.Fatalf("a response with the link: %d %s", r.code, r.body)
		}
		expect(t, "resolve after the response", f.resolve(t, sv.URLSlug, tokens[0]), 410, linkUsed)
		expect(t, "a second response", f.respondWith(t, sv.URLSlug, tokens[0]), 410, linkUsed)
		// A spent one-use link on another slug is still just invalid.
		expect(t, "spent link on another slug", f.resolve(t, other.URLSlug, tokens[0]), 400, invalidLink)
		for i := range 3 {
			if r := f.respondWith(t, sv.URLSlug, tokens[1+i%2]); r.code != 201 {
				t.Errorf("response %d with a reusable link: %d %s", i, r.code, r.body)
			}
			expect(t, fmt.Sprintf("is_unique false, use %d", i), f.resolve(t, sv.URLSlug, tokens[1]), 200, `{"values":{"city":"many"}}`)
			expect(t, fmt.Sprintf("plain, use %d", i), f.resolve(t, sv.URLSlug, tokens[2]), 200, `{"values":{"city":"plain"}}`)
		}
		// Another container sees the link as spent too.
		g := f.withHandler(t)
		expect(t, "second use on another container", g.resolve(t, sv.URLSlug, tokens[0]), 410, linkUsed)
	})

	t.Run("is_unique resolves race", func(t *testing.T) {
		// Racing resolves all answer: none of them uses the link (the
		// race between responses is the responders' tests').
		for round := range 2 {
			tok := f.urls(t, sv, []string{fmt.Sprintf(`{"city":"race %d","is_unique":true}`, round)})[0]
			const n = 10
			replies := make([]reply, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					replies[i] = f.resolve(t, sv.URLSlug, tok)
				}()
			}
			close(start)
			wg.Wait()
			var codes []int
			ok, gone := 0, 0
			for _, r := range replies {
				codes = append(codes, r.code)
				switch {
				case r.code == 200 && jsonEqual(r.body, fmt.Sprintf(`{"values":{"city":"race %d"}}`, round)):
					ok++
				case r.code == 410 && jsonEqual(r.body, linkUsed):
					gone++
				}
			}
			slices.Sort(codes)
			if ok != n || gone != 0 {
				t.Errorf("round %d: %d racing GETs answered %v; want %d 200", round, n, codes, n)
			}
		}
	})
}

// versionChanged is the token with its version byte made 2: a token of a
// format the service does not know.
func versionChanged(tb testing.TB, tok string) string {
	tb.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		tb.Fatal(err)
	}
	raw[0] = 2
	return base64.RawURLEncoding.EncodeToString(raw)
}

// fuzzVars are the survey's variables in FuzzDecodeValues.
var fuzzVars = []survey.Variable{
	{ID: 1, Name: "city", Type: survey.VariableString},
	{ID: 2, Name: "age", Type: survey.VariableInteger},
}

// FuzzDecodeValues: the values decoder of untrusted input never panics; on
// success it answers one payload per item, with only the survey's
// variables (an integer for age); on failure a 400 (EINVALID).
func FuzzDecodeValues(f *testing.F) {
	for _, seed := range []string{
		`[{"city":"Tehran","age":30}]`,
		`[{"city":1.5,"is_unique":true},{}]`,
		`[{"age":2.0},{"age":-0},{"age":1e2}]`,
		`[{"age":9007199254740993},{"age":1e400},{"city":1e400}]`,
		`[{"city":"a","city":"b"}]`,
		`[{"town":"x"},{"age":"3"},{"city":null},{"city":{"a":1}},{"city":[1]}]`,
		`[{"is_unique":"yes"},{"is_unique":null},{"is_unique":false}]`,
		`[1, "x", null, [], true]`,
		`[]`, `null`, `{}`, `"x"`, ``, `[`, `[{]`, ` [ {"city" : "x" } ] `,
		`[{"city":"` + strings.Repeat("é", 501) + `"}]`,
		`[{"age":123456789012345678901234567890}]`,
		// Trailing data after the list: "[{}]0" was accepted (found by
		// fuzzing for 60 s).
		`[{}]0`, `[{}] [{}]`, `[{"city":"x"}]{}`, `[{}]]`, "[{}] \n\t",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		payloads, err := variables.DecodeValues(json.RawMessage(raw), true, fuzzVars)
		if err != nil {
			var e *survey.Error
			if !errors.As(err, &e) || e.Code != survey.EINVALID {
				t.Fatalf("DecodeValues(%q): error %T %v, want a *survey.Error with code EINVALID", raw, err, err)
			}
			if payloads != nil {
				t.Fatalf("DecodeValues(%q): payloads with an error", raw)
			}
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			t.Fatalf("DecodeValues(%q) accepted what is not a JSON list: %v", raw, err)
		}
		if len(payloads) != len(items) || len(items) == 0 || len(items) > maxLinks {
			t.Fatalf("DecodeValues(%q): %d payloads for %d items", raw, len(payloads), len(items))
		}
		for i, p := range payloads {
			seen := map[string]bool{}
			for _, v := range p.Values {
				if v.Name != "city" && v.Name != "age" {
					t.Fatalf("DecodeValues(%q): item %d has a value named %q", raw, i, v.Name)
				}
				if seen[v.Name] {
					t.Fatalf("DecodeValues(%q): item %d has %q twice", raw, i, v.Name)
				}
				seen[v.Name] = true
				if v.Name == "age" && v.Kind != links.KindInt {
					t.Fatalf("DecodeValues(%q): item %d has age of kind %d, want an integer", raw, i, v.Kind)
				}
			}
		}
	})
}

// TestHeadDoesNotUseALink: neither a HEAD (a link checker, a chat
// preview) nor a GET of a one-use link uses it up; a response does, and
// then both answer 410.
func TestHeadDoesNotUseALink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.linkSurvey(t, "Head")
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"Yazd","is_unique":true}]}`)
	if r.code != 200 {
		t.Fatalf("hashes: %d %s", r.code, r.body)
	}
	var out struct{ URLs []string }
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || len(out.URLs) != 1 {
		t.Fatalf("urls: %v %s", err, r.body)
	}
	u, _ := url.Parse(out.URLs[0])
	path := "/api/public/surveys/" + sv.URLSlug + "/variables/?qs=" + u.Query().Get("qs")
	for i := range 2 {
		if h := f.do(t, "HEAD", path, ""); h.code != 200 {
			t.Fatalf("HEAD %d: %d", i, h.code)
		}
	}
	for i := range 2 {
		if g := f.do(t, "GET", path, ""); g.code != 200 {
			t.Fatalf("GET %d after HEADs: %d %s", i, g.code, g.body)
		}
	}
	if r := f.respondWith(t, sv.URLSlug, u.Query().Get("qs")); r.code != 201 {
		t.Fatalf("a response with the link: %d %s", r.code, r.body)
	}
	if g := f.do(t, "GET", path, ""); g.code != 410 {
		t.Fatalf("second GET: %d %s", g.code, g.body)
	}
	if h := f.do(t, "HEAD", path, ""); h.code != 410 {
		t.Fatalf("HEAD after use: %d", h.code)
	}
}
