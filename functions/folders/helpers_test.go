package folders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/folders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
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
	o := testenv.NewOwner(t, survey.PlanFree, "")
	return &fixture{h: testenv.Conform(folders.New(folders.Deps{Auth: auth, Store: st, Now: clock})), st: st, acct: o.Account, key: o.Key}
}

// result is one answer and the DynamoDB calls it cost.
type result struct {
	code  int
	body  string
	hdr   http.Header
	calls int
	// auth are the authenticator's reads (the key, and a cold account).
	auth int
}

func (r result) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

func serve(h http.Handler, req *http.Request) result {
	r := testenv.Serve(h, req)
	return result{code: r.Code, body: string(r.Body), hdr: r.Header, calls: r.Calls.DynamoDB(), auth: r.Calls.Auth()}
}

func newRequest(method, path, key, contentType, body string) *http.Request {
	return testenv.NewRequest(method, path, key, contentType, testenv.Body(body))
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
			"background_image":                 nil,
			"background_image_id":              nil,
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
