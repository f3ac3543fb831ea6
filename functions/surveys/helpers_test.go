package surveys_test

import (
	"encoding/json"
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

	"surveyservice/functions/surveys"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	listPath = "/api/v2/surveys/"
	// missingID is a valid id that no folder or survey ever gets (ids are
	// handed out from small numbers up).
	missingID  = math.MaxInt32
	deleted    = `{"detail":"Survey is deleted."}`
	notFound   = `{"detail":"Not found."}`
	folderGone = `{"detail":"The survey's folder no longer exists; send folder_id."}`
)

func detailPath(id any) string  { return fmt.Sprintf("/api/v2/surveys/%v/", id) }
func restorePath(id any) string { return fmt.Sprintf("/api/v2/surveys/%v/restore/", id) }

// invalidPK is DRF's body for a folder_id that names no folder of the account.
func invalidPK(id int64) string {
	return fmt.Sprintf(`{"folder_id":["Invalid pk \"%d\" - object does not exist."]}`, id)
}

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  int
}

// serve sends one request; a non-empty body is sent with contentType.
func serve(t *testing.T, h http.Handler, method, path, key, contentType, body string) reply {
	t.Helper()
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
	ctx, calls := awsenv.WithCalls(req.Context())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return reply{code: rec.Code, body: rec.Body.Bytes(), header: rec.Header(), calls: calls.DynamoDB()}
}

// fixture is one account of its own, its key, and the group's handler.
type fixture struct {
	st   *store.Store
	h    http.Handler
	acct survey.Account
	key  string
}

func newFixture(t *testing.T, clock func() time.Time) *fixture {
	t.Helper()
	st := testenv.Store(t)
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	f := &fixture{st: st, h: surveys.New(api.NewAuthenticator(st), st, clock), acct: acct, key: key}
	// Warm the authenticator: later counts are the handler's own calls.
	if r := f.do(t, "GET", detailPath("warm"), ""); r.code != 404 {
		t.Fatalf("warm-up: %d %s", r.code, r.body)
	}
	return f
}

// do sends a request with the fixture's key; a body goes as JSON.
func (f *fixture) do(t *testing.T, method, path, body string) reply {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	return serve(t, f.h, method, path, f.key, ct, body)
}

// folder creates a live folder of the account through the store.
func folder(t *testing.T, st *store.Store, aid int64, name string) int64 {
	t.Helper()
	fo, err := st.CreateFolder(t.Context(), aid, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fo.ID
}

// deletedFolder creates a folder and deletes it.
func deletedFolder(t *testing.T, st *store.Store, aid int64) int64 {
	t.Helper()
	fid := folder(t, st, aid, "Doomed")
	if err := st.DeleteFolder(t.Context(), aid, fid); err != nil {
		t.Fatal(err)
	}
	return fid
}

// listed returns the ids of the live surveys of a live folder.
func listed(t *testing.T, st *store.Store, aid, fid int64) []int64 {
	t.Helper()
	_, svs, err := st.FolderWithSurveys(t.Context(), aid, fid)
	if err != nil {
		t.Fatalf("folder %d: %v", fid, err)
	}
	ids := make([]int64, 0, len(svs))
	for _, sv := range svs {
		ids = append(ids, sv.ID)
	}
	return ids
}

// checkListed asserts that sid is in folder in and in none of out.
func checkListed(t *testing.T, st *store.Store, aid, sid, in int64, out ...int64) {
	t.Helper()
	if in != 0 && !slices.Contains(listed(t, st, aid, in), sid) {
		t.Errorf("survey %d is not in folder %d's list", sid, in)
	}
	for _, fid := range out {
		if slices.Contains(listed(t, st, aid, fid), sid) {
			t.Errorf("survey %d is in folder %d's list", sid, fid)
		}
	}
}

// create makes a survey through the API and returns its detail and id.
func (f *fixture) create(t *testing.T, fid int64, name string) (map[string]any, int64) {
	t.Helper()
	r := f.do(t, "POST", listPath, fmt.Sprintf(`{"name":%q,"folder_id":%d}`, name, fid))
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	d := decode(t, r.body)
	return d, idOf(t, d)
}

// get answers a survey's detail, which must be 200.
func (f *fixture) get(t *testing.T, sid int64) map[string]any {
	t.Helper()
	r := f.do(t, "GET", detailPath(sid), "")
	if r.code != 200 {
		t.Fatalf("GET %d: %d %s", sid, r.code, r.body)
	}
	return decode(t, r.body)
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func idOf(t *testing.T, d map[string]any) int64 {
	t.Helper()
	id, ok := d["id"].(float64)
	if !ok || id != math.Trunc(id) || id < 1 {
		t.Fatalf("id = %v", d["id"])
	}
	return int64(id)
}

// with returns a copy of a detail with some top-level fields changed.
func with(d map[string]any, changes map[string]any) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// sameJSON compares a body with the JSON it should be (key order aside).
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: want %q is not JSON: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: body\n got %s\nwant %s", what, got, want)
	}
}

// expect checks a reply's status and, when want is set, its exact body.
func expect(t *testing.T, what string, r reply, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: status %d, want %d (%s)", what, r.code, code, r.body)
		return
	}
	if want != "" {
		sameJSON(t, what, r.body, want)
	}
}

func sameDetail(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: detail\n got %s\nwant %s", what, g, w)
	}
}

func isInt(v any) bool {
	n, ok := v.(float64)
	return ok && n == math.Trunc(n)
}

var slugRE = regexp.MustCompile(`^[A-Za-z0-9_~.-]{8,}$`)

// specSettingsFlags are the boolean summary settings of the spec's Survey detail.
var specSettingsFlags = []string{
	"authentication_needed", "service_auth", "code_auth", "edit_response_enabled",
	"show_answer_sheet_enabled", "show_answer_sheet_to_responder",
	"show_answer_key_after_response_submit", "show_answer_key_after_survey_stop",
	"phone_number_auth", "phone_number_auth_is_unique", "phone_numbers_limited",
}

// checkTheme asserts every Theme field of the spec with its type, and that
// it is the default theme.
func checkTheme(t *testing.T, theme any) {
	t.Helper()
	th, ok := theme.(map[string]any)
	if !ok {
		t.Errorf("theme = %v", theme)
		return
	}
	ints := []string{"id", "order", "font_family", "font_size", "background_image_id", "background_image_repeat",
		"background_image_fit", "background_image_position", "background_image_brightness", "background_image_size_percentage"}
	strs := []string{"background_color", "question_color", "answer_color", "button_color", "accent_color", "thumbnail_url"}
	for _, k := range ints {
		if !isInt(th[k]) {
			t.Errorf("theme.%s = %#v, want an integer", k, th[k])
		}
	}
	for _, k := range strs {
		if _, ok := th[k].(string); !ok {
			t.Errorf("theme.%s = %#v, want a string", k, th[k])
		}
	}
	if _, ok := th["is_public"].(bool); !ok {
		t.Errorf("theme.is_public = %#v, want a boolean", th["is_public"])
	}
	img, ok := th["background_image"].(map[string]any)
	if !ok || !isInt(img["id"]) || len(img) != 3 {
		t.Errorf("theme.background_image = %#v", th["background_image"])
	} else {
		for _, k := range []string{"url", "thumbnail_url"} {
			if _, ok := img[k].(string); !ok {
				t.Errorf("theme.background_image.%s = %#v", k, img[k])
			}
		}
	}
	if len(th) != len(ints)+len(strs)+2 {
		t.Errorf("theme has %d fields, want the spec's %d: %v", len(th), len(ints)+len(strs)+2, th)
	}
	raw, _ := json.Marshal(survey.DefaultTheme())
	var def any
	_ = json.Unmarshal(raw, &def)
	if !reflect.DeepEqual(theme, def) {
		t.Errorf("theme = %v, want the default theme %s", theme, raw)
	}
}

// checkNewDetail asserts a new survey's whole detail and returns it.
func checkNewDetail(t *testing.T, body []byte, acct survey.Account, fid int64, name, lang string, before, after time.Time) map[string]any {
	t.Helper()
	d := decode(t, body)
	fixed := map[string]any{
		"name": name, "folder_id": float64(fid), "language": lang,
		"active": true, "closed": false, "deleted": false, "is_stopped": false, "expiration_date": nil,
		"submitted_responses": 0.0, "views": 0.0, "is_template": false, "subdomain": nil,
		"shared_by": map[string]any{"email": acct.Email, "first_name": acct.FirstName, "last_name": acct.LastName, "user_type": 1.0},
		"questions": []any{}, "variables": []any{}, "welcome": []any{}, "appreciations": []any{},
	}
	for k, want := range fixed {
		got, ok := d[k]
		if !ok {
			t.Errorf("detail has no %q", k)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("detail %s = %#v, want %#v", k, got, want)
		}
	}
	idOf(t, d)
	if s, _ := d["url_slug"].(string); !slugRE.MatchString(s) || url.PathEscape(s) != s {
		t.Errorf("url_slug = %#v, want URL-safe and 8+ characters", d["url_slug"])
	}
	for _, k := range []string{"preview_code", "report_code"} {
		if s, _ := d[k].(string); s == "" {
			t.Errorf("%s = %#v, want a non-empty string", k, d[k])
		}
	}
	cd, _ := d["created_date"].(string)
	created, err := time.Parse(time.RFC3339Nano, cd)
	switch {
	case err != nil || !strings.HasSuffix(cd, "Z"):
		t.Errorf("created_date = %q, want UTC ISO 8601 ending in Z (%v)", cd, err)
	case created.Before(before.Add(-time.Second)) || created.After(after.Add(time.Second)):
		t.Errorf("created_date = %s, want between %s and %s", cd, before.UTC(), after.UTC())
	}
	checkTheme(t, d["theme"])
	settings, ok := d["settings"].(map[string]any)
	if !ok {
		t.Errorf("settings = %#v", d["settings"])
	} else {
		for _, k := range specSettingsFlags {
			if v, ok := settings[k]; !ok || v != false {
				t.Errorf("settings.%s = %#v, want false", k, v)
			}
		}
		if !isInt(settings["responding_duration_type"]) {
			t.Errorf("settings.responding_duration_type = %#v, want an integer", settings["responding_duration_type"])
		}
		qrd, ok := settings["questions_responding_duration"]
		if _, isStr := qrd.(string); !ok || (qrd != nil && !isStr) {
			t.Errorf("settings.questions_responding_duration = %#v, want a string or null", qrd)
		}
		if len(settings) != len(specSettingsFlags)+2 {
			t.Errorf("settings has %d keys, want %d: %v", len(settings), len(specSettingsFlags)+2, settings)
		}
	}
	known := map[string]bool{"id": true, "url_slug": true, "preview_code": true, "report_code": true,
		"created_date": true, "theme": true, "settings": true}
	for k := range d {
		if _, ok := fixed[k]; ok || known[k] {
			continue
		}
		if k == "question_count" && d[k] == 0.0 {
			continue // beyond the spec's table: the summaries' count
		}
		t.Errorf("detail has an unexpected field %s = %#v", k, d[k])
	}
	return d
}

// TestCreate: 201 with the whole detail; GET answers the same in one call.
func TestCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Inbox")
	tests := []struct {
		name, body, wantName, wantLang string
	}{
		{"language omitted is fa", `{"name":"Customer feedback","folder_id":%d}`, "Customer feedback", "fa"},
		{"language 1 is fa", `{"name":"One","folder_id":%d,"language":1}`, "One", "fa"},
		{"language 2 is tr", `{"name":"Two","folder_id":%d,"language":2}`, "Two", "tr"},
		{"language 3 is ar", `{"name":"Three","folder_id":%d,"language":3}`, "Three", "ar"},
		{"language 4 is en", `{"name":"Four","folder_id":%d,"language":4}`, "Four", "en"},
		{"name trimmed", `{"name":"  Padded\t ","folder_id":%d,"language":4}`, "Padded", "en"},
		{"255 characters", `{"name":"` + strings.Repeat("a", 255) + `","folder_id":%d}`, strings.Repeat("a", 255), "fa"},
		{"255 Persian characters", `{"name":"` + strings.Repeat("ن", 255) + `","folder_id":%d}`, strings.Repeat("ن", 255), "fa"},
		{"unknown and read-only fields ignored", `{"name":"Extra","folder_id":%d,"deleted":true,"active":false,"views":7,"url_slug":"mine","color":"red"}`, "Extra", "fa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now()
			r := f.do(t, "POST", listPath, fmt.Sprintf(tt.body, fid))
			after := time.Now()
			if r.code != 201 {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			d := checkNewDetail(t, r.body, f.acct, fid, tt.wantName, tt.wantLang, before, after)
			sid := idOf(t, d)
			t.Logf("create: %d DynamoDB calls", r.calls)
			g := f.do(t, "GET", detailPath(sid), "")
			if g.code != 200 {
				t.Fatalf("GET: %d %s", g.code, g.body)
			}
			sameJSON(t, "GET after create", g.body, string(r.body))
			if g.calls != 1 {
				t.Errorf("GET took %d DynamoDB calls, want 1", g.calls)
			}
			if nos := f.do(t, "GET", strings.TrimSuffix(detailPath(sid), "/"), ""); nos.code != 200 {
				t.Errorf("GET without the final slash: %d", nos.code)
			} else {
				sameJSON(t, "GET without the final slash", nos.body, string(r.body))
			}
			checkListed(t, f.st, f.acct.ID, sid, fid)
		})
	}
}

// TestCreateManyAreDistinct: 100 surveys get 100 ids, slugs and codes.
func TestCreateManyAreDistinct(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Many")
	ids, slugs, previews, reports := map[int64]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var want []int64
	tick := time.NewTicker(15 * time.Millisecond) // two calls a create: about 130 calls/s
	defer tick.Stop()
	for i := range 100 {
		<-tick.C
		d, sid := f.create(t, fid, fmt.Sprintf("Survey %d", i))
		if ids[sid] {
			t.Errorf("id %d handed out twice", sid)
		}
		ids[sid] = true
		want = append(want, sid)
		for _, c := range []struct {
			key  string
			seen map[string]bool
		}{{"url_slug", slugs}, {"preview_code", previews}, {"report_code", reports}} {
			s, _ := d[c.key].(string)
			if c.seen[s] {
				t.Errorf("%s %q handed out twice", c.key, s)
			}
			c.seen[s] = true
			if c.key == "url_slug" && (!slugRE.MatchString(s) || url.PathEscape(s) != s) {
				t.Errorf("url_slug %q is not URL-safe with 8+ characters", s)
			}
		}
	}
	if len(ids) != 100 || len(slugs) != 100 || len(previews) != 100 || len(reports) != 100 {
		t.Errorf("distinct: %d ids, %d slugs, %d preview codes, %d report codes; want 100 each", len(ids), len(slugs), len(previews), len(reports))
	}
	got := listed(t, f.st, f.acct.ID, fid)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("folder lists %d surveys %v, want the 100 created", len(got), got)
	}
}

// TestCreateInvalid: each bad body is a 400 (or 415) with DRF's body, and
// nothing is written.
func TestCreateInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Inbox")
	other, _ := testenv.NewAccount(t, survey.PlanPro)
	foreign := folder(t, f.st, other.ID, "Theirs")
	gone := deletedFolder(t, f.st, f.acct.ID)
	ok := func(extra string) string { return fmt.Sprintf(`{"name":"Fine","folder_id":%d%s}`, fid, extra) }
	withFolder := func(v any) string { return fmt.Sprintf(`{"name":"Fine","folder_id":%v}`, v) }
	withName := func(v string) string { return fmt.Sprintf(`{"name":%s,"folder_id":%d}`, v, fid) }
	const (
		required  = `["This field is required."]`
		blank     = `["This field may not be blank."]`
		null      = `["This field may not be null."]`
		notString = `["Not a valid string."]`
		notInt    = `["A valid integer is required."]`
	)
	incorrect := func(kind string) string {
		return `{"folder_id":["Incorrect type. Expected pk value, received ` + kind + `."]}`
	}
	tests := []struct {
		name, contentType, body string
		code                    int
		want                    string // exact body
		detailPrefix            string // or a {"detail"} starting so
		onlyField               string // or a 400 on this field alone
	}{
		{name: "name missing", body: fmt.Sprintf(`{"folder_id":%d}`, fid), want: `{"name":` + required + `}`},
		{name: "name empty", body: withName(`""`), want: `{"name":` + blank + `}`},
		{name: "name whitespace", body: withName(`"  \t\n  "`), want: `{"name":` + blank + `}`},
		{name: "name 256 characters", body: withName(`"` + strings.Repeat("a", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name 256 Persian characters", body: withName(`"` + strings.Repeat("ن", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name 256 after trimming is 255", body: withName(`" ` + strings.Repeat("a", 256) + `"`), want: `{"name":["Ensure this field has no more than 255 characters."]}`},
		{name: "name null", body: withName(`null`), want: `{"name":` + null + `}`},
		{name: "name number", body: withName(`5`), want: `{"name":` + notString + `}`},
		{name: "name boolean", body: withName(`true`), want: `{"name":` + notString + `}`},
		{name: "name list", body: withName(`["a"]`), want: `{"name":` + notString + `}`},
		{name: "name object", body: withName(`{"a":1}`), want: `{"name":` + notString + `}`},
		{name: "folder_id missing", body: `{"name":"Fine"}`, want: `{"folder_id":` + required + `}`},
		{name: "folder_id string", body: withFolder(`"5"`), want: incorrect("str")},
		{name: "folder_id own folder as a string", body: withFolder(fmt.Sprintf(`"%d"`, fid)), want: incorrect("str")},
		{name: "folder_id fraction", body: withFolder(`1.5`), want: incorrect("float")},
		{name: "folder_id boolean", body: withFolder(`true`), want: incorrect("bool")},
		{name: "folder_id list", body: withFolder(fmt.Sprintf(`[%d]`, fid)), want: incorrect("list")},
		{name: "folder_id object", body: withFolder(`{}`), want: incorrect("dict")},
		{name: "folder_id null", body: withFolder(`null`), want: `{"folder_id":` + null + `}`},
		{name: "folder_id 0", body: withFolder(0), want: invalidPK(0)},
		{name: "folder_id -3", body: withFolder(-3), want: invalidPK(-3)},
		{name: "folder_id beyond int32", body: withFolder(int64(math.MaxInt32) + 1), want: invalidPK(int64(math.MaxInt32) + 1)},
		{name: "folder_id of no folder", body: withFolder(missingID), want: invalidPK(missingID)},
		{name: "folder_id of another account's folder", body: withFolder(foreign), want: invalidPK(foreign)},
		{name: "folder_id of a deleted folder", body: withFolder(gone), want: invalidPK(gone)},
		{name: "language 9", body: ok(`,"language":9`), want: `{"language":["\"9\" is not a valid choice."]}`},
		{name: "language 0", body: ok(`,"language":0`), want: `{"language":["\"0\" is not a valid choice."]}`},
		{name: "language -1", body: ok(`,"language":-1`), want: `{"language":["\"-1\" is not a valid choice."]}`},
		{name: "language 3000000000", body: ok(`,"language":3000000000`), onlyField: "language"},
		{name: "language code string", body: ok(`,"language":"en"`), want: `{"language":` + notInt + `}`},
		{name: "language digit string", body: ok(`,"language":"4"`), want: `{"language":` + notInt + `}`},
		{name: "language fraction", body: ok(`,"language":1.5`), want: `{"language":` + notInt + `}`},
		{name: "language boolean", body: ok(`,"language":true`), want: `{"language":` + notInt + `}`},
		{name: "language null", body: ok(`,"language":null`), want: `{"language":` + null + `}`},
		{name: "empty object", body: `{}`, want: `{"name":` + required + `,"folder_id":` + required + `}`},
		{name: "no body", body: "", want: `{"name":` + required + `,"folder_id":` + required + `}`},
		{name: "three errors at once", body: `{"name":"","folder_id":"x","language":9}`,
			want: `{"name":` + blank + `,"folder_id":["Incorrect type. Expected pk value, received str."],"language":["\"9\" is not a valid choice."]}`},
		{name: "three other errors at once", body: `{"name":null,"folder_id":0,"language":"en"}`,
			want: `{"name":` + null + `,"folder_id":["Invalid pk \"0\" - object does not exist."],"language":` + notInt + `}`},
		{name: "body a list", body: `[]`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a list of the object", body: "[" + ok("") + "]", want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a string", body: `"text"`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{name: "body a number", body: `5`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{name: "body null", body: `null`, want: `{"non_field_errors":["No data provided"]}`},
		{name: "body not JSON", body: `{"name":`, detailPrefix: "JSON parse error - "},
		{name: "body two values", body: ok("") + ` {}`, detailPrefix: "JSON parse error - "},
		{name: "body text/plain", contentType: "text/plain", body: ok(""), code: 415, want: `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" && tt.body != "" {
				ct = "application/json"
			}
			r := serve(t, f.h, "POST", listPath, f.key, ct, tt.body)
			code := tt.code
			if code == 0 {
				code = 400
			}
			switch {
			case tt.want != "":
				expect(t, tt.name, r, code, tt.want)
			case tt.detailPrefix != "":
				expect(t, tt.name, r, code, "")
				var body map[string]string
				if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 || !strings.HasPrefix(body["detail"], tt.detailPrefix) {
					t.Errorf("body %s, want {\"detail\": %q...}", r.body, tt.detailPrefix)
				}
			default:
				expect(t, tt.name, r, code, "")
				var body map[string][]string
				if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 || len(body[tt.onlyField]) != 1 {
					t.Errorf("body %s, want one message on %s", r.body, tt.onlyField)
				}
			}
			if tree, err := f.st.Folders(t.Context(), f.acct.ID); err != nil {
				t.Fatal(err)
			} else if n := len(tree.Surveys); n != 0 {
				t.Errorf("the account has surveys after a refused create: %v", tree.Surveys)
			}
			if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
				t.Errorf("the other account's folder has surveys %v", got)
			}
		})
	}
	// The same handler still creates (the refusals cached nothing wrong).
	f.create(t, fid, "Fine")
	if got := listed(t, f.st, f.acct.ID, fid); len(got) != 1 {
		t.Errorf("folder lists %v after one create", got)
	}
}

// TestUpdate: PATCH writes what it is given and answers the detail.
func TestUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	tests := []struct {
		name, body string
		changes    map[string]any
		moved      bool
	}{
		{"name only", `{"name":"Renamed"}`, map[string]any{"name": "Renamed"}, false},
		{"name trimmed", `{"name":"  Trimmed  "}`, map[string]any{"name": "Trimmed"}, false},
		{"name 255 Persian characters", `{"name":"` + strings.Repeat("ش", 255) + `"}`, map[string]any{"name": strings.Repeat("ش", 255)}, false},
		{"language only", `{"language":4}`, map[string]any{"language": "en"}, false},
		{"language to 3", `{"language":3}`, map[string]any{"language": "ar"}, false},
		{"folder_id only", fmt.Sprintf(`{"folder_id":%d}`, b), map[string]any{"folder_id": float64(b)}, true},
		{"all three", fmt.Sprintf(`{"name":"All","language":2,"folder_id":%d}`, b), map[string]any{"name": "All", "language": "tr", "folder_id": float64(b)}, true},
		{"same folder", fmt.Sprintf(`{"folder_id":%d}`, a), nil, false},
		{"empty object", `{}`, nil, false},
		{"no body", ``, nil, false},
		{"read-only and unknown fields ignored", `{"deleted":true,"active":false,"id":1,"url_slug":"x","views":3,"color":"red"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, sid := f.create(t, a, "Original")
			r := f.do(t, "PATCH", detailPath(sid), tt.body)
			if r.code != 200 {
				t.Fatalf("PATCH: %d %s", r.code, r.body)
			}
			t.Logf("PATCH %s: %d DynamoDB calls", tt.body, r.calls)
			want := with(orig, tt.changes)
			sameDetail(t, "PATCH answer", decode(t, r.body), want)
			sameDetail(t, "GET after PATCH", f.get(t, sid), want)
			if tt.moved {
				checkListed(t, f.st, f.acct.ID, sid, b, a)
			} else {
				checkListed(t, f.st, f.acct.ID, sid, a, b)
			}
		})
	}
}

// TestUpdateInvalid: a refused PATCH answers 400 (or 415) and changes
// nothing, not even the valid fields sent with the bad one.
func TestUpdateInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	other, _ := testenv.NewAccount(t, survey.PlanFree)
	foreign := folder(t, f.st, other.ID, "Theirs")
	gone := deletedFolder(t, f.st, f.acct.ID)
	orig, sid := f.create(t, a, "Original")
	tests := []struct {
		name, contentType, body string
		code                    int
		want                    string
	}{
		{"folder_id of another account's folder", "", fmt.Sprintf(`{"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
		{"folder_id of no folder", "", fmt.Sprintf(`{"folder_id":%d}`, missingID), 400, invalidPK(missingID)},
		{"folder_id of a deleted folder", "", fmt.Sprintf(`{"folder_id":%d}`, gone), 400, invalidPK(gone)},
		{"valid fields with a foreign folder", "", fmt.Sprintf(`{"name":"Changed","language":4,"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
		{"folder_id 0", "", `{"folder_id":0}`, 400, invalidPK(0)},
		{"folder_id string", "", fmt.Sprintf(`{"folder_id":"%d"}`, b), 400, `{"folder_id":["Incorrect type. Expected pk value, received str."]}`},
		{"folder_id null", "", `{"folder_id":null}`, 400, `{"folder_id":["This field may not be null."]}`},
		{"name blank", "", `{"name":"   "}`, 400, `{"name":["This field may not be blank."]}`},
		{"name null", "", `{"name":null}`, 400, `{"name":["This field may not be null."]}`},
		{"name too long", "", `{"name":"` + strings.Repeat("a", 256) + `"}`, 400, `{"name":["Ensure this field has no more than 255 characters."]}`},
		{"name number", "", `{"name":5}`, 400, `{"name":["Not a valid string."]}`},
		{"language 9", "", `{"language":9}`, 400, `{"language":["\"9\" is not a valid choice."]}`},
		{"language en", "", `{"language":"en"}`, 400, `{"language":["A valid integer is required."]}`},
		{"language null", "", `{"language":null}`, 400, `{"language":["This field may not be null."]}`},
		{"valid name with a bad language", "", `{"name":"Changed","language":9}`, 400, `{"language":["\"9\" is not a valid choice."]}`},
		{"three errors", "", `{"name":"","language":"x","folder_id":true}`, 400,
			`{"name":["This field may not be blank."],"language":["A valid integer is required."],"folder_id":["Incorrect type. Expected pk value, received bool."]}`},
		{"body a list", "", `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{"body null", "", `null`, 400, `{"non_field_errors":["No data provided"]}`},
		{"body text/plain", "text/plain", `{"name":"Changed"}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			r := serve(t, f.h, "PATCH", detailPath(sid), f.key, ct, tt.body)
			expect(t, tt.name, r, tt.code, tt.want)
			sameDetail(t, "GET after a refused PATCH", f.get(t, sid), orig)
			checkListed(t, f.st, f.acct.ID, sid, a, b)
			if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
				t.Errorf("the other account's folder lists %v", got)
			}
		})
	}
}

// TestConcurrentUpdates: two PATCHes of different fields at once both land.
func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "A")
	orig, sid := f.create(t, fid, "Original")
	codes := map[int64]string{1: "fa", 2: "tr", 3: "ar", 4: "en"}
	for round := range 10 {
		name := fmt.Sprintf("Round %d", round)
		lang := int64(round+1)%4 + 1 // never the previous round's
		start := make(chan struct{})
		var wg sync.WaitGroup
		replies := make([]reply, 2)
		for i, body := range []string{fmt.Sprintf(`{"name":%q}`, name), fmt.Sprintf(`{"language":%d}`, lang)} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				replies[i] = f.do(t, "PATCH", detailPath(sid), body)
			}()
		}
		close(start)
		wg.Wait()
		for i, r := range replies {
			if r.code != 200 {
				t.Errorf("round %d PATCH %d: %d %s", round, i, r.code, r.body)
			}
		}
		sameDetail(t, fmt.Sprintf("round %d", round), f.get(t, sid), with(orig, map[string]any{"name": name, "language": codes[lang]}))
	}
}

// TestTrashAndRestore: DELETE moves to the trash, writes answer 409, restore
// brings it back.
func TestTrashAndRestore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	other, _ := testenv.NewAccount(t, survey.PlanPro)
	foreign := folder(t, f.st, other.ID, "Theirs")
	trashedView := map[string]any{"deleted": true, "active": false}

	t.Run("trash, refuse writes, restore", func(t *testing.T) {
		orig, sid := f.create(t, a, "Trashed")
		r := f.do(t, "DELETE", detailPath(sid), "")
		if r.code != 204 || len(r.body) != 0 {
			t.Fatalf("DELETE: %d %q", r.code, r.body)
		}
		t.Logf("DELETE: %d DynamoDB calls", r.calls)
		trashed := with(orig, trashedView)
		sameDetail(t, "GET in the trash", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)
		writes := []struct{ method, path, body string }{
			{"PATCH", detailPath(sid), `{"name":"Changed"}`},
			{"PATCH", detailPath(sid), `{"language":4}`},
			{"PATCH", detailPath(sid), `{}`},
			{"PATCH", detailPath(sid), fmt.Sprintf(`{"folder_id":%d}`, b)},
			{"PATCH", detailPath(sid), fmt.Sprintf(`{"name":"Changed","folder_id":%d}`, a)},
			{"DELETE", detailPath(sid), ""},
		}
		for _, w := range writes {
			expect(t, w.method+" "+w.body+" in the trash", f.do(t, w.method, w.path, w.body), 409, deleted)
		}
		sameDetail(t, "GET after refused writes", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)

		r = f.do(t, "POST", restorePath(sid), "")
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		t.Logf("restore: %d DynamoDB calls", r.calls)
		sameDetail(t, "restore answer", decode(t, r.body), orig)
		sameDetail(t, "GET after restore", f.get(t, sid), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)

		for _, body := range []string{"", `{}`, fmt.Sprintf(`{"folder_id":%d}`, b)} {
			r := f.do(t, "POST", restorePath(sid), body)
			if r.code != 200 {
				t.Fatalf("restore %q of a live survey: %d %s", body, r.code, r.body)
			}
			sameDetail(t, "restore of a live survey", decode(t, r.body), orig)
			checkListed(t, f.st, f.acct.ID, sid, a, b)
		}
		// Writable again.
		r = f.do(t, "PATCH", detailPath(sid), `{"name":"Back"}`)
		if r.code != 200 {
			t.Fatalf("PATCH after restore: %d %s", r.code, r.body)
		}
		sameDetail(t, "PATCH after restore", decode(t, r.body), with(orig, map[string]any{"name": "Back"}))
	})

	t.Run("restore with an empty object", func(t *testing.T) {
		orig, sid := f.create(t, a, "Empty")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		r := f.do(t, "POST", restorePath(sid), `{}`)
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		sameDetail(t, "restore answer", decode(t, r.body), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)
	})

	t.Run("restore into another folder", func(t *testing.T) {
		orig, sid := f.create(t, a, "Moved")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, b))
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		want := with(orig, map[string]any{"folder_id": float64(b)})
		sameDetail(t, "restore answer", decode(t, r.body), want)
		sameDetail(t, "GET after restore", f.get(t, sid), want)
		checkListed(t, f.st, f.acct.ID, sid, b, a)
	})

	t.Run("refused restores of a trashed survey", func(t *testing.T) {
		orig, sid := f.create(t, a, "Refused")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		gone := deletedFolder(t, f.st, f.acct.ID)
		tests := []struct {
			name, contentType, body string
			code                    int
			want                    string
		}{
			{"folder of another account", "", fmt.Sprintf(`{"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
			{"no folder", "", fmt.Sprintf(`{"folder_id":%d}`, missingID), 400, invalidPK(missingID)},
			{"deleted folder", "", fmt.Sprintf(`{"folder_id":%d}`, gone), 400, invalidPK(gone)},
			{"folder_id 0", "", `{"folder_id":0}`, 400, invalidPK(0)},
			{"folder_id string", "", fmt.Sprintf(`{"folder_id":"%d"}`, b), 400, `{"folder_id":["Incorrect type. Expected pk value, received str."]}`},
			{"folder_id null", "", `{"folder_id":null}`, 400, `{"folder_id":["This field may not be null."]}`},
			{"body a list", "", `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
			{"body text/plain", "text/plain", `{}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		}
		for _, tt := range tests {
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			expect(t, tt.name, serve(t, f.h, "POST", restorePath(sid), f.key, ct, tt.body), tt.code, tt.want)
		}
		sameDetail(t, "GET after refused restores", f.get(t, sid), with(orig, trashedView))
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)
		if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
			t.Errorf("the other account's folder lists %v", got)
		}
	})

	// A survey not in the trash: a folder_id that names no live folder of
	// the account is refused exactly as for a trashed one, not ignored.
	t.Run("refused restores of a live survey", func(t *testing.T) {
		orig, sid := f.create(t, a, "Live")
		gone := deletedFolder(t, f.st, f.acct.ID)
		tests := []struct {
			name, body string
			want       string
		}{
			{"folder of another account", fmt.Sprintf(`{"folder_id":%d}`, foreign), invalidPK(foreign)},
			{"no folder", fmt.Sprintf(`{"folder_id":%d}`, missingID), invalidPK(missingID)},
			{"deleted folder", fmt.Sprintf(`{"folder_id":%d}`, gone), invalidPK(gone)},
			{"folder_id 0", `{"folder_id":0}`, invalidPK(0)},
			{"folder_id null", `{"folder_id":null}`, `{"folder_id":["This field may not be null."]}`},
		}
		for _, tt := range tests {
			expect(t, tt.name, f.do(t, "POST", restorePath(sid), tt.body), 400, tt.want)
		}
		sameDetail(t, "GET after refused restores", f.get(t, sid), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)
		// Its own folder and another live one of the account: 200, unchanged.
		for _, fid := range []int64{a, b} {
			r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, fid))
			if r.code != 200 {
				t.Fatalf("restore into %d of a live survey: %d %s", fid, r.code, r.body)
			}
			sameDetail(t, "restore of a live survey", decode(t, r.body), orig)
		}
		checkListed(t, f.st, f.acct.ID, sid, a, b)
	})

	t.Run("folder deleted", func(t *testing.T) {
		c := folder(t, f.st, f.acct.ID, "C")
		orig, sid := f.create(t, c, "Orphan")
		if err := f.st.DeleteFolder(t.Context(), f.acct.ID, c); err != nil {
			t.Fatal(err)
		}
		trashed := with(orig, trashedView)
		sameDetail(t, "GET after its folder was deleted", f.get(t, sid), trashed)
		expect(t, "PATCH", f.do(t, "PATCH", detailPath(sid), `{"name":"Changed"}`), 409, deleted)
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 409, deleted)
		expect(t, "restore without body", f.do(t, "POST", restorePath(sid), ""), 409, folderGone)
		expect(t, "restore with {}", f.do(t, "POST", restorePath(sid), `{}`), 409, folderGone)
		expect(t, "restore into the deleted folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, c)), 400, invalidPK(c))
		expect(t, "restore into no folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, missingID)), 400, invalidPK(missingID))
		expect(t, "restore into a foreign folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, foreign)), 400, invalidPK(foreign))
		expect(t, "restore with a list", f.do(t, "POST", restorePath(sid), `[]`), 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`)
		sameDetail(t, "GET after refused restores", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)

		r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, b))
		if r.code != 200 {
			t.Fatalf("restore into B: %d %s", r.code, r.body)
		}
		want := with(orig, map[string]any{"folder_id": float64(b)})
		sameDetail(t, "restore answer", decode(t, r.body), want)
		sameDetail(t, "GET after restore", f.get(t, sid), want)
		checkListed(t, f.st, f.acct.ID, sid, b, a)
	})
}

// TestClosedAndActive: closed from the expiration date (UTC) on, even
// before the sweep; active only when not stopped, closed or deleted.
func TestClosedAndActive(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)
	dates := []struct {
		name, date string
		closed     bool
	}{
		{"yesterday", "2024-03-09", true},
		{"today", "2024-03-10", true},
		{"tomorrow", "2024-03-11", false},
		{"none", "", false},
		{"long ago", "1999-12-31", true},
		{"next year", "2025-01-01", false},
	}
	for _, d := range dates {
		for _, stopped := range []bool{false, true} {
			for _, del := range []bool{false, true} {
				name := fmt.Sprintf("expires %s, stopped %v, deleted %v", d.name, stopped, del)
				t.Run(name, func(t *testing.T) {
					sv := survey.Survey{ID: 1, Name: "S", Language: 1, ExpirationDate: d.date, IsStopped: stopped, Deleted: del, Created: now}
					wantActive := !stopped && !d.closed && !del
					if got := sv.Closed(now); got != d.closed {
						t.Errorf("Closed = %v, want %v", got, d.closed)
					}
					if got := sv.Active(now); got != wantActive {
						t.Errorf("Active = %v, want %v", got, wantActive)
					}
					if got := sv.Summary(now).Active; got != wantActive {
						t.Errorf("Summary active = %v, want %v", got, wantActive)
					}
				})
			}
		}
	}
	// "Today" is the UTC day, whatever the clock's zone.
	tehran := time.FixedZone("IRST", 3*3600+1800)
	zoned := []struct {
		name   string
		now    time.Time
		date   string
		closed bool
	}{
		{"local day ahead of UTC", time.Date(2024, 3, 10, 2, 0, 0, 0, tehran), "2024-03-10", false},
		{"local day ahead of UTC, UTC today", time.Date(2024, 3, 10, 2, 0, 0, 0, tehran), "2024-03-09", true},
		{"last nanosecond of the UTC day before", time.Date(2024, 3, 9, 23, 59, 59, 999999999, time.UTC), "2024-03-10", false},
		{"first instant of the UTC day", time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), "2024-03-10", true},
	}
	for _, z := range zoned {
		sv := survey.Survey{ExpirationDate: z.date}
		if got := sv.Closed(z.now); got != z.closed {
			t.Errorf("%s: Closed(%s) with %s = %v, want %v", z.name, z.now, z.date, got, z.closed)
		}
		if got := sv.Active(z.now); got != !z.closed {
			t.Errorf("%s: Active = %v, want %v", z.name, got, !z.closed)
		}
	}
}

// TestPathIDs: ids that cannot name a survey of the account answer 404, the
// same for another account's survey, which stays unchanged.
func TestPathIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	mine := folder(t, f.st, f.acct.ID, "Mine")
	_, ownSID := f.create(t, mine, "Own")
	other, otherKey := testenv.NewAccount(t, survey.PlanEnterprise)
	theirFolder := folder(t, f.st, other.ID, "Theirs")
	them := &fixture{st: f.st, h: f.h, acct: other, key: otherKey}
	theirs, theirSID := them.create(t, theirFolder, "Theirs")
	malformed := []string{"abc", "0", "-1", "99999999999", "2147483648", "1.5", "1e3", "+1", "0x10", "%20"}
	ids := append(slices.Clone(malformed), fmt.Sprint(missingID), fmt.Sprint(theirSID))
	requests := []struct {
		method, suffix, body string
	}{
		{"GET", "", ""},
		{"PATCH", "", `{"name":"Hijacked"}`},
		{"PATCH", "", fmt.Sprintf(`{"folder_id":%d}`, mine)},
		{"PATCH", "", fmt.Sprintf(`{"folder_id":%d}`, theirFolder)},
		{"PATCH", "", `{}`},
		{"DELETE", "", ""},
		{"POST", "restore/", ""},
		{"POST", "restore/", fmt.Sprintf(`{"folder_id":%d}`, mine)},
	}
	for _, id := range ids {
		for _, rq := range requests {
			path := detailPath(id) + rq.suffix
			r := f.do(t, rq.method, path, rq.body)
			expect(t, rq.method+" "+path+" "+rq.body, r, 404, notFound)
			if slices.Contains(malformed, id) && r.calls != 0 {
				t.Errorf("%s %s: %d DynamoDB calls for an id that cannot exist, want 0", rq.method, path, r.calls)
			}
		}
	}
	// A trashed foreign survey answers 404 too, not 409.
	expect(t, "their DELETE", them.do(t, "DELETE", detailPath(theirSID), ""), 204, "")
	for _, rq := range requests {
		path := detailPath(theirSID) + rq.suffix
		expect(t, "trashed: "+rq.method+" "+path+" "+rq.body, f.do(t, rq.method, path, rq.body), 404, notFound)
	}
	expect(t, "their restore", them.do(t, "POST", restorePath(theirSID), ""), 200, "")
	sameDetail(t, "their survey afterwards", them.get(t, theirSID), theirs)
	checkListed(t, f.st, other.ID, theirSID, theirFolder)
	if got := listed(t, f.st, f.acct.ID, mine); !slices.Equal(got, []int64{ownSID}) {
		t.Errorf("my folder lists %v, want only %d", got, ownSID)
	}
	g := f.do(t, "GET", detailPath(ownSID), "")
	if g.code != 200 || g.calls != 1 {
		t.Errorf("GET own survey: %d in %d calls", g.code, g.calls)
	}
}

// TestMethodsAndAuth: 405 with DRF's Allow, 401 without a key.
func TestMethodsAndAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "A")
	orig, sid := f.create(t, fid, "Guarded")
	const (
		listAllow    = "POST, OPTIONS"
		detailAllow  = "GET, PATCH, DELETE, HEAD, OPTIONS"
		restoreAllow = "POST, OPTIONS"
	)
	methods := []struct {
		method, path, allow string
	}{
		{"GET", listPath, listAllow},
		{"GET", strings.TrimSuffix(listPath, "/"), listAllow},
		{"PUT", listPath, listAllow},
		{"DELETE", listPath, listAllow},
		{"PUT", detailPath(sid), detailAllow},
		{"POST", detailPath(sid), detailAllow},
		{"GET", restorePath(sid), restoreAllow},
		{"PUT", restorePath(sid), restoreAllow},
		{"DELETE", restorePath(sid), restoreAllow},
	}
	for _, m := range methods {
		t.Run(m.method+" "+m.path, func(t *testing.T) {
			r := f.do(t, m.method, m.path, "")
			expect(t, m.method, r, 405, fmt.Sprintf(`{"detail":"Method \"%s\" not allowed."}`, m.method))
			if got := r.header.Get("Allow"); got != m.allow {
				t.Errorf("Allow = %q, want %q", got, m.allow)
			}
		})
	}
	if r := f.do(t, "GET", detailPath(sid), ""); r.header.Get("Allow") != detailAllow {
		t.Errorf("GET detail: Allow = %q", r.header.Get("Allow"))
	}

	const noCreds = `{"detail":"Authentication credentials were not provided."}`
	const badKey = `{"detail":"Invalid API key."}`
	auth := []struct {
		name, method, path, header, body, want string
	}{
		{"create without a key", "POST", listPath, "", fmt.Sprintf(`{"name":"Sneaky","folder_id":%d}`, fid), noCreds},
		{"GET without a key", "GET", detailPath(sid), "", "", noCreds},
		{"PATCH without a key", "PATCH", detailPath(sid), "", `{"name":"Sneaky"}`, noCreds},
		{"DELETE without a key", "DELETE", detailPath(sid), "", "", noCreds},
		{"restore without a key", "POST", restorePath(sid), "", "", noCreds},
		{"405 without a key is 401 first", "GET", listPath, "", "", noCreds},
		{"bad id without a key is 401 first", "GET", detailPath("abc"), "", "", noCreds},
		{"another scheme", "DELETE", detailPath(sid), "Bearer " + f.key, "", noCreds},
		{"unknown key", "DELETE", detailPath(sid), "API-Key " + survey.NewKey(), "", badKey},
		{"empty key", "PATCH", detailPath(sid), "API-Key ", `{"name":"Sneaky"}`, badKey},
	}
	for _, a := range auth {
		t.Run(a.name, func(t *testing.T) {
			req := httptest.NewRequest(a.method, a.path, strings.NewReader(a.body))
			if a.header != "" {
				req.Header.Set("Authorization", a.header)
			}
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			expect(t, a.name, reply{code: rec.Code, body: rec.Body.Bytes()}, 401, a.want)
			if got := rec.Header().Get("WWW-Authenticate"); got != "API-Key" {
				t.Errorf("WWW-Authenticate = %q", got)
			}
		})
	}
	sameDetail(t, "survey after refused requests", f.get(t, sid), orig)
	if got := listed(t, f.st, f.acct.ID, fid); !slices.Equal(got, []int64{sid}) {
		t.Errorf("folder lists %v, want only %d", got, sid)
	}
}
