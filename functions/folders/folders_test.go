package folders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/folders"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// clock decides whether a survey with an expiration date is closed; no
// survey here has one.
var clock = time.Now

// fixture is one test's handler, store and account. Each test has its own
// account and key; the authenticator is the handler's own, so a test knows
// whether it is cold or warm.
type fixture struct {
	h    http.Handler
	st   *store.Store
	acct survey.Account
	key  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := testenv.Store(t)
	auth := api.NewAuthenticator(st)
	// Pin the cache's clock so that a warm authenticator stays warm however
	// slowly the emulator answers: call counts are then exact.
	pinned := time.Now()
	auth.Now = func() time.Time { return pinned }
	a, key := testenv.NewAccount(t, survey.PlanFree)
	return &fixture{h: folders.New(auth, st, clock), st: st, acct: a, key: key}
}

// result is one answer and the DynamoDB calls it cost.
type result struct {
	code  int
	body  string
	hdr   http.Header
	calls int
}

func (r result) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

func serve(h http.Handler, req *http.Request) result {
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return result{code: rec.Code, body: rec.Body.String(), hdr: rec.Header(), calls: calls.DynamoDB()}
}

func newRequest(method, path, key, contentType, body string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "API-Key "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// do sends a request with the fixture's key, and a JSON content type when
// there is a body.
func (f *fixture) do(method, path, body string) result {
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	return serve(f.h, newRequest(method, path, f.key, ct, body))
}

// warm makes the authenticator know the fixture's key.
func (f *fixture) warm(t *testing.T) {
	t.Helper()
	if res := f.do("GET", "/api/folders/", ""); res.code != 200 {
		t.Fatalf("warm-up: %v", res)
	}
}

func folderPath(id int64) string { return fmt.Sprintf("/api/folders/%d/", id) }

// folderJSON is a folder as the list and GET answer it.
type folderJSON struct {
	ID      int64            `json:"id"`
	Order   int64            `json:"order"`
	Name    string           `json:"name"`
	Surveys []map[string]any `json:"surveys"`
}

func (f *fixture) create(t *testing.T, body string) folderJSON {
	t.Helper()
	res := f.do("POST", "/api/folders/", body)
	if res.code != 201 {
		t.Fatalf("POST %s: %v", body, res)
	}
	var out folderJSON
	if err := json.Unmarshal([]byte(res.body), &out); err != nil {
		t.Fatalf("POST %s: %v: %s", body, err, res.body)
	}
	return out
}

func (f *fixture) list(t *testing.T) []folderJSON {
	t.Helper()
	res := f.do("GET", "/api/folders/", "")
	if res.code != 200 {
		t.Fatalf("GET list: %v", res)
	}
	var out []folderJSON
	if err := json.Unmarshal([]byte(res.body), &out); err != nil {
		t.Fatalf("GET list: %v: %s", err, res.body)
	}
	return out
}

func (f *fixture) get(t *testing.T, id int64) folderJSON {
	t.Helper()
	res := f.do("GET", folderPath(id), "")
	if res.code != 200 {
		t.Fatalf("GET folder %d: %v", id, res)
	}
	var out folderJSON
	if err := json.Unmarshal([]byte(res.body), &out); err != nil {
		t.Fatalf("GET folder %d: %v: %s", id, err, res.body)
	}
	return out
}

func (f *fixture) survey(t *testing.T, fid int64, name string) survey.Survey {
	t.Helper()
	sv, err := f.createSurvey(context.Background(), fid, name)
	if err != nil {
		t.Fatalf("create survey %q: %v", name, err)
	}
	return sv
}

// createSurvey creates a survey through the store, retrying a failure of
// the emulator that real DynamoDB does not have, seen when many creates
// run at once: moto copies the whole table (copy.deepcopy) at the start of
// every TransactWriteItems, and the copy races with concurrent writes
// ("dictionary changed size during iteration", answered 500 until the
// SDK's three attempts are spent). A taken id or a retried transaction
// that had landed is the store's own business (store/ids.go, puttoken.go):
// retrying those here made a second survey when the first had landed.
//
// Every other error is returned.
func (f *fixture) createSurvey(ctx context.Context, fid int64, name string) (survey.Survey, error) {
	for attempt := 1; ; attempt++ {
		sv, err := f.st.CreateSurvey(ctx, survey.Survey{
			AccountID: f.acct.ID, FolderID: fid, Name: name, Language: 1, Theme: survey.DefaultTheme(),
		})
		if err == nil || attempt == 10 || !strings.Contains(err.Error(), "StatusCode: 500") {
			return sv, err
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
}

func (f *fixture) trash(t *testing.T, sid int64) {
	t.Helper()
	if err := f.st.TrashSurvey(context.Background(), f.acct.ID, sid); err != nil {
		t.Fatalf("trash survey %d: %v", sid, err)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %q", err, s)
	}
	return v
}

// expect checks the status and that the body is the JSON want (key order
// aside; keys exact).
func expect(t *testing.T, what string, res result, code int, want string) {
	t.Helper()
	if res.code != code {
		t.Errorf("%s: status %d, want %d (body %s)", what, res.code, code, res.body)
		return
	}
	if !reflect.DeepEqual(decodeJSON(t, res.body), decodeJSON(t, want)) {
		t.Errorf("%s: body\n  %s\nwant\n  %s", what, res.body, want)
	}
}

func ref(id, order int64, name string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "order": order, "name": name})
	return string(b)
}

func profileOf(a survey.Account) map[string]any {
	return map[string]any{"email": a.Email, "first_name": a.FirstName, "last_name": a.LastName, "user_type": float64(1)}
}

// wantFolder is the whole Folder the contract fixes, surveys aside.
func wantFolder(a survey.Account, id, order int64, name string) map[string]any {
	return map[string]any{
		"id": float64(id), "order": float64(order), "name": name,
		"shared_by": profileOf(a), "shared_with": []any{}, "surveys": []any{},
	}
}

var isoUTC = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)

// wantSummary is a new survey's summary with exactly the spec's fields in
// the spec's JSON types (numbers decode as float64); created_date is checked
// apart.
func wantSummary(sv survey.Survey) map[string]any {
	th := survey.DefaultTheme()
	return map[string]any{
		"id": float64(sv.ID), "name": sv.Name, "folder_id": float64(sv.FolderID), "language": float64(1),
		"created_date": "(checked apart)", "active": true, "is_stopped": false, "views": float64(0),
		"submitted_responses": float64(0), "preview_code": sv.PreviewCode, "report_code": sv.ReportCode,
		"url_slug": sv.URLSlug, "is_template": false, "question_count": float64(0),
		"theme": map[string]any{
			"id": float64(th.ID), "order": float64(th.Order),
			"background_color": th.BackgroundColor, "question_color": th.QuestionColor,
			"answer_color": th.AnswerColor, "button_color": th.ButtonColor, "accent_color": th.AccentColor,
			"font_family": float64(th.FontFamily), "font_size": float64(th.FontSize),
			"background_image": map[string]any{
				"id": float64(th.BackgroundImage.ID), "url": th.BackgroundImage.URL,
				"thumbnail_url": th.BackgroundImage.ThumbnailURL,
			},
			"background_image_id":              float64(th.BackgroundImageID),
			"background_image_repeat":          float64(th.BackgroundImageRepeat),
			"background_image_fit":             float64(th.BackgroundImageFit),
			"background_image_position":        float64(th.BackgroundImagePosition),
			"background_image_brightness":      float64(th.BackgroundImageBrightness),
			"background_image_size_percentage": float64(th.BackgroundImageSizePercentage),
			"is_public":                        th.IsPublic,
			"thumbnail_url":                    th.ThumbnailURL,
		},
		"subdomain": nil,
	}
}

func checkSummary(t *testing.T, got map[string]any, sv survey.Survey) {
	t.Helper()
	cd, ok := got["created_date"].(string)
	if !ok || !isoUTC.MatchString(cd) {
		t.Errorf("survey %d: created_date %#v is not ISO 8601 UTC with Z", sv.ID, got["created_date"])
	} else if ts, err := time.Parse(time.RFC3339Nano, cd); err != nil || !ts.Equal(sv.Created) {
		t.Errorf("survey %d: created_date %s, want %s (%v)", sv.ID, cd, sv.Created.UTC().Format(time.RFC3339Nano), err)
	}
	want := wantSummary(sv)
	want["created_date"] = got["created_date"]
	if reflect.DeepEqual(got, want) {
		return
	}
	for k, v := range want {
		if gv, ok := got[k]; !ok {
			t.Errorf("survey %d: summary lacks %q", sv.ID, k)
		} else if !reflect.DeepEqual(gv, v) {
			t.Errorf("survey %d: %s = %#v, want %#v", sv.ID, k, gv, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("survey %d: summary has extra key %q", sv.ID, k)
		}
	}
}

// checkSurveys checks that a folder's surveys are exactly the given ones,
// each an exact summary.
func checkSurveys(t *testing.T, what string, got []map[string]any, want ...survey.Survey) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d surveys, want %d: %v", what, len(got), len(want), got)
		return
	}
	byID := map[int64]survey.Survey{}
	for _, sv := range want {
		byID[sv.ID] = sv
	}
	for _, g := range got {
		id, _ := g["id"].(float64)
		sv, ok := byID[int64(id)]
		if !ok {
			t.Errorf("%s: unexpected survey %v", what, g["id"])
			continue
		}
		checkSummary(t, g, sv)
	}
}

func sortedByOrderID(fs []folderJSON) bool {
	return sort.SliceIsSorted(fs, func(i, j int) bool {
		return fs[i].Order < fs[j].Order || fs[i].Order == fs[j].Order && fs[i].ID < fs[j].ID
	})
}

// --- 1. Create ---

func TestCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	// The whole Folder: exactly its six keys, name trimmed, first order 1.
	res := f.do("POST", "/api/folders/", `{"name": "  Reports \t"}`)
	if res.code != 201 {
		t.Fatalf("create: %v", res)
	}
	if ct := res.hdr.Get("Content-Type"); ct != "application/json" {
		t.Errorf("create: Content-Type %q", ct)
	}
	got, ok := decodeJSON(t, res.body).(map[string]any)
	if !ok {
		t.Fatalf("create: not an object: %s", res.body)
	}
	id, ok := got["id"].(float64)
	if !ok || id < 1 || id != float64(int64(id)) {
		t.Fatalf("create: id %#v", got["id"])
	}
	if want := wantFolder(f.acct, int64(id), 1, "Reports"); !reflect.DeepEqual(got, want) {
		t.Errorf("create: body\n  %s\nwant\n  %v", res.body, want)
	}

	steps := []struct {
		name      string
		body      string
		wantOrder int64
		wantName  string
	}{
		{"explicit order", `{"name": "B", "order": 10}`, 10, "B"},
		{"omitted order goes after the highest", `{"name": "C"}`, 11, "C"},
		{"explicit order 0", `{"name": "Z", "order": 0}`, 0, "Z"},
		{"omitted order after a 0", `{"name": "D"}`, 12, "D"},
		{"order 5.0 is an integer", `{"name": "E", "order": 5.0}`, 5, "E"},
		{"unknown fields are ignored", `{"name": "F", "order": 2, "colour": "red", "id": 1}`, 2, "F"},
		{"omitted again", `{"name": "G"}`, 13, "G"},
	}
	ids := map[int64]bool{int64(id): true}
	for _, st := range steps {
		res := f.do("POST", "/api/folders/", st.body)
		if res.code != 201 {
			t.Fatalf("%s: %v", st.name, res)
		}
		var fj map[string]any
		_ = json.Unmarshal([]byte(res.body), &fj)
		nid := int64(fj["id"].(float64))
		if ids[nid] {
			t.Errorf("%s: id %d reused", st.name, nid)
		}
		ids[nid] = true
		if want := wantFolder(f.acct, nid, st.wantOrder, st.wantName); !reflect.DeepEqual(fj, want) {
			t.Errorf("%s: body\n  %s\nwant\n  %v", st.name, res.body, want)
		}
	}
	if n := len(f.list(t)); n != len(steps)+1 {
		t.Errorf("list has %d folders, want %d", n, len(steps)+1)
	}
}

// --- 2. List ---

func TestList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	zeta := f.create(t, `{"name": "zeta", "order": 2}`)
	alpha := f.create(t, `{"name": "alpha", "order": 2}`)
	mid := f.create(t, `{"name": "mid", "order": 1}`)
	zero := f.create(t, `{"name": "zero", "order": 0}`)
	last := f.create(t, `{"name": "last"}`)
	if last.Order != 3 {
		t.Errorf("omitted order: %d, want 3", last.Order)
	}
	s1 := f.survey(t, mid.ID, "first")
	s2 := f.survey(t, mid.ID, "دومین نظرسنجی")
	s3 := f.survey(t, mid.ID, "trashed")
	f.trash(t, s3.ID)
	s4 := f.survey(t, zeta.ID, "in zeta")

	// Another account, with a folder and a survey of its own.
	other := newFixture(t)
	of := other.create(t, `{"name": "foreign", "order": 0}`)
	other.survey(t, of.ID, "foreign survey")

	// Expected: by order, equal orders by id (not by name or creation).
	tie := []folderJSON{zeta, alpha}
	if alpha.ID < zeta.ID {
		tie = []folderJSON{alpha, zeta}
	}
	want := []folderJSON{zero, mid, tie[0], tie[1], last}
	surveys := map[int64][]survey.Survey{mid.ID: {s1, s2}, zeta.ID: {s4}}

	res := f.do("GET", "/api/folders/", "")
	if res.code != 200 {
		t.Fatalf("list: %v", res)
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(res.body), &raw); err != nil {
		t.Fatalf("list: %v: %s", err, res.body)
	}
	if len(raw) != len(want) {
		t.Fatalf("list: %d folders, want %d: %s", len(raw), len(want), res.body)
	}
	for i, w := range want {
		g := raw[i]
		if g["id"] != float64(w.ID) {
			t.Errorf("list[%d]: id %v, want %d (%s)", i, g["id"], w.ID, w.Name)
			continue
		}
		var gotSurveys []map[string]any
		for _, s := range g["surveys"].([]any) {
			gotSurveys = append(gotSurveys, s.(map[string]any))
		}
		checkSurveys(t, "folder "+w.Name, gotSurveys, surveys[w.ID]...)
		g["surveys"] = []any{}
		if exp := wantFolder(f.acct, w.ID, w.Order, w.Name); !reflect.DeepEqual(g, exp) {
			t.Errorf("list[%d]: %v, want %v", i, g, exp)
		}
	}

	// The other account sees only its own folder.
	ol := other.list(t)
	if len(ol) != 1 || ol[0].ID != of.ID || len(ol[0].Surveys) != 1 {
		t.Errorf("other account's list: %+v", ol)
	}
}

// TestListCalls: the list is one Query however many folders and surveys;
// a cold authenticator adds its two reads (key, account).
func TestListCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		folders, surveys int
	}{
		{"empty", 0, 0},
		{"1 folder, 1 survey", 1, 1},
		{"5 folders, 20 surveys", 5, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var fids []int64
			for i := range tt.folders {
				fids = append(fids, f.create(t, fmt.Sprintf(`{"name": "f%d"}`, i)).ID)
			}
			for i := range tt.surveys {
				f.survey(t, fids[i%len(fids)], fmt.Sprintf("s%d", i))
			}
			// A fresh handler: its authenticator has never seen the key.
			cold := &fixture{h: folders.New(api.NewAuthenticator(f.st), f.st, clock), st: f.st, acct: f.acct, key: f.key}
			res := cold.do("GET", "/api/folders/", "")
			if res.code != 200 {
				t.Fatalf("cold list: %v", res)
			}
			if res.calls != 3 {
				t.Errorf("cold list: %d DynamoDB calls, want 3 (key, account, Query)", res.calls)
			}
			res = cold.do("GET", "/api/folders/", "")
			if res.code != 200 {
				t.Fatalf("warm list: %v", res)
			}
			if res.calls != 1 {
				t.Errorf("warm list: %d DynamoDB calls, want 1", res.calls)
			}
			var out []folderJSON
			_ = json.Unmarshal([]byte(res.body), &out)
			n := 0
			for _, fj := range out {
				n += len(fj.Surveys)
			}
			if len(out) != tt.folders || n != tt.surveys {
				t.Errorf("list: %d folders and %d surveys, want %d and %d", len(out), n, tt.folders, tt.surveys)
			}
		})
	}
}

// --- 3. GET, PUT, PATCH ---

func TestGetPutPatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	only := f.create(t, `{"name": "Only", "order": 7}`)
	live := f.survey(t, only.ID, "live")
	gone := f.survey(t, only.ID, "gone")
	f.trash(t, gone.ID)
	p := folderPath(only.ID)

	res := f.do("GET", p, "")
	if res.code != 200 {
		t.Fatalf("GET: %v", res)
	}
	if res.calls != 2 {
		t.Errorf("GET one folder (warm): %d DynamoDB calls, want 2 (folder, Query)", res.calls)
	}
	var g map[string]any
	_ = json.Unmarshal([]byte(res.body), &g)
	var gotSurveys []map[string]any
	for _, s := range g["surveys"].([]any) {
		gotSurveys = append(gotSurveys, s.(map[string]any))
	}
	checkSurveys(t, "GET", gotSurveys, live)
	g["surveys"] = []any{}
	if want := wantFolder(f.acct, only.ID, 7, "Only"); !reflect.DeepEqual(g, want) {
		t.Errorf("GET: %s, want %v", res.body, want)
	}
	// The path without its final slash is served the same.
	if res := f.do("GET", strings.TrimSuffix(p, "/"), ""); res.code != 200 {
		t.Errorf("GET without final slash: %v", res)
	}

	required := `{"name":["This field is required."]}`
	steps := []struct {
		name, method, body string
		code               int
		want               string
	}{
		{"PUT without name", "PUT", `{}`, 400, required},
		{"PUT with only order", "PUT", `{"order": 3}`, 400, required},
		{"PUT without body", "PUT", ``, 400, required},
		{"PUT of the only folder without order goes to 1", "PUT", `{"name": " Renamed "}`, 200, ref(only.ID, 1, "Renamed")},
		{"PUT with order", "PUT", `{"name": "Renamed", "order": 20}`, 200, ref(only.ID, 20, "Renamed")},
		{"PATCH order keeps the name", "PATCH", `{"order": 5}`, 200, ref(only.ID, 5, "Renamed")},
		{"PATCH name keeps the order", "PATCH", `{"name": "  Patched  "}`, 200, ref(only.ID, 5, "Patched")},
		{"PATCH {} changes nothing", "PATCH", `{}`, 200, ref(only.ID, 5, "Patched")},
		{"PATCH without body changes nothing", "PATCH", ``, 200, ref(only.ID, 5, "Patched")},
		{"PATCH order 0", "PATCH", `{"order": 0}`, 200, ref(only.ID, 0, "Patched")},
		{"PATCH both", "PATCH", `{"name": "Both", "order": 20}`, 200, ref(only.ID, 20, "Both")},
	}
	for _, st := range steps {
		expect(t, st.name, f.do(st.method, p, st.body), st.code, st.want)
	}
	if got := f.get(t, only.ID); got.Order != 20 || got.Name != "Both" || len(got.Surveys) != 1 {
		t.Errorf("after the writes: %+v", got)
	}

	// PUT without order: one more than the highest among the OTHER folders
	// (the folder's own order 20 does not count).
	a := f.create(t, `{"name": "a", "order": 3}`)
	b := f.create(t, `{"name": "b", "order": 8}`)
	expect(t, "PUT among others", f.do("PUT", p, `{"name": "R2"}`), 200, ref(only.ID, 9, "R2"))
	expect(t, "PUT again keeps it last", f.do("PUT", p, `{"name": "R3"}`), 200, ref(only.ID, 9, "R3"))
	ls := f.list(t)
	if len(ls) != 3 || ls[0].ID != a.ID || ls[1].ID != b.ID || ls[2].ID != only.ID {
		t.Errorf("list after PUT: %+v", ls)
	}
	// PATCH without order never moves the folder.
	expect(t, "PATCH name only", f.do("PATCH", p, `{"name": "R4"}`), 200, ref(only.ID, 9, "R4"))
	if got := f.get(t, only.ID); got.Order != 9 || got.Name != "R4" || len(got.Surveys) != 1 || got.Surveys[0]["id"] != float64(live.ID) {
		t.Errorf("final GET: %+v", got)
	}
}

// --- 4. Bad input ---

func TestBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orig := f.create(t, `{"name": "orig", "order": 3}`)
	f.warm(t)

	tooLong := strings.Repeat("ن", 101)
	tooLongEmoji := strings.Repeat("😀", 101)
	big := `{"name": "x", "pad": "` + strings.Repeat("a", api.MaxBody) + `"}`
	tests := []struct {
		name, contentType, body string
		unknownLength           bool // a chunked body: no Content-Length
		code                    int
		want                    string // exact body, or
		wantDetailPrefix        string // the prefix of "detail"
	}{
		{name: "empty name", body: `{"name": ""}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "whitespace name", body: `{"name": "   "}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "tabs and newlines name", body: `{"name": "\t\n "}`, code: 400, want: `{"name":["This field may not be blank."]}`},
		{name: "101 Persian characters", body: `{"name": "` + tooLong + `"}`, code: 400, want: `{"name":["Ensure this field has no more than 100 characters."]}`},
		{name: "101 emoji", body: `{"name": "` + tooLongEmoji + `"}`, code: 400, want: `{"name":["Ensure this field has no more than 100 characters."]}`},
		{name: "null name", body: `{"name": null}`, code: 400, want: `{"name":["This field may not be null."]}`},
		{name: "integer name", body: `{"name": 5}`, code: 400, want: `{"name":["Not a valid string."]}`},
		{name: "object name", body: `{"name": {"a": 1}}`, code: 400, want: `{"name":["Not a valid string."]}`},
		{name: "string order", body: `{"name": "ok", "order": "1"}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "fractional order", body: `{"name": "ok", "order": 1.5}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "boolean order", body: `{"name": "ok", "order": true}`, code: 400, want: `{"order":["A valid integer is required."]}`},
		{name: "null order", body: `{"name": "ok", "order": null}`, code: 400, want: `{"order":["This field may not be null."]}`},
		{name: "negative order", body: `{"name": "ok", "order": -1}`, code: 400, want: `{"order":["Ensure this value is greater than or equal to 0."]}`},
		{name: "order above int32", body: `{"name": "ok", "order": 2147483648}`, code: 400, want: `{"order":["Ensure this value is less than or equal to 2147483647."]}`},
		{name: "both fields wrong", body: `{"name": "", "order": -1}`, code: 400, want: `{"name":["This field may not be blank."],"order":["Ensure this value is greater than or equal to 0."]}`},
		{name: "list body", body: `[]`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "list of an object", body: `[{"name": "x"}]`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "null body", body: `null`, code: 400, want: `{"non_field_errors":["No data provided"]}`},
		{name: "string body", body: `"x"`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{name: "number body", body: `5`, code: 400, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{name: "not JSON", body: `{name: x}`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "truncated JSON", body: `{"name": "x"`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "two JSON values", body: `{"name": "x"} {"name": "y"}`, code: 400, wantDetailPrefix: "JSON parse error - "},
		{name: "text/plain", contentType: "text/plain", body: `{"name": "x"}`, code: 415, want: `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{name: "over 1 MiB", body: big, code: 413, wantDetailPrefix: ""},
		{name: "over 1 MiB chunked", body: big, unknownLength: true, code: 413, wantDetailPrefix: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct{ method, path string }{
				{"POST", "/api/folders/"}, {"PUT", folderPath(orig.ID)}, {"PATCH", folderPath(orig.ID)},
			} {
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
				}
				req := newRequest(m.method, m.path, f.key, ct, tt.body)
				if tt.unknownLength {
					req.ContentLength = -1
				}
				res := serve(f.h, req)
				what := m.method + " " + tt.name
				if tt.want != "" {
					expect(t, what, res, tt.code, tt.want)
				} else {
					if res.code != tt.code {
						t.Errorf("%s: %v, want %d", what, res, tt.code)
						continue
					}
					g, ok := decodeJSON(t, res.body).(map[string]any)
					d, isStr := g["detail"].(string)
					if !ok || len(g) != 1 || !isStr || !strings.HasPrefix(d, tt.wantDetailPrefix) || d == tt.wantDetailPrefix {
						t.Errorf("%s: body %s, want {\"detail\": %q...}", what, res.body, tt.wantDetailPrefix)
					}
				}
				if res.calls != 0 {
					t.Errorf("%s: %d DynamoDB calls, want 0 (refused before the store)", what, res.calls)
				}
			}
			// Nothing changed: still exactly the one folder, as it was.
			ls := f.list(t)
			if len(ls) != 1 || ls[0].ID != orig.ID || ls[0].Name != "orig" || ls[0].Order != 3 {
				t.Fatalf("after %s: list %+v", tt.name, ls)
			}
		})
	}
}

// TestNameLength: 100 code points is the limit, counted in code points
// (not bytes, not UTF-16 units), after trimming.
func TestNameLength(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	persian := strings.Repeat("ش", 100)
	emoji := strings.Repeat("😀", 100)
	mixed := strings.Repeat("ab", 25) + strings.Repeat("گ", 25) + strings.Repeat("🎉", 25)

	fj := f.create(t, `{"name": "`+persian+`"}`)
	if fj.Name != persian {
		t.Errorf("POST 100 Persian characters: name %q", fj.Name)
	}
	p := folderPath(fj.ID)
	expect(t, "PUT 100 emoji", f.do("PUT", p, `{"name": "`+emoji+`", "order": 1}`), 200, ref(fj.ID, 1, emoji))
	expect(t, "PATCH 100 mixed, padded", f.do("PATCH", p, `{"name": "   `+mixed+"\\t\\n"+`  "}`), 200, ref(fj.ID, 1, mixed))
	if got := f.get(t, fj.ID); got.Name != mixed {
		t.Errorf("GET: name %q, want %q", got.Name, mixed)
	}
}

// --- 5. Ids in the path ---

func TestPathIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mine := f.create(t, `{"name": "mine", "order": 4}`)
	other := newFixture(t)
	foreign := other.create(t, `{"name": "foreign", "order": 2}`)
	f.warm(t)

	notFound := `{"detail":"Not found."}`
	tests := []struct {
		id        string
		malformed bool
	}{
		{"abc", true}, {"0", true}, {"-1", true}, {"99999999999", true}, {"1.5", true},
		{"2147483648", true}, {"1e3", true}, {"%20", true},
		// Valid-looking ids: one that names nothing (ids are allocated
		// upward from small numbers) and another account's folder.
		{"2147483647", false},
		{fmt.Sprint(foreign.ID), false},
	}
	for _, tt := range tests {
		for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
			body := ""
			if method == "PUT" || method == "PATCH" {
				body = `{"name": "hijack", "order": 1}`
			}
			res := f.do(method, "/api/folders/"+tt.id+"/", body)
			what := method + " /api/folders/" + tt.id + "/"
			expect(t, what, res, 404, notFound)
			if tt.malformed && res.calls != 0 {
				t.Errorf("%s: %d DynamoDB calls, want 0", what, res.calls)
			}
		}
	}
	// Nothing was touched: the foreign folder and ours are as they were.
	if ol := other.list(t); len(ol) != 1 || ol[0].ID != foreign.ID || ol[0].Name != "foreign" || ol[0].Order != 2 {
		t.Errorf("other account's list: %+v", ol)
	}
	if ls := f.list(t); len(ls) != 1 || ls[0].ID != mine.ID || ls[0].Name != "mine" || ls[0].Order != 4 {
		t.Errorf("own list: %+v", ls)
	}
}

// --- 6. 405 and 401 ---

func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fj := f.create(t, `{"name": "x"}`)
	detailAllow := "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
	listAllow := "GET, POST, HEAD, OPTIONS"
	tests := []struct {
		name, method, path string
		key                bool
		code               int
		want, allow        string
	}{
		{"POST on a folder", "POST", folderPath(fj.ID), true, 405, `{"detail":"Method \"POST\" not allowed."}`, detailAllow},
		{"POST on a malformed id", "POST", "/api/folders/abc/", true, 405, `{"detail":"Method \"POST\" not allowed."}`, detailAllow},
		{"PUT on the list", "PUT", "/api/folders/", true, 405, `{"detail":"Method \"PUT\" not allowed."}`, listAllow},
		{"PATCH on the list", "PATCH", "/api/folders/", true, 405, `{"detail":"Method \"PATCH\" not allowed."}`, listAllow},
		{"DELETE on the list", "DELETE", "/api/folders/", true, 405, `{"detail":"Method \"DELETE\" not allowed."}`, listAllow},
		{"GET list without key", "GET", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
		{"POST without key", "POST", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
		{"GET folder without key", "GET", folderPath(fj.ID), false, 401, `{"detail":"Authentication credentials were not provided."}`, detailAllow},
		{"DELETE folder without key", "DELETE", folderPath(fj.ID), false, 401, `{"detail":"Authentication credentials were not provided."}`, detailAllow},
		{"PUT on the list without key", "PUT", "/api/folders/", false, 401, `{"detail":"Authentication credentials were not provided."}`, listAllow},
	}
	for _, tt := range tests {
		key := ""
		if tt.key {
			key = f.key
		}
		body, ct := "", ""
		if tt.method != "GET" && tt.method != "DELETE" {
			body, ct = `{"name": "y"}`, "application/json"
		}
		res := serve(f.h, newRequest(tt.method, tt.path, key, ct, body))
		expect(t, tt.name, res, tt.code, tt.want)
		if got := res.hdr.Get("Allow"); got != tt.allow {
			t.Errorf("%s: Allow %q, want %q", tt.name, got, tt.allow)
		}
		if tt.code == 401 && res.hdr.Get("WWW-Authenticate") != "API-Key" {
			t.Errorf("%s: WWW-Authenticate %q", tt.name, res.hdr.Get("WWW-Authenticate"))
		}
	}
	if got := f.get(t, fj.ID); got.Name != "x" {
		t.Errorf("folder changed: %+v", got)
	}
}

// --- 7. DELETE ---

func TestDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	doomed := f.create(t, `{"name": "doomed", "order": 1}`)
	kept := f.create(t, `{"name": "kept", "order": 2}`)
	in1 := f.survey(t, doomed.ID, "in doomed 1")
	in2 := f.survey(t, doomed.ID, "in doomed 2")
	already := f.survey(t, doomed.ID, "already trashed")
	f.trash(t, already.ID)
	out1 := f.survey(t, kept.ID, "in kept 1")
	out2 := f.survey(t, kept.ID, "in kept 2")
	p := folderPath(doomed.ID)

	res := f.do("DELETE", p, "")
	if res.code != 204 || res.body != "" {
		t.Fatalf("DELETE: %v", res)
	}
	t.Logf("DELETE of a folder with 2 live surveys: %d DynamoDB calls", res.calls)
	f.wantCounts(t, "after DELETE", 2, 1) // the kept folder and its 2 surveys
	if res := f.do("DELETE", p, ""); res.code != 404 {
		t.Fatalf("DELETE twice: %v", res)
	}
	f.wantCounts(t, "after DELETE twice", 2, 1)

	for _, m := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		body := ""
		if m == "PUT" || m == "PATCH" {
			body = `{"name": "back"}`
		}
		expect(t, m+" after DELETE", f.do(m, p, body), 404, `{"detail":"Not found."}`)
	}
	ls := f.list(t)
	if len(ls) != 1 || ls[0].ID != kept.ID {
		t.Fatalf("list after DELETE: %+v", ls)
	}
	checkSurveys(t, "kept folder", ls[0].Surveys, out1, out2)

	for _, sv := range []survey.Survey{in1, in2, already} {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
		if err != nil {
			t.Errorf("survey %d: %v", sv.ID, err)
			continue
		}
		got := c.Survey
		if !got.Deleted || got.Name != sv.Name || got.FolderID != doomed.ID || got.URLSlug != sv.URLSlug ||
			got.PreviewCode != sv.PreviewCode || got.ReportCode != sv.ReportCode || !got.Created.Equal(sv.Created) {
			t.Errorf("survey %d after DELETE: %+v, want it in the trash with everything kept", sv.ID, got)
		}
	}
	for _, sv := range []survey.Survey{out1, out2} {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
		if err != nil || c.Survey.Deleted || c.Survey.FolderID != kept.ID {
			t.Errorf("survey %d of another folder: %+v, %v", sv.ID, c.Survey, err)
		}
	}
}

// TestDeleteManySurveys: more surveys than one 100-item transaction holds;
// every one ends in the trash.
func TestDeleteManySurveys(t *testing.T) {
	t.Parallel()
	const n = 130
	f := newFixture(t)
	ctx := context.Background()
	fj := f.create(t, `{"name": "big"}`)
	neighbour := f.create(t, `{"name": "neighbour"}`)
	stay := f.survey(t, neighbour.ID, "stays")

	ids := make([]int64, n)
	errs := make([]error, n)
	parallel(n, func(i int) {
		sv, err := f.createSurvey(ctx, fj.ID, fmt.Sprintf("survey %d", i))
		ids[i], errs[i] = sv.ID, err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create survey %d: %v", i, err)
		}
	}
	if got := f.get(t, fj.ID); len(got.Surveys) != n {
		t.Fatalf("folder holds %d surveys, want %d", len(got.Surveys), n)
	}

	res := f.do("DELETE", folderPath(fj.ID), "")
	if res.code != 204 {
		t.Fatalf("DELETE: %v", res)
	}
	t.Logf("DELETE of a folder with %d surveys: %d DynamoDB calls", n, res.calls)

	deleted := make([]bool, n)
	parallel(n, func(i int) {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, ids[i])
		deleted[i], errs[i] = c.Survey.Deleted && c.Survey.FolderID == fj.ID, err
	})
	trashed := 0
	for i := range ids {
		if errs[i] != nil {
			t.Errorf("survey %d: %v", ids[i], errs[i])
		} else if deleted[i] {
			trashed++
		} else {
			t.Errorf("survey %d is not in the trash", ids[i])
		}
	}
	if trashed != n {
		t.Errorf("%d of %d surveys in the trash", trashed, n)
	}
	ls := f.list(t)
	if len(ls) != 1 || ls[0].ID != neighbour.ID || len(ls[0].Surveys) != 1 || ls[0].Surveys[0]["id"] != float64(stay.ID) {
		t.Errorf("list after DELETE: %+v", ls)
	}
	// 130 trashed in two transactions, each lowering the count by its own.
	f.wantCounts(t, "after DELETE", 1, 1)
}

// wantCounts checks the account's counts of live surveys and folders
// (README, "Account limits").
func (f *fixture) wantCounts(t *testing.T, what string, surveys, folders int64) {
	t.Helper()
	c, err := f.st.AccountCounts(t.Context(), f.acct.ID)
	if err != nil || c.LiveSurveys != surveys || c.Folders != folders {
		t.Errorf("%s: counts %+v, %v; want %d live surveys and %d folders", what, c, err, surveys, folders)
	}
}

// parallel runs fn(0..n-1), 8 at a time.
func parallel(n int, fn func(i int)) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// --- 8. Concurrency ---

// TestConcurrentPatches: a PATCH of the name and a PATCH of the order racing
// on one folder both land.
func TestConcurrentPatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fj := f.create(t, `{"name": "start", "order": 1}`)
	f.warm(t)
	p := folderPath(fj.ID)
	for round := range 10 {
		name, order := fmt.Sprintf("name %d", round), int64(100+round)
		var byName, byOrder result
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			byName = f.do("PATCH", p, fmt.Sprintf(`{"name": %q}`, name))
		}()
		go func() {
			defer wg.Done()
			<-start
			byOrder = f.do("PATCH", p, fmt.Sprintf(`{"order": %d}`, order))
		}()
		close(start)
		wg.Wait()
		if byName.code != 200 || byOrder.code != 200 {
			t.Fatalf("round %d: %v / %v", round, byName, byOrder)
		}
		if got := f.get(t, fj.ID); got.Name != name || got.Order != order {
			t.Errorf("round %d: folder is %q order %d, want %q order %d", round, got.Name, got.Order, name, order)
		}
	}
}

// TestConcurrentCreates: creates without order racing all succeed; the list
// stays sorted by (order, id) and every order is at least 1.
func TestConcurrentCreates(t *testing.T) {
	t.Parallel()
	const n = 10
	f := newFixture(t)
	f.warm(t)
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = f.do("POST", "/api/folders/", fmt.Sprintf(`{"name": "c%d"}`, i))
		}()
	}
	close(start)
	wg.Wait()
	created := map[int64]bool{}
	for i, res := range results {
		if res.code != 201 {
			t.Errorf("create %d: %v", i, res)
			continue
		}
		var fj folderJSON
		_ = json.Unmarshal([]byte(res.body), &fj)
		if fj.Order < 1 {
			t.Errorf("create %d: order %d", i, fj.Order)
		}
		created[fj.ID] = true
	}
	ls := f.list(t)
	if len(ls) != n || len(created) != n {
		t.Fatalf("list has %d folders (%d distinct created), want %d", len(ls), len(created), n)
	}
	if !sortedByOrderID(ls) {
		t.Errorf("list not sorted by (order, id): %+v", ls)
	}
	orders := map[int64]int{}
	for _, fj := range ls {
		if !created[fj.ID] || fj.Order < 1 {
			t.Errorf("listed folder %+v", fj)
		}
		orders[fj.Order]++
	}
	t.Logf("10 concurrent creates: %d distinct orders", len(orders))
}
