package elements_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/elements"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	notFound = `{"detail":"Not found."}`
	deleted  = `{"detail":"Survey is deleted."}`
	// missingID is a valid id that no survey or element ever gets.
	missingID   = math.MaxInt32
	badDuration = "Duration has wrong format. Use one of these formats instead: HH:MM:SS (hours 00-99, minutes and seconds 00-59)."
	badURL      = "Enter a valid URL."
	notString   = "Not a valid string."
	notInt      = "A valid integer is required."
	notBool     = "Must be a valid boolean."
	notNull     = "This field may not be null."
	required    = "This field is required."
	blank       = "This field may not be blank."
)

func listPath(sid any) string      { return fmt.Sprintf("/api/v2/surveys/%v/questions/", sid) }
func itemPath(sid, eid any) string { return fmt.Sprintf("/api/v2/surveys/%v/questions/%v/", sid, eid) }

func tooLong(n int) string {
	return fmt.Sprintf("Ensure this field has no more than %d characters.", n)
}

func invalidPK(id int64) string { return fmt.Sprintf("Invalid pk \"%d\" - object does not exist.", id) }

// fieldErr is a DRF body with one message on each field given in pairs.
func fieldErr(kv ...string) string {
	m := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = append(m[kv[i]], kv[i+1])
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// reply is one answer of the handler and the DynamoDB calls it made.
type reply struct {
	code   int
	body   []byte
	header http.Header
	calls  int
	ops    map[string]int
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
	return reply{code: rec.Code, body: rec.Body.Bytes(), header: rec.Header(), calls: calls.DynamoDB(), ops: calls.Ops()}
}

// fixture is one account of its own, its key, a folder, and the group's
// handler.
type fixture struct {
	st   *store.Store
	h    http.Handler
	acct survey.Account
	key  string
	fid  int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := testenv.Store(t)
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	f := &fixture{st: st, h: elements.New(api.NewAuthenticator(st), st), acct: acct, key: key}
	// Warm the authenticator: later counts are the handler's own calls.
	if r := f.do(t, "GET", listPath("warm"), ""); r.code != 404 {
		t.Fatalf("warm-up: %d %s", r.code, r.body)
	}
	fo, err := st.CreateFolder(t.Context(), acct.ID, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.fid = fo.ID
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

// newSurvey creates a live survey of the account through the store.
func (f *fixture) newSurvey(t *testing.T) int64 {
	t.Helper()
	sv, err := f.st.CreateSurvey(t.Context(), survey.Survey{AccountID: f.acct.ID, FolderID: f.fid, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	return sv.ID
}

// create POSTs a body that must answer 201 and returns the element.
func (f *fixture) create(t *testing.T, sid int64, body string) map[string]any {
	t.Helper()
	r := f.do(t, "POST", listPath(sid), body)
	if r.code != 201 {
		t.Fatalf("POST %s: %d %s", body, r.code, r.body)
	}
	return decode(t, r.body)
}

// add creates an element of a type (extra is more JSON fields, starting
// with a comma) and returns its id.
func (f *fixture) add(t *testing.T, sid int64, typ int, extra string) int64 {
	t.Helper()
	return idOf(t, f.create(t, sid, fmt.Sprintf(`{"title":"E","type":%d%s}`, typ, extra)))
}

// get answers one element, which must be 200.
func (f *fixture) get(t *testing.T, sid, eid int64) map[string]any {
	t.Helper()
	r := f.do(t, "GET", itemPath(sid, eid), "")
	if r.code != 200 {
		t.Fatalf("GET %d: %d %s", eid, r.code, r.body)
	}
	return decode(t, r.body)
}

// state reads everything stored under the survey.
func (f *fixture) state(t *testing.T, sid int64) store.SurveyCollection {
	t.Helper()
	c, err := f.st.SurveyCollection(t.Context(), f.acct.ID, sid)
	if err != nil {
		t.Fatalf("survey %d: %v", sid, err)
	}
	return c
}

// detail is the survey detail the surveys group would answer.
func (f *fixture) detail(t *testing.T, sid int64) survey.SurveyDetail {
	t.Helper()
	c := f.state(t, sid)
	return c.Survey.Detail(time.Now(), f.acct.Profile(), c.Layout, c.Elements)
}

// lists reads the element list through the API, checks that it is the
// welcome pages, then the questions, then the appreciation pages, each
// with orders 1..n and no id twice, that it agrees with the stored layout,
// and returns the three lists.
func (f *fixture) lists(t *testing.T, sid int64) (w, q, a []int64) {
	t.Helper()
	r := f.do(t, "GET", listPath(sid), "")
	if r.code != 200 {
		t.Fatalf("GET list: %d %s", r.code, r.body)
	}
	var items []map[string]any
	if err := json.Unmarshal(r.body, &items); err != nil {
		t.Fatalf("list %s: %v", r.body, err)
	}
	seen := map[int64]bool{}
	stage := 0
	for _, it := range items {
		id := idOf(t, it)
		if seen[id] {
			t.Errorf("id %d listed twice", id)
		}
		seen[id] = true
		typ := int(num(t, it["type"]))
		s, dst := 1, &q
		switch typ {
		case 1:
			s, dst = 0, &w
		case 9:
			s, dst = 2, &a
		}
		if s < stage {
			t.Errorf("element %d of type %d listed after a later list: %s", id, typ, r.body)
		}
		stage = s
		*dst = append(*dst, id)
		if got := int(num(t, it["order"])); got != len(*dst) {
			t.Errorf("element %d has order %d, want %d (dense 1..n)", id, got, len(*dst))
		}
	}
	c := f.state(t, sid)
	for _, pair := range []struct {
		name      string
		api, disk []int64
	}{{"welcome", w, c.Layout.Welcome}, {"questions", q, c.Layout.Questions}, {"appreciations", a, c.Layout.Appreciations}} {
		if !slices.Equal(pair.api, pair.disk) && (len(pair.api) > 0 || len(pair.disk) > 0) {
			t.Errorf("%s listed %v, stored layout %v", pair.name, pair.api, pair.disk)
		}
	}
	checkStored(t, c)
	return w, q, a
}

// checkStored asserts the stored layout and elements agree: every element
// placed once, in the list of its type, groups of type 8, members of
// groups, and the survey's question count.
func checkStored(t *testing.T, c store.SurveyCollection) {
	t.Helper()
	l := c.Layout
	placed := map[int64]bool{}
	for _, list := range []struct {
		ids   []int64
		which survey.List
	}{{l.Welcome, survey.ListWelcome}, {l.Questions, survey.ListQuestions}, {l.Appreciations, survey.ListAppreciations}} {
		for _, id := range list.ids {
			if placed[id] {
				t.Errorf("element %d placed twice: %+v", id, l)
			}
			placed[id] = true
			e, ok := c.Elements[id]
			if !ok {
				t.Errorf("layout places %d, which is not stored", id)
				continue
			}
			if e.Type.List() != list.which {
				t.Errorf("element %d of type %d is in list %d", id, e.Type, list.which)
			}
		}
	}
	for id := range c.Elements {
		if !placed[id] {
			t.Errorf("element %d is stored but not placed", id)
		}
	}
	for _, g := range l.Groups {
		if c.Elements[g].Type != survey.TypeGroup || !slices.Contains(l.Questions, g) {
			t.Errorf("group %d: type %d, in questions %v", g, c.Elements[g].Type, slices.Contains(l.Questions, g))
		}
	}
	for m, g := range l.Members {
		if !l.IsGroup(g) || !slices.Contains(l.Questions, m) {
			t.Errorf("member %d of %d: not a question or not a group", m, g)
		}
	}
	if c.Survey.QuestionCount != l.QuestionCount() {
		t.Errorf("the survey's question_count is %d, the layout's %d", c.Survey.QuestionCount, l.QuestionCount())
	}
}

// unchanged asserts that nothing under the survey changed.
func unchanged(t *testing.T, what string, before, after store.SurveyCollection) {
	t.Helper()
	if !reflect.DeepEqual(before.Layout, after.Layout) {
		t.Errorf("%s changed the layout:\n got %+v\nwant %+v", what, after.Layout, before.Layout)
	}
	if !reflect.DeepEqual(before.Elements, after.Elements) {
		t.Errorf("%s changed the elements:\n got %+v\nwant %+v", what, after.Elements, before.Elements)
	}
	if before.Survey.QuestionCount != after.Survey.QuestionCount || before.Survey.Deleted != after.Survey.Deleted {
		t.Errorf("%s changed the survey: %+v, was %+v", what, after.Survey, before.Survey)
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(float64)
	if !ok || n != math.Trunc(n) {
		t.Fatalf("%#v is not an integer", v)
	}
	return n
}

func idOf(t *testing.T, d map[string]any) int64 {
	t.Helper()
	id := num(t, d["id"])
	if id < 1 || id > math.MaxInt32 {
		t.Fatalf("id = %v", id)
	}
	return int64(id)
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

func sameMap(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// element is the API's view of an element with every default of the
// contract, changed by changes.
func element(id int64, typ, order int, changes map[string]any) map[string]any {
	m := map[string]any{
		"id": float64(id), "title": "E", "html_title": "", "type": float64(typ), "image_video_active": false,
		"image_or_video": 1.0, "image_path": nil, "image_name": "", "video_url": nil, "show_charts": true,
		"description_text_active": false, "description_text": "", "html_description_text": "", "related_group": nil,
		"question_number_is_hidden": false, "responding_duration": nil, "title_active": true,
		"description_active": false, "description": "", "enter_text": "",
		"allow_multiple_select": false, "max_selectable_choices": 0.0, "min_selectable_choices": 0.0,
		"vertical_choices": false, "answer_required": false, "randomize": false, "correct_choice": nil,
		"choices": []any{}, "rows": []any{}, "columns": []any{}, "scale_min": 0.0, "scale_max": 10.0,
		"left_label": nil, "right_label": nil, "rating_max": 5.0, "max_length": 5000.0,
		"order": float64(order),
	}
	if typ == 9 {
		maps.Copy(m, map[string]any{
			"share_link_active": false, "is_default": false, "link_active": false, "link_button_text": "",
			"link_type": 1.0, "link": nil, "reload_active": false, "reload_time": 0.0,
		})
	}
	maps.Copy(m, changes)
	return m
}

// pages lists the ids of the survey detail's question pages.
func pages(d survey.SurveyDetail) [][]int64 {
	out := [][]int64{}
	for _, page := range d.Questions {
		ids := []int64{}
		for _, v := range page {
			ids = append(ids, v.ID)
		}
		out = append(out, ids)
	}
	return out
}

func viewIDs(vs []survey.ElementView) []int64 {
	out := []int64{}
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}

func persian(n int) string { return strings.Repeat("س", n) }

// paddedURL is a valid https URL of exactly n characters.
func paddedURL(n int) string {
	const base = "https://example.com/"
	return base + strings.Repeat("a", n-len(base))
}

// TestCreateDefaults: 201 with every response field of the spec and the
// contract, the defaults, and the appreciation fields on type 9 only.
func TestCreateDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	tests := []struct {
		typ, order int
	}{{2, 1}, {9, 1}, {1, 1}, {8, 2}, {13, 3}, {3, 4}, {9, 2}}
	for _, tt := range tests {
		t.Run(fmt.Sprint("type ", tt.typ), func(t *testing.T) {
			r := f.do(t, "POST", listPath(sid), fmt.Sprintf(`{"title":"E","type":%d}`, tt.typ))
			if r.code != 201 {
				t.Fatalf("POST: %d %s", r.code, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			got := decode(t, r.body)
			id := idOf(t, got)
			want := element(id, tt.typ, tt.order, nil)
			sameMap(t, "201 body", got, want)
			if _, has := got["share_link_active"]; has != (tt.typ == 9) {
				t.Errorf("type %d: appreciation fields present = %v", tt.typ, has)
			}
			t.Logf("create type %d: %d DynamoDB calls %v", tt.typ, r.calls, r.ops)
			g := f.do(t, "GET", itemPath(sid, id), "")
			expect(t, "GET after create", g, 200, string(r.body))
			if g.calls != 1 {
				t.Errorf("GET one element took %d DynamoDB calls, want 1 (%v)", g.calls, g.ops)
			}
		})
	}
	f.lists(t, sid)
}

// TestCreateEcho: every create field given is answered as given.
func TestCreateEcho(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	first := f.add(t, sid, 2, "")
	group := f.add(t, sid, 8, "")
	last := f.add(t, sid, 2, "")
	body := fmt.Sprintf(`{"title":"Title","html_title":"<b>Title</b>","type":3,"image_video_active":true,"image_or_video":2,
		"image_path":"https://media.example.com/a.png","image_name":"a.png","video_url":"http://video.example.com/v?id=1",
		"show_charts":false,"description_text_active":true,"description_text":"dt","html_description_text":"<p>dt</p>",
		"related_group":%d,"question_number_is_hidden":true,"prior_question":%d,"responding_duration":"01:02:03",
		"title_active":false,"description_active":true,"description":"d","enter_text":"Go"}`, group, first)
	got := f.create(t, sid, body)
	id := idOf(t, got)
	want := element(id, 3, 2, map[string]any{
		"title": "Title", "html_title": "<b>Title</b>", "image_video_active": true, "image_or_video": 2.0,
		"image_path": "https://media.example.com/a.png", "image_name": "a.png", "video_url": "http://video.example.com/v?id=1",
		"show_charts": false, "description_text_active": true, "description_text": "dt", "html_description_text": "<p>dt</p>",
		"related_group": float64(group), "question_number_is_hidden": true, "responding_duration": "01:02:03",
		"title_active": false, "description_active": true, "description": "d", "enter_text": "Go",
	})
	sameMap(t, "201 body", got, want)
	if _, has := got["prior_question"]; has {
		t.Error("the answer echoes prior_question")
	}
	sameMap(t, "GET", f.get(t, sid, id), want)
	_, q, _ := f.lists(t, sid)
	if want := []int64{first, id, group, last}; !slices.Equal(q, want) {
		t.Errorf("questions %v, want %v", q, want)
	}
	// A member placed before its group still shows on the group's page.
	if got := pages(f.detail(t, sid)); !reflect.DeepEqual(got, [][]int64{{first}, {group, id}, {last}}) {
		t.Errorf("pages %v", got)
	}
}

// TestCreateValid: limits at their maximum, boundary types and choices,
// URLs, durations, HTML kept verbatim, unknown fields ignored.
func TestCreateValid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	script := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	var many strings.Builder
	many.WriteString(`{"title":"Many","type":2`)
	for i := range 10000 {
		fmt.Fprintf(&many, `,"unknown_%d":%d`, i, i)
	}
	many.WriteString("}")
	tests := []struct {
		name, body string
		echo       map[string]any // fields of the answer
	}{
		{"title 1500 Persian characters", `{"title":"` + persian(1500) + `","type":2}`, map[string]any{"title": persian(1500)}},
		{"title trimmed", `{"title":"  Padded \t","type":2}`, map[string]any{"title": "Padded"}},
		{"html_title 3000", `{"title":"E","type":2,"html_title":"` + persian(3000) + `"}`, map[string]any{"html_title": persian(3000)}},
		{"description_text 2500", `{"title":"E","type":2,"description_text":"` + persian(2500) + `"}`, map[string]any{"description_text": persian(2500)}},
		{"description 2500", `{"title":"E","type":2,"description":"` + persian(2500) + `"}`, map[string]any{"description": persian(2500)}},
		{"html_description_text 5000", `{"title":"E","type":2,"html_description_text":"` + persian(5000) + `"}`, map[string]any{"html_description_text": persian(5000)}},
		{"image_name 500", `{"title":"E","type":2,"image_name":"` + persian(500) + `"}`, map[string]any{"image_name": persian(500)}},
		{"video_url 500", `{"title":"E","type":2,"video_url":"` + paddedURL(500) + `"}`, map[string]any{"video_url": paddedURL(500)}},
		{"enter_text 80 Persian characters", `{"title":"E","type":2,"enter_text":"` + persian(80) + `"}`, map[string]any{"enter_text": persian(80)}},
		{"type 1", `{"title":"E","type":1}`, map[string]any{"type": 1.0}},
		{"type 13", `{"title":"E","type":13}`, map[string]any{"type": 13.0}},
		{"type 2.0 is an integer", `{"title":"E","type":2.0}`, map[string]any{"type": 2.0}},
		{"image_or_video 1", `{"title":"E","type":2,"image_or_video":1}`, map[string]any{"image_or_video": 1.0}},
		{"image_or_video 2", `{"title":"E","type":2,"image_or_video":2}`, map[string]any{"image_or_video": 2.0}},
		{"image_path http", `{"title":"E","type":2,"image_path":"http://media.example.com/a.png"}`, map[string]any{"image_path": "http://media.example.com/a.png"}},
		{"image_path https", `{"title":"E","type":2,"image_path":"https://media.example.com/a%20b.png?x=1#y"}`, map[string]any{"image_path": "https://media.example.com/a%20b.png?x=1#y"}},
		{"image_path empty is null", `{"title":"E","type":2,"image_path":""}`, map[string]any{"image_path": nil}},
		{"image_path null", `{"title":"E","type":2,"image_path":null,"video_url":null}`, map[string]any{"image_path": nil, "video_url": nil}},
		{"responding_duration 00:00:00", `{"title":"E","type":2,"responding_duration":"00:00:00"}`, map[string]any{"responding_duration": "00:00:00"}},
		{"responding_duration 99:59:59", `{"title":"E","type":2,"responding_duration":"99:59:59"}`, map[string]any{"responding_duration": "99:59:59"}},
		{"responding_duration 24:59:59", `{"title":"E","type":2,"responding_duration":"24:59:59"}`, map[string]any{"responding_duration": "24:59:59"}},
		{"responding_duration null", `{"title":"E","type":2,"responding_duration":null}`, map[string]any{"responding_duration": nil}},
		{"HTML verbatim", `{"title":` + jsonString(script) + `,"type":2,"html_title":` + jsonString(script) + `,"description_text":` + jsonString(script) +
			`,"html_description_text":` + jsonString(`<p onclick="x()">a &amp; b</p>`+script) + `,"description":` + jsonString(script) + `,"enter_text":"<b>Go</b>"}`,
			map[string]any{"title": script, "html_title": script, "description_text": script, "html_description_text": `<p onclick="x()">a &amp; b</p>` + script, "description": script, "enter_text": "<b>Go</b>"}},
		{"null placement is absent", `{"title":"E","type":2,"prior_question":null,"related_group":null}`, map[string]any{"related_group": nil}},
		{"read-only and unknown fields ignored", `{"title":"E","type":2,"id":5,"order":99,"color":"red"}`, map[string]any{"correct_choice": nil}},
		{"10,000 unknown fields", many.String(), map[string]any{"title": "Many"}},
	}
	for _, ct := range []string{"", "application/json; charset=utf-8", "application/vnd.api+json"} {
		r := serve(t, f.h, "POST", listPath(sid), f.key, ct, `{"title":"CT","type":2}`)
		if r.code != 201 {
			t.Errorf("POST with Content-Type %q: %d %s", ct, r.code, r.body)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, q0, _ := f.lists(t, sid)
			r := f.do(t, "POST", listPath(sid), tt.body)
			if r.code != 201 {
				t.Fatalf("POST: %d %.300s", r.code, r.body)
			}
			got := decode(t, r.body)
			id := idOf(t, got)
			for k, v := range tt.echo {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s = %.80q, want %.80q", k, got[k], v)
				}
			}
			if strings.Contains(tt.name, "HTML") && !bytes.Contains(r.body, []byte(`<script>alert(\"x\")</script>`)) {
				t.Errorf("the answer escapes or alters the HTML: %s", r.body)
			}
			if len(got) != 37 && got["type"] != 9.0 {
				t.Errorf("the answer has %d fields, want 37", len(got))
			}
			sameMap(t, "GET after create", f.get(t, sid, id), got)
			if got["type"] == 2.0 {
				_, q1, _ := f.lists(t, sid)
				if want := append(slices.Clone(q0), id); !slices.Equal(q1, want) {
					t.Errorf("questions %v, want %v", q1, want)
				}
			}
		})
	}
}

// jsonString quotes a string as JSON.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(b.String())
}

// TestCreateInvalid: each refused create answers DRF's body and writes
// nothing.
func TestCreateInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	other := f.newSurvey(t)
	welcome := f.add(t, sid, 1, "")
	question := f.add(t, sid, 2, "")
	group := f.add(t, sid, 8, "")
	thanks := f.add(t, sid, 9, "")
	elsewhere := f.add(t, other, 2, "")
	otherGroup := f.add(t, other, 8, "")
	ok := func(extra string) string { return `{"title":"E","type":2` + extra + `}` }
	field := func(name, value string) string { return ok(`,"` + name + `":` + value) }
	incorrect := func(kind string) string { return "Incorrect type. Expected pk value, received " + kind + "." }
	tests := []struct {
		name, contentType, body string
		code                    int
		want                    string // exact body
		detailPrefix            string // or {"detail": "<prefix>..."}
	}{
		{name: "empty object", body: `{}`, want: fieldErr("title", required, "type", required)},
		{name: "no body", body: "", want: fieldErr("title", required, "type", required)},
		{name: "title missing", body: `{"type":2}`, want: fieldErr("title", required)},
		{name: "type missing", body: `{"title":"E"}`, want: fieldErr("type", required)},
		{name: "title empty", body: `{"title":"","type":2}`, want: fieldErr("title", blank)},
		{name: "title whitespace", body: `{"title":" \t\n ","type":2}`, want: fieldErr("title", blank)},
		{name: "title null", body: `{"title":null,"type":2}`, want: fieldErr("title", notNull)},
		{name: "title 1501", body: `{"title":"` + persian(1501) + `","type":2}`, want: fieldErr("title", tooLong(1500))},
		{name: "html_title 3001", body: field("html_title", `"`+persian(3001)+`"`), want: fieldErr("html_title", tooLong(3000))},
		{name: "description_text 2501", body: field("description_text", `"`+persian(2501)+`"`), want: fieldErr("description_text", tooLong(2500))},
		{name: "description 2501", body: field("description", `"`+persian(2501)+`"`), want: fieldErr("description", tooLong(2500))},
		{name: "html_description_text 5001", body: field("html_description_text", `"`+persian(5001)+`"`), want: fieldErr("html_description_text", tooLong(5000))},
		{name: "image_name 501", body: field("image_name", `"`+persian(501)+`"`), want: fieldErr("image_name", tooLong(500))},
		{name: "video_url 501", body: field("video_url", `"`+paddedURL(501)+`"`), want: fieldErr("video_url", tooLong(500))},
		{name: "enter_text 81 Persian characters", body: field("enter_text", `"`+persian(81)+`"`), want: fieldErr("enter_text", tooLong(80))},
		{name: "type 0", body: `{"title":"E","type":0}`, want: fieldErr("type", "Ensure this value is greater than or equal to 1.")},
		{name: "type 14", body: `{"title":"E","type":14}`, want: fieldErr("type", "Ensure this value is less than or equal to 13.")},
		{name: "type -1", body: `{"title":"E","type":-1}`, want: fieldErr("type", "Ensure this value is greater than or equal to 1.")},
		{name: "type string", body: `{"title":"E","type":"2"}`, want: fieldErr("type", notInt)},
		{name: "type fraction", body: `{"title":"E","type":2.5}`, want: fieldErr("type", notInt)},
		{name: "type boolean", body: `{"title":"E","type":true}`, want: fieldErr("type", notInt)},
		{name: "type null", body: `{"title":"E","type":null}`, want: fieldErr("type", notNull)},
		{name: "image_or_video 0", body: field("image_or_video", "0"), want: fieldErr("image_or_video", `"0" is not a valid choice.`)},
		{name: "image_or_video 3", body: field("image_or_video", "3"), want: fieldErr("image_or_video", `"3" is not a valid choice.`)},
		{name: "image_or_video string", body: field("image_or_video", `"1"`), want: fieldErr("image_or_video", notInt)},
		{name: "image_or_video null", body: field("image_or_video", `null`), want: fieldErr("image_or_video", notNull)},
		{name: "image_path ftp", body: field("image_path", `"ftp://x"`), want: fieldErr("image_path", badURL)},
		{name: "image_path relative", body: field("image_path", `"/relative"`), want: fieldErr("image_path", badURL)},
		{name: "image_path javascript", body: field("image_path", `"javascript:alert(1)"`), want: fieldErr("image_path", badURL)},
		{name: "image_path no host", body: field("image_path", `"http://"`), want: fieldErr("image_path", badURL)},
		{name: "image_path with a space", body: field("image_path", `"http:// x"`), want: fieldErr("image_path", badURL)},
		{name: "image_path with credentials", body: field("image_path", `"https://user:pw@host"`), want: fieldErr("image_path", badURL)},
		{name: "video_url ftp", body: field("video_url", `"ftp://x"`), want: fieldErr("video_url", badURL)},
		{name: "video_url relative", body: field("video_url", `"/relative"`), want: fieldErr("video_url", badURL)},
		{name: "video_url javascript", body: field("video_url", `"javascript:alert(1)"`), want: fieldErr("video_url", badURL)},
		{name: "responding_duration 24:60:00", body: field("responding_duration", `"24:60:00"`), want: fieldErr("responding_duration", badDuration)},
		{name: "responding_duration 1:2:3", body: field("responding_duration", `"1:2:3"`), want: fieldErr("responding_duration", badDuration)},
		{name: "responding_duration -01:00:00", body: field("responding_duration", `"-01:00:00"`), want: fieldErr("responding_duration", badDuration)},
		{name: "responding_duration 00:00:60", body: field("responding_duration", `"00:00:60"`), want: fieldErr("responding_duration", badDuration)},
		{name: "responding_duration 100:00:00", body: field("responding_duration", `"100:00:00"`), want: fieldErr("responding_duration", badDuration)},
		{name: "responding_duration number", body: field("responding_duration", `60`), want: fieldErr("responding_duration", notString)},
		{name: "title number", body: `{"title":5,"type":2}`, want: fieldErr("title", notString)},
		{name: "html_title number", body: field("html_title", `1`), want: fieldErr("html_title", notString)},
		{name: "image_path number", body: field("image_path", `5`), want: fieldErr("image_path", notString)},
		{name: "image_name number", body: field("image_name", `2`), want: fieldErr("image_name", notString)},
		{name: "video_url list", body: field("video_url", `["https://example.com"]`), want: fieldErr("video_url", notString)},
		{name: "video_url number", body: field("video_url", `5`), want: fieldErr("video_url", notString)},
		{name: "description_text boolean", body: field("description_text", `true`), want: fieldErr("description_text", notString)},
		{name: "html_description_text object", body: field("html_description_text", `{}`), want: fieldErr("html_description_text", notString)},
		{name: "description number", body: field("description", `2`), want: fieldErr("description", notString)},
		{name: "enter_text boolean", body: field("enter_text", `false`), want: fieldErr("enter_text", notString)},
		{name: "image_video_active number", body: field("image_video_active", `1`), want: fieldErr("image_video_active", notBool)},
		{name: "show_charts string", body: field("show_charts", `"true"`), want: fieldErr("show_charts", notBool)},
		{name: "description_text_active number", body: field("description_text_active", `0`), want: fieldErr("description_text_active", notBool)},
		{name: "question_number_is_hidden string", body: field("question_number_is_hidden", `"yes"`), want: fieldErr("question_number_is_hidden", notBool)},
		{name: "title_active number", body: field("title_active", `1`), want: fieldErr("title_active", notBool)},
		{name: "description_active list", body: field("description_active", `[]`), want: fieldErr("description_active", notBool)},
		{name: "show_charts null", body: field("show_charts", `null`), want: fieldErr("show_charts", notNull)},
		{name: "related_group string", body: field("related_group", fmt.Sprintf(`"%d"`, group)), want: fieldErr("related_group", incorrect("str"))},
		{name: "related_group fraction", body: field("related_group", `1.5`), want: fieldErr("related_group", incorrect("float"))},
		{name: "related_group 0", body: field("related_group", `0`), want: fieldErr("related_group", invalidPK(0))},
		{name: "related_group -1", body: field("related_group", `-1`), want: fieldErr("related_group", invalidPK(-1))},
		{name: "prior_question boolean", body: field("prior_question", `true`), want: fieldErr("prior_question", incorrect("bool"))},
		{name: "prior_question string", body: field("prior_question", fmt.Sprintf(`"%d"`, question)), want: fieldErr("prior_question", incorrect("str"))},
		{name: "prior_question missing", body: field("prior_question", fmt.Sprint(missingID)), want: fieldErr("prior_question", invalidPK(missingID))},
		{name: "prior_question of another survey", body: field("prior_question", fmt.Sprint(elsewhere)), want: fieldErr("prior_question", invalidPK(elsewhere))},
		{name: "prior_question a welcome page", body: field("prior_question", fmt.Sprint(welcome)), want: fieldErr("prior_question", survey.MsgPriorOtherList)},
		{name: "prior_question an appreciation page", body: field("prior_question", fmt.Sprint(thanks)), want: fieldErr("prior_question", survey.MsgPriorOtherList)},
		{name: "welcome page after a question", body: fmt.Sprintf(`{"title":"E","type":1,"prior_question":%d}`, question), want: fieldErr("prior_question", survey.MsgPriorOtherList)},
		{name: "appreciation page after a welcome page", body: fmt.Sprintf(`{"title":"E","type":9,"prior_question":%d}`, welcome), want: fieldErr("prior_question", survey.MsgPriorOtherList)},
		{name: "related_group a text question", body: field("related_group", fmt.Sprint(question)), want: fieldErr("related_group", survey.MsgGroupNotGroup)},
		{name: "related_group a welcome page", body: field("related_group", fmt.Sprint(welcome)), want: fieldErr("related_group", survey.MsgGroupNotGroup)},
		{name: "related_group missing", body: field("related_group", fmt.Sprint(missingID)), want: fieldErr("related_group", invalidPK(missingID))},
		{name: "related_group of another survey", body: field("related_group", fmt.Sprint(otherGroup)), want: fieldErr("related_group", invalidPK(otherGroup))},
		{name: "welcome page in a group", body: fmt.Sprintf(`{"title":"E","type":1,"related_group":%d}`, group), want: fieldErr("related_group", survey.MsgGroupNotAllowed)},
		{name: "appreciation page in a group", body: fmt.Sprintf(`{"title":"E","type":9,"related_group":%d}`, group), want: fieldErr("related_group", survey.MsgGroupNotAllowed)},
		{name: "group in a group", body: fmt.Sprintf(`{"title":"E","type":8,"related_group":%d}`, group), want: fieldErr("related_group", survey.MsgGroupOfGroup)},
		{name: "valid fields with a foreign prior", body: fmt.Sprintf(`{"title":"Changed","type":3,"show_charts":false,"prior_question":%d}`, elsewhere), want: fieldErr("prior_question", invalidPK(elsewhere))},
		{name: "three errors at once", body: `{"title":"","type":0,"show_charts":"x"}`,
			want: fieldErr("title", blank, "type", "Ensure this value is greater than or equal to 1.", "show_charts", notBool)},
		{name: "body a list", body: `[]`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a list of the object", body: `[` + ok("") + `]`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{name: "body a string", body: `"text"`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}`},
		{name: "body a number", body: `5`, want: `{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}`},
		{name: "body null", body: `null`, want: `{"non_field_errors":["No data provided"]}`},
		{name: "body not JSON", body: `{"title":`, detailPrefix: "JSON parse error - "},
		{name: "body text", body: `title=E&type=2`, detailPrefix: "JSON parse error - "},
		{name: "body two values", body: ok("") + ` {}`, detailPrefix: "JSON parse error - "},
		{name: "body text/plain", contentType: "text/plain", body: ok(""), code: 415, want: `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		{name: "body form-encoded", contentType: "application/x-www-form-urlencoded", body: `title=E&type=2`, code: 415,
			want: `{"detail":"Unsupported media type \"application/x-www-form-urlencoded\" in request."}`},
		{name: "body over 1 MiB", body: `{"title":"E","type":2,"pad":"` + strings.Repeat("a", 1<<20) + `"}`, code: 413, detailPrefix: ""},
	}
	before := f.state(t, sid)
	beforeOther := f.state(t, other)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" && tt.body != "" {
				ct = "application/json"
			}
			r := serve(t, f.h, "POST", listPath(sid), f.key, ct, tt.body)
			code := tt.code
			if code == 0 {
				code = 400
			}
			switch {
			case tt.want != "":
				expect(t, tt.name, r, code, tt.want)
			default:
				expect(t, tt.name, r, code, "")
				var body map[string]string
				if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 || !strings.HasPrefix(body["detail"], tt.detailPrefix) || body["detail"] == "" {
					t.Errorf("body %s, want {\"detail\": %q...}", r.body, tt.detailPrefix)
				}
			}
			unchanged(t, "a refused create", before, f.state(t, sid))
		})
	}
	unchanged(t, "refused creates", beforeOther, f.state(t, other))
}

// TestPlacement: three lists with orders 1..n each, prior_question,
// groups, and the survey detail's pages.
func TestPlacement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	order := func(m map[string]any) int { return int(num(t, m["order"])) }
	mk := func(typ int, extra string, wantOrder int) int64 {
		t.Helper()
		m := f.create(t, sid, fmt.Sprintf(`{"title":"E","type":%d%s}`, typ, extra))
		if got := order(m); got != wantOrder {
			t.Errorf("new type %d%s: order %d, want %d", typ, extra, got, wantOrder)
		}
		return idOf(t, m)
	}
	w1 := mk(1, "", 1)
	q1 := mk(2, "", 1)
	g := mk(8, "", 2)
	q2 := mk(2, "", 3)
	a1 := mk(9, "", 1)
	w2 := mk(1, "", 2)
	a2 := mk(9, "", 2)
	q3 := mk(13, "", 4)
	check := func(what string, ww, wq, wa []int64) {
		t.Helper()
		w, q, a := f.lists(t, sid)
		if !slices.Equal(w, ww) || !slices.Equal(q, wq) || !slices.Equal(a, wa) {
			t.Errorf("%s: lists %v %v %v, want %v %v %v", what, w, q, a, ww, wq, wa)
		}
	}
	check("no prior: last in each list", []int64{w1, w2}, []int64{q1, g, q2, q3}, []int64{a1, a2})

	q4 := mk(3, fmt.Sprintf(`,"prior_question":%d`, q1), 2)
	w3 := mk(1, fmt.Sprintf(`,"prior_question":%d`, w1), 2)
	a3 := mk(9, fmt.Sprintf(`,"prior_question":%d`, a1), 2)
	q5 := mk(2, fmt.Sprintf(`,"prior_question":%d`, q3), 6)
	check("after prior_question", []int64{w1, w3, w2}, []int64{q1, q4, g, q2, q3, q5}, []int64{a1, a3, a2})

	m1 := mk(2, fmt.Sprintf(`,"related_group":%d`, g), 4)
	m2 := mk(4, fmt.Sprintf(`,"related_group":%d`, g), 5)
	m3 := mk(5, fmt.Sprintf(`,"related_group":%d,"prior_question":%d`, g, q1), 2)
	check("group members", []int64{w1, w3, w2}, []int64{q1, m3, q4, g, m1, m2, q2, q3, q5}, []int64{a1, a3, a2})
	for _, m := range []int64{m1, m2, m3} {
		if rg := f.get(t, sid, m)["related_group"]; rg != float64(g) {
			t.Errorf("member %d: related_group %v, want %d", m, rg, g)
		}
	}
	for _, id := range []int64{q1, g, q2, w1, a1} {
		if rg := f.get(t, sid, id)["related_group"]; rg != nil {
			t.Errorf("element %d: related_group %v, want null", id, rg)
		}
	}

	d := f.detail(t, sid)
	wantPages := [][]int64{{q1}, {q4}, {g, m3, m1, m2}, {q2}, {q3}, {q5}}
	if got := pages(d); !reflect.DeepEqual(got, wantPages) {
		t.Errorf("pages %v, want %v", got, wantPages)
	}
	if got := viewIDs(d.Welcome); !slices.Equal(got, []int64{w1, w3, w2}) {
		t.Errorf("welcome %v", got)
	}
	if got := viewIDs(d.Appreciations); !slices.Equal(got, []int64{a1, a3, a2}) {
		t.Errorf("appreciations %v", got)
	}
	if d.QuestionCount != 8 {
		t.Errorf("question_count %d, want 8 (9 questions, one of them a group)", d.QuestionCount)
	}
	if c := f.state(t, sid); c.Survey.QuestionCount != 8 {
		t.Errorf("stored question_count %d, want 8", c.Survey.QuestionCount)
	}
	raw, _ := json.Marshal(d)
	var dm map[string]any
	_ = json.Unmarshal(raw, &dm)
	q0 := dm["questions"].([]any)[0].([]any)[0].(map[string]any)
	for _, k := range []string{"second_operand", "logical_operator", "arithmetic_operator"} {
		if v, ok := q0[k]; !ok || v != nil {
			t.Errorf("question %s = %v (present %v), want null", k, v, ok)
		}
	}
	if _, ok := dm["welcome"].([]any)[0].(map[string]any)["second_operand"]; ok {
		t.Error("a welcome page carries logic")
	}
	if v := dm["appreciations"].([]any)[0].(map[string]any)["link_type"]; v != 1.0 {
		t.Errorf("appreciation link_type %v in the detail", v)
	}

	t.Run("every type goes to its list", func(t *testing.T) {
		sid := f.newSurvey(t)
		byType := map[int]int64{}
		for typ := 1; typ <= 13; typ++ {
			byType[typ] = f.add(t, sid, typ, "")
		}
		w, q, a := f.lists(t, sid)
		var wantQ []int64
		for typ := 2; typ <= 13; typ++ {
			if typ != 9 {
				wantQ = append(wantQ, byType[typ])
			}
		}
		if !slices.Equal(w, []int64{byType[1]}) || !slices.Equal(q, wantQ) || !slices.Equal(a, []int64{byType[9]}) {
			t.Errorf("lists %v %v %v", w, q, a)
		}
		d := f.detail(t, sid)
		if d.QuestionCount != 10 || len(d.Questions) != 11 {
			t.Errorf("question_count %d, pages %d; want 10 and 11", d.QuestionCount, len(d.Questions))
		}
	})
}

// TestReadUpdateDelete: GET one and the list in one call each, PATCH of
// fields and places, DELETE closing the gap and ungrouping.
func TestReadUpdateDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	w1 := f.add(t, sid, 1, "")
	e := make([]int64, 5)
	for i := range e {
		e[i] = f.add(t, sid, 2, fmt.Sprintf(`,"title":"Q%d"`, i))
	}
	g := f.add(t, sid, 8, "")
	m1 := f.add(t, sid, 3, fmt.Sprintf(`,"related_group":%d`, g))
	m2 := f.add(t, sid, 2, fmt.Sprintf(`,"related_group":%d`, g))
	a1 := f.add(t, sid, 9, "")

	t.Run("GET one and the list: one call each", func(t *testing.T) {
		r := f.do(t, "GET", itemPath(sid, e[2]), "")
		expect(t, "GET one", r, 200, "")
		if got := decode(t, r.body); got["title"] != "Q2" || got["order"] != 3.0 {
			t.Errorf("GET one: %s", r.body)
		}
		if r.calls != 1 {
			t.Errorf("GET one: %d DynamoDB calls, want 1 (%v)", r.calls, r.ops)
		}
		r = f.do(t, "GET", listPath(sid), "")
		expect(t, "GET list", r, 200, "")
		if r.calls != 1 {
			t.Errorf("GET list: %d DynamoDB calls, want 1 (%v)", r.calls, r.ops)
		}
		var items []map[string]any
		_ = json.Unmarshal(r.body, &items)
		var ids []int64
		for _, it := range items {
			ids = append(ids, idOf(t, it))
		}
		want := append(append([]int64{w1}, e...), g, m1, m2, a1)
		if !slices.Equal(ids, want) {
			t.Errorf("list %v, want %v", ids, want)
		}
		if _, ok := items[len(items)-1]["reload_time"]; !ok {
			t.Error("the appreciation page in the list lacks its fields")
		}
		if _, ok := items[1]["reload_time"]; ok {
			t.Error("a question in the list has appreciation fields")
		}
		if r := f.do(t, "GET", strings.TrimSuffix(itemPath(sid, e[2]), "/"), ""); r.code != 200 {
			t.Errorf("GET without the final slash: %d", r.code)
		}
	})

	t.Run("PATCH fields: only those change", func(t *testing.T) {
		tests := []struct {
			name, body string
			changes    map[string]any
		}{
			{"title", `{"title":"New"}`, map[string]any{"title": "New"}},
			{"several", `{"html_title":"<i>x</i>","show_charts":false,"responding_duration":"00:10:00","image_path":"https://e.example/x.png"}`,
				map[string]any{"html_title": "<i>x</i>", "show_charts": false, "responding_duration": "00:10:00", "image_path": "https://e.example/x.png"}},
			{"clear nullable", `{"responding_duration":null,"image_path":""}`, map[string]any{"responding_duration": nil, "image_path": nil}},
			{"response-only fields", `{"vertical_choices":true,"answer_required":true,"randomize":true}`,
				map[string]any{"vertical_choices": true, "answer_required": true, "randomize": true}},
			{"type within the questions", `{"type":6}`, map[string]any{"type": 6.0}},
			{"empty object", `{}`, nil},
			{"no body", ``, nil},
			{"unknown and read-only fields", `{"id":1,"order":9,"color":"red"}`, nil},
			{"null prior_question is absent", `{"prior_question":null}`, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := f.get(t, sid, e[1])
				others := f.state(t, sid)
				r := f.do(t, "PATCH", itemPath(sid, e[1]), tt.body)
				if r.code != 200 {
					t.Fatalf("PATCH: %d %s", r.code, r.body)
				}
				t.Logf("PATCH %s: %d DynamoDB calls %v", tt.body, r.calls, r.ops)
				want := maps.Clone(before)
				maps.Copy(want, tt.changes)
				sameMap(t, "PATCH answer", decode(t, r.body), want)
				sameMap(t, "GET after PATCH", f.get(t, sid, e[1]), want)
				after := f.state(t, sid)
				delete(others.Elements, e[1])
				delete(after.Elements, e[1])
				if !reflect.DeepEqual(others.Elements, after.Elements) || !slices.Equal(others.Layout.Questions, after.Layout.Questions) {
					t.Error("PATCH of one element changed others or the order")
				}
			})
		}
		// Appreciation fields on a type 9.
		r := f.do(t, "PATCH", itemPath(sid, a1), `{"share_link_active":true,"is_default":true,"link_active":true,"link_button_text":"Go on","link_type":2,"link":5,"reload_active":true,"reload_time":10}`)
		expect(t, "PATCH appreciation fields", r, 200, "")
		got := decode(t, r.body)
		sameMap(t, "PATCH appreciation fields", got, element(a1, 9, 1, map[string]any{
			"share_link_active": true, "is_default": true, "link_active": true, "link_button_text": "Go on",
			"link_type": 2.0, "link": 5.0, "reload_active": true, "reload_time": 10.0,
		}))
	})

	t.Run("PATCH prior_question moves it", func(t *testing.T) {
		_, q, _ := f.lists(t, sid)
		// q: e0 e1 e2 e3 e4 g m1 m2
		move := func(id, prior int64, wantOrder int) {
			t.Helper()
			r := f.do(t, "PATCH", itemPath(sid, id), fmt.Sprintf(`{"prior_question":%d}`, prior))
			if r.code != 200 {
				t.Fatalf("move %d after %d: %d %s", id, prior, r.code, r.body)
			}
			t.Logf("PATCH move: %d DynamoDB calls %v", r.calls, r.ops)
			if got := int(num(t, decode(t, r.body)["order"])); got != wantOrder {
				t.Errorf("move %d after %d: order %d, want %d", id, prior, got, wantOrder)
			}
		}
		move(e[4], e[0], 2) // e0 e4 e1 e2 e3 g m1 m2
		move(e[0], e[3], 5) // e4 e1 e2 e3 e0 g m1 m2
		move(e[1], m2, 8)   // e4 e2 e3 e0 g m1 m2 e1
		_, q2, _ := f.lists(t, sid)
		want := []int64{e[4], e[2], e[3], e[0], g, m1, m2, e[1]}
		if !slices.Equal(q2, want) {
			t.Errorf("questions %v, want %v (were %v)", q2, want, q)
		}
		if rg := f.get(t, sid, e[1])["related_group"]; rg != nil {
			t.Errorf("a question moved after a member joined its group: %v", rg)
		}
		// Back to the original order for the next cases.
		move(e[0], e[4], 2) // e4 e0 e2 e3 g m1 m2 e1
		move(e[4], e[3], 4) // e0 e2 e3 e4 g m1 m2 e1
		move(e[1], e[0], 2) // e0 e1 e2 e3 e4 g m1 m2
		_, q3, _ := f.lists(t, sid)
		if !slices.Equal(q3, q) {
			t.Errorf("questions %v, want %v", q3, q)
		}
	})

	t.Run("PATCH related_group joins and leaves", func(t *testing.T) {
		r := f.do(t, "PATCH", itemPath(sid, e[0]), fmt.Sprintf(`{"related_group":%d}`, g))
		if r.code != 200 {
			t.Fatalf("join: %d %s", r.code, r.body)
		}
		got := decode(t, r.body)
		if got["related_group"] != float64(g) || got["order"] != 8.0 {
			t.Errorf("join: related_group %v order %v, want %d and 8 (after the last member)", got["related_group"], got["order"], g)
		}
		_, q, _ := f.lists(t, sid)
		if want := []int64{e[1], e[2], e[3], e[4], g, m1, m2, e[0]}; !slices.Equal(q, want) {
			t.Errorf("questions %v, want %v", q, want)
		}
		if got := pages(f.detail(t, sid)); !reflect.DeepEqual(got, [][]int64{{e[1]}, {e[2]}, {e[3]}, {e[4]}, {g, m1, m2, e[0]}}) {
			t.Errorf("pages %v", got)
		}
		r = f.do(t, "PATCH", itemPath(sid, e[0]), `{"related_group":null}`)
		if r.code != 200 {
			t.Fatalf("leave: %d %s", r.code, r.body)
		}
		got = decode(t, r.body)
		if got["related_group"] != nil || got["order"] != 8.0 {
			t.Errorf("leave: related_group %v order %v, want null and 8 (in place)", got["related_group"], got["order"])
		}
		if got := pages(f.detail(t, sid)); !reflect.DeepEqual(got, [][]int64{{e[1]}, {e[2]}, {e[3]}, {e[4]}, {g, m1, m2}, {e[0]}}) {
			t.Errorf("pages %v", got)
		}
		// Move both to the end.
		if r := f.do(t, "PATCH", itemPath(sid, e[1]), fmt.Sprintf(`{"prior_question":%d}`, e[0])); r.code != 200 {
			t.Fatal(r.code)
		}
		if r := f.do(t, "PATCH", itemPath(sid, e[0]), fmt.Sprintf(`{"prior_question":%d}`, m2)); r.code != 200 {
			t.Fatal(r.code)
		}
		// Now: e2 e3 e4 g m1 m2 e0 e1. A question may move after its
		// own group's head.
		r = f.do(t, "PATCH", itemPath(sid, m2), fmt.Sprintf(`{"prior_question":%d}`, g))
		if r.code != 200 || decode(t, r.body)["related_group"] != float64(g) {
			t.Errorf("move a member within its group: %d %s", r.code, r.body)
		}
		f.lists(t, sid)
	})

	// A client that reads an element and sends it back (changing nothing,
	// or only a field) must not move it: it is already a member of its
	// group, not a new one (contract section 6: only a new member without
	// prior_question goes after the group's last member).
	t.Run("PATCH echoing the element back keeps its place", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		var member int64
		for _, id := range q0 {
			if g0 := c0Group(t, f, sid, id); g0 == g {
				member = id // the group's first member: not its last
				break
			}
		}
		obj := f.get(t, sid, member)
		obj["title"] = "Echoed"
		body, _ := json.Marshal(obj)
		r := f.do(t, "PATCH", itemPath(sid, member), string(body))
		if r.code != 200 {
			t.Fatalf("PATCH: %d %s", r.code, r.body)
		}
		sameMap(t, "PATCH of the element as read, title changed", decode(t, r.body), obj)
		_, q1, _ := f.lists(t, sid)
		if !slices.Equal(q1, q0) {
			t.Errorf("PATCH with the element's unchanged related_group %d moved member %d: questions %v, were %v", g, member, q1, q0)
		}
		r = f.do(t, "PATCH", itemPath(sid, member), fmt.Sprintf(`{"related_group":%d}`, g))
		if r.code != 200 {
			t.Fatalf("PATCH: %d %s", r.code, r.body)
		}
		if got := int(num(t, decode(t, r.body)["order"])); got != slices.Index(q1, member)+1 {
			t.Errorf("PATCH {\"related_group\": %d} (its own group) moved member %d from order %d to %d", g, member, slices.Index(q1, member)+1, got)
		}
		f.lists(t, sid)
	})

	t.Run("PATCH refused", func(t *testing.T) {
		tests := []struct {
			name string
			id   int64
			body string
			want string
		}{
			{"type to welcome", e[2], `{"type":1}`, fieldErr("type", survey.MsgTypeOtherList)},
			{"type to appreciation", e[2], `{"type":9}`, fieldErr("type", survey.MsgTypeOtherList)},
			{"welcome to a question", w1, `{"type":2}`, fieldErr("type", survey.MsgTypeOtherList)},
			{"appreciation to welcome", a1, `{"type":1}`, fieldErr("type", survey.MsgTypeOtherList)},
			{"group with members to a question", g, `{"type":2}`, fieldErr("type", survey.MsgGroupHasMembers)},
			{"member to a group", m1, `{"type":8}`, fieldErr("type", survey.MsgGroupOfGroup)},
			{"own group", e[2], fmt.Sprintf(`{"related_group":%d}`, e[2]), fieldErr("related_group", survey.MsgGroupSelf)},
			{"a group its own group", g, fmt.Sprintf(`{"related_group":%d}`, g), fieldErr("related_group", survey.MsgGroupSelf)},
			{"after itself", e[2], fmt.Sprintf(`{"prior_question":%d}`, e[2]), fieldErr("prior_question", survey.MsgPriorSelf)},
			{"after a welcome page", e[2], fmt.Sprintf(`{"prior_question":%d}`, w1), fieldErr("prior_question", survey.MsgPriorOtherList)},
			{"after a missing one", e[2], fmt.Sprintf(`{"prior_question":%d}`, missingID), fieldErr("prior_question", invalidPK(missingID))},
			{"into a text question", e[2], fmt.Sprintf(`{"related_group":%d}`, e[3]), fieldErr("related_group", survey.MsgGroupNotGroup)},
			{"welcome page into a group", w1, fmt.Sprintf(`{"related_group":%d}`, g), fieldErr("related_group", survey.MsgGroupNotAllowed)},
			{"title blank with valid fields", e[2], `{"title":"","show_charts":false}`, fieldErr("title", blank)},
			{"title null", e[2], `{"title":null}`, fieldErr("title", notNull)},
			{"type 14", e[2], `{"type":14}`, fieldErr("type", "Ensure this value is less than or equal to 13.")},
			{"bad URL with valid fields", e[2], `{"title":"Changed","video_url":"ftp://x"}`, fieldErr("video_url", badURL)},
			{"bad duration", e[2], `{"responding_duration":"24:60:00"}`, fieldErr("responding_duration", badDuration)},
			{"wrong types", e[2], `{"answer_required":1,"max_selectable_choices":"3","enter_text":4}`,
				fieldErr("answer_required", notBool, "max_selectable_choices", notInt, "enter_text", notString)},
			{"negative count", e[2], `{"max_selectable_choices":-1}`, fieldErr("max_selectable_choices", "Ensure this value is greater than or equal to 0.")},
			{"body a list", e[2], `[]`, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
			{"body null", e[2], `null`, `{"non_field_errors":["No data provided"]}`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := f.state(t, sid)
				expect(t, tt.name, f.do(t, "PATCH", itemPath(sid, tt.id), tt.body), 400, tt.want)
				unchanged(t, "a refused PATCH", before, f.state(t, sid))
			})
		}
		before := f.state(t, sid)
		expect(t, "PATCH text/plain", serve(t, f.h, "PATCH", itemPath(sid, e[2]), f.key, "text/plain", `{"title":"x"}`), 415,
			`{"detail":"Unsupported media type \"text/plain\" in request."}`)
		expect(t, "PATCH a missing element", f.do(t, "PATCH", itemPath(sid, missingID), `{"title":"x"}`), 404, notFound)
		expect(t, "GET a missing element", f.do(t, "GET", itemPath(sid, missingID), ""), 404, notFound)
		expect(t, "DELETE a missing element", f.do(t, "DELETE", itemPath(sid, missingID), ""), 404, notFound)
		unchanged(t, "refused writes", before, f.state(t, sid))
	})

	t.Run("DELETE closes the gap", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		victim := q0[1]
		r := f.do(t, "DELETE", itemPath(sid, victim), "")
		if r.code != 204 || len(r.body) != 0 {
			t.Fatalf("DELETE: %d %q", r.code, r.body)
		}
		t.Logf("DELETE: %d DynamoDB calls %v", r.calls, r.ops)
		_, q1, _ := f.lists(t, sid)
		if want := slices.Delete(slices.Clone(q0), 1, 2); !slices.Equal(q1, want) {
			t.Errorf("questions %v, want %v", q1, want)
		}
		expect(t, "GET the deleted element", f.do(t, "GET", itemPath(sid, victim), ""), 404, notFound)
		expect(t, "DELETE it again", f.do(t, "DELETE", itemPath(sid, victim), ""), 404, notFound)
		expect(t, "PATCH it", f.do(t, "PATCH", itemPath(sid, victim), `{"title":"x"}`), 404, notFound)
		// Welcome and appreciation lists close their gaps too.
		w2 := f.add(t, sid, 1, "")
		if r := f.do(t, "DELETE", itemPath(sid, w1), ""); r.code != 204 {
			t.Fatalf("DELETE welcome: %d", r.code)
		}
		if got := f.get(t, sid, w2)["order"]; got != 1.0 {
			t.Errorf("welcome order after the first was deleted: %v", got)
		}
	})

	t.Run("DELETE a group keeps its questions, ungrouped", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		r := f.do(t, "DELETE", itemPath(sid, g), "")
		if r.code != 204 {
			t.Fatalf("DELETE group: %d %s", r.code, r.body)
		}
		_, q1, _ := f.lists(t, sid)
		if want := slices.DeleteFunc(slices.Clone(q0), func(x int64) bool { return x == g }); !slices.Equal(q1, want) {
			t.Errorf("questions %v, want %v", q1, want)
		}
		for _, m := range []int64{m1, m2} {
			if rg, ok := f.get(t, sid, m)["related_group"]; !ok || rg != nil {
				t.Errorf("member %d after its group was deleted: related_group %v", m, rg)
			}
		}
		d := f.detail(t, sid)
		for _, p := range pages(d) {
			if len(p) != 1 {
				t.Errorf("page %v: every question is a page of its own now", p)
			}
		}
		if len(d.Questions) != len(q1) || d.QuestionCount != len(q1) {
			t.Errorf("%d pages, question_count %d; want %d each", len(d.Questions), d.QuestionCount, len(q1))
		}
		// The former members can be moved and regrouped.
		g2 := f.add(t, sid, 8, "")
		if r := f.do(t, "PATCH", itemPath(sid, m1), fmt.Sprintf(`{"related_group":%d}`, g2)); r.code != 200 {
			t.Errorf("regroup: %d %s", r.code, r.body)
		}
		expect(t, "join the deleted group", f.do(t, "PATCH", itemPath(sid, m2), fmt.Sprintf(`{"related_group":%d}`, g)), 400,
			fieldErr("related_group", invalidPK(g)))
		f.lists(t, sid)
	})
}

// c0Group is the group an element belongs to, 0 for none.
func c0Group(t *testing.T, f *fixture, sid, id int64) int64 {
	t.Helper()
	if g := f.state(t, sid).Layout.GroupOf(id); g != nil {
		return *g
	}
	return 0
}

// TestTrash: writes under a survey in the trash answer 409 and change
// nothing; reads still answer.
func TestTrash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	q := f.add(t, sid, 2, "")
	g := f.add(t, sid, 8, "")
	if err := f.st.TrashSurvey(t.Context(), f.acct.ID, sid); err != nil {
		t.Fatal(err)
	}
	before := f.state(t, sid)
	writes := []struct{ method, path, body string }{
		{"POST", listPath(sid), `{"title":"E","type":2}`},
		{"POST", listPath(sid), fmt.Sprintf(`{"title":"E","type":2,"prior_question":%d,"related_group":%d}`, q, g)},
		{"POST", listPath(sid), `{"title":"E","type":9}`},
		{"PATCH", itemPath(sid, q), `{"title":"Changed"}`},
		{"PATCH", itemPath(sid, q), `{}`},
		{"PATCH", itemPath(sid, q), fmt.Sprintf(`{"related_group":%d}`, g)},
		{"DELETE", itemPath(sid, q), ""},
		{"DELETE", itemPath(sid, g), ""},
	}
	for _, w := range writes {
		expect(t, w.method+" "+w.body+" in the trash", f.do(t, w.method, w.path, w.body), 409, deleted)
	}
	unchanged(t, "writes in the trash", before, f.state(t, sid))
	if r := f.do(t, "GET", itemPath(sid, q), ""); r.code != 200 {
		t.Errorf("GET one in the trash: %d %s", r.code, r.body)
	}
	r := f.do(t, "GET", listPath(sid), "")
	if r.code != 200 {
		t.Errorf("GET list in the trash: %d %s", r.code, r.body)
	}
	var items []any
	if err := json.Unmarshal(r.body, &items); err != nil || len(items) != 2 {
		t.Errorf("list in the trash: %s", r.body)
	}
	// Validation still comes first.
	expect(t, "invalid POST in the trash", f.do(t, "POST", listPath(sid), `{"type":2}`), 400, fieldErr("title", required))
	// Restored, it is writable again.
	if err := f.st.RestoreSurvey(t.Context(), f.acct.ID, sid, nil); err != nil {
		t.Fatal(err)
	}
	if r := f.do(t, "POST", listPath(sid), `{"title":"E","type":2}`); r.code != 201 {
		t.Errorf("POST after restore: %d %s", r.code, r.body)
	}
}

// TestTenancy: another account's survey and elements answer 404 on every
// route and are never changed; ids in the path that cannot exist answer 404
// without a read.
func TestTenancy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mine := f.newSurvey(t)
	myQ := f.add(t, mine, 2, "")
	theirs := &fixture{st: f.st, h: f.h}
	theirs.acct, theirs.key = testenv.NewAccount(t, survey.PlanPro)
	fo, err := f.st.CreateFolder(t.Context(), theirs.acct.ID, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs.fid = fo.ID
	foreign := theirs.newSurvey(t)
	theirQ := theirs.add(t, foreign, 2, "")
	theirG := theirs.add(t, foreign, 8, "")
	beforeTheirs := theirs.state(t, foreign)
	beforeMine := f.state(t, mine)

	routes := []struct{ method, path, body string }{
		{"GET", listPath(foreign), ""},
		{"POST", listPath(foreign), `{"title":"E","type":2}`},
		{"GET", itemPath(foreign, theirQ), ""},
		{"PATCH", itemPath(foreign, theirQ), `{"title":"Mine now"}`},
		{"DELETE", itemPath(foreign, theirQ), ""},
		{"GET", itemPath(mine, theirQ), ""},
		{"PATCH", itemPath(mine, theirQ), `{"title":"Mine now"}`},
		{"DELETE", itemPath(mine, theirQ), ""},
		{"GET", itemPath(foreign, myQ), ""},
		{"PATCH", itemPath(foreign, myQ), `{"title":"x"}`},
		{"DELETE", itemPath(foreign, myQ), ""},
		{"GET", listPath(missingID), ""},
		{"POST", listPath(missingID), `{"title":"E","type":2}`},
		{"GET", itemPath(missingID, myQ), ""},
		{"PATCH", itemPath(missingID, myQ), `{"title":"x"}`},
		{"DELETE", itemPath(missingID, myQ), ""},
	}
	for _, r := range routes {
		expect(t, r.method+" "+r.path, f.do(t, r.method, r.path, r.body), 404, notFound)
	}
	// The other way round: their key on my survey.
	for _, r := range []struct{ method, path, body string }{
		{"GET", listPath(mine), ""}, {"POST", listPath(mine), `{"title":"E","type":2}`},
		{"GET", itemPath(mine, myQ), ""}, {"PATCH", itemPath(mine, myQ), `{"title":"x"}`}, {"DELETE", itemPath(mine, myQ), ""},
	} {
		expect(t, "their key: "+r.method+" "+r.path, theirs.do(t, r.method, r.path, r.body), 404, notFound)
	}
	// References to their elements from my survey.
	expect(t, "prior_question of theirs", f.do(t, "POST", listPath(mine), fmt.Sprintf(`{"title":"E","type":2,"prior_question":%d}`, theirQ)), 400,
		fieldErr("prior_question", invalidPK(theirQ)))
	expect(t, "related_group of theirs", f.do(t, "POST", listPath(mine), fmt.Sprintf(`{"title":"E","type":2,"related_group":%d}`, theirG)), 400,
		fieldErr("related_group", invalidPK(theirG)))
	expect(t, "PATCH into their group", f.do(t, "PATCH", itemPath(mine, myQ), fmt.Sprintf(`{"related_group":%d}`, theirG)), 400,
		fieldErr("related_group", invalidPK(theirG)))
	unchanged(t, "another account's requests", beforeTheirs, theirs.state(t, foreign))
	unchanged(t, "refused requests", beforeMine, f.state(t, mine))

	t.Run("path ids that cannot exist", func(t *testing.T) {
		for _, bad := range []string{"abc", "0", "-1", "99999999999", "2147483648", "1.5", "1e3"} {
			for _, r := range []struct{ method, path, body string }{
				{"GET", listPath(bad), ""}, {"POST", listPath(bad), `{"title":"E","type":2}`},
				{"GET", itemPath(bad, myQ), ""}, {"PATCH", itemPath(bad, myQ), `{"title":"x"}`}, {"DELETE", itemPath(bad, myQ), ""},
				{"GET", itemPath(mine, bad), ""}, {"PATCH", itemPath(mine, bad), `{"title":"x"}`}, {"DELETE", itemPath(mine, bad), ""},
			} {
				got := f.do(t, r.method, r.path, r.body)
				expect(t, r.method+" "+r.path, got, 404, notFound)
				if got.calls != 0 {
					t.Errorf("%s %s: %d DynamoDB calls, want none", r.method, r.path, got.calls)
				}
			}
		}
		unchanged(t, "bad paths", beforeMine, f.state(t, mine))
	})
}

// race sends the bodies at once and returns the replies in order.
func race(t *testing.T, f *fixture, reqs []struct{ method, path, body string }) ([]reply, time.Duration) {
	t.Helper()
	replies := make([]reply, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Go(func() {
			<-start
			replies[i] = f.do(t, r.method, r.path, r.body)
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return replies, time.Since(t0)
}

// clean checks that a reply is the wanted status or a clean 409/503, and
// counts statuses.
func clean(t *testing.T, r reply, want int, statuses map[int]int) bool {
	t.Helper()
	statuses[r.code]++
	switch r.code {
	case want:
		return true
	case 409, 503:
		var body map[string]string
		if err := json.Unmarshal(r.body, &body); err != nil || body["detail"] == "" || len(body) != 1 {
			t.Errorf("%d with body %s", r.code, r.body)
		}
		if r.code == 503 && r.header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After")
		}
	default:
		t.Errorf("status %d: %s", r.code, r.body)
	}
	return false
}

// TestConcurrentInserts: inserts racing into one survey keep the question
// list dense, lose nothing and answer each its true order.
func TestConcurrentInserts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	first := f.add(t, sid, 2, "")

	t.Run("20 POSTs without prior", func(t *testing.T) {
		const n = 20
		reqs := make([]struct{ method, path, body string }, n)
		for i := range reqs {
			reqs[i] = struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"c%d","type":2}`, i)}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		created := map[int64]int{} // id -> answered order
		for _, r := range replies {
			if clean(t, r, 201, statuses) {
				m := decode(t, r.body)
				created[idOf(t, m)] = int(num(t, m["order"]))
			}
		}
		t.Logf("%d concurrent inserts: statuses %v in %v (%.1f inserts/s), %d layout retries",
			n, statuses, took.Round(time.Millisecond), float64(len(created))/took.Seconds(), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != 1+len(created) || q[0] != first {
			t.Errorf("questions %v: want %d (the first and every 201)", q, 1+len(created))
		}
		for id, order := range created {
			if i := slices.Index(q, id); i < 0 {
				t.Errorf("created %d is not listed", id)
			} else if i+1 != order {
				t.Errorf("created %d answered order %d, stands at %d", id, order, i+1)
			}
		}
		if len(created) < n/2 {
			t.Errorf("only %d of %d concurrent inserts landed", len(created), n)
		}
	})

	t.Run("10 POSTs after the same prior", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		const n = 10
		reqs := make([]struct{ method, path, body string }, n)
		for i := range reqs {
			reqs[i] = struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"p%d","type":2,"prior_question":%d}`, i, first)}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		var created []int64
		for _, r := range replies {
			if clean(t, r, 201, statuses) {
				created = append(created, idOf(t, decode(t, r.body)))
			}
		}
		t.Logf("%d concurrent inserts after one prior: statuses %v in %v (%.1f inserts/s), %d layout retries",
			n, statuses, took.Round(time.Millisecond), float64(len(created))/took.Seconds(), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != len(q0)+len(created) {
			t.Fatalf("questions %v: want %d", q, len(q0)+len(created))
		}
		// The new ones stand right after the prior, the old ones after them.
		block := slices.Clone(q[1 : 1+len(created)])
		slices.Sort(block)
		slices.Sort(created)
		if q[0] != first || !slices.Equal(block, created) || !slices.Equal(q[1+len(created):], q0[1:]) {
			t.Errorf("questions %v: want %d, then %v in some order, then %v", q, first, created, q0[1:])
		}
	})
}

// TestConcurrentMoves: moves racing (and deletes racing inserts) keep the
// lists dense and lose no element.
func TestConcurrentMoves(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	ids := make([]int64, 10)
	for i := range ids {
		ids[i] = f.add(t, sid, 2, "")
	}

	t.Run("10 moves", func(t *testing.T) {
		reqs := make([]struct{ method, path, body string }, len(ids))
		for i, id := range ids {
			reqs[i] = struct{ method, path, body string }{"PATCH", itemPath(sid, id), fmt.Sprintf(`{"prior_question":%d}`, ids[(i+3)%len(ids)])}
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		for _, r := range replies {
			clean(t, r, 200, statuses)
		}
		t.Logf("10 concurrent moves: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		_, q, _ := f.lists(t, sid)
		got := slices.Clone(q)
		slices.Sort(got)
		want := slices.Clone(ids)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("after the moves the questions are %v, want the same ten %v", q, ids)
		}
	})

	t.Run("10 PATCHes of different fields of one element", func(t *testing.T) {
		target := ids[0]
		fields := map[string]any{
			"image_video_active": true, "show_charts": false, "description_text_active": true,
			"question_number_is_hidden": true, "title_active": false, "description_active": true,
			"image_or_video": 2.0, "vertical_choices": true, "answer_required": true, "randomize": true,
		}
		var reqs []struct{ method, path, body string }
		var names []string
		for name, v := range fields {
			names = append(names, name)
			reqs = append(reqs, struct{ method, path, body string }{"PATCH", itemPath(sid, target), fmt.Sprintf(`{%q:%v}`, name, v)})
		}
		before := f.get(t, sid, target)
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		want := maps.Clone(before)
		for i, r := range replies {
			if clean(t, r, 200, statuses) {
				want[names[i]] = fields[names[i]]
			}
		}
		t.Logf("10 concurrent PATCHes of one element: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		sameMap(t, "after concurrent PATCHes, every landed field is kept", f.get(t, sid, target), want)
	})

	t.Run("5 deletes and 5 inserts", func(t *testing.T) {
		_, q0, _ := f.lists(t, sid)
		var reqs []struct{ method, path, body string }
		var victims []int64 // per request, 0 for a POST
		for i := range 5 {
			victims = append(victims, q0[2*i], 0)
			reqs = append(reqs,
				struct{ method, path, body string }{"DELETE", itemPath(sid, q0[2*i]), ""},
				struct{ method, path, body string }{"POST", listPath(sid), fmt.Sprintf(`{"title":"n%d","type":2,"prior_question":%d}`, i, q0[2*i+1])})
		}
		retries := f.st.LayoutRetries()
		replies, took := race(t, f, reqs)
		retries = f.st.LayoutRetries() - retries
		statuses := map[int]int{}
		want := map[int64]bool{}
		for _, id := range q0 {
			want[id] = true
		}
		for i, r := range replies {
			if reqs[i].method == "DELETE" {
				if clean(t, r, 204, statuses) {
					delete(want, victims[i])
				}
			} else if clean(t, r, 201, statuses) {
				want[idOf(t, decode(t, r.body))] = true
			}
		}
		t.Logf("5 deletes racing 5 inserts: statuses %v in %v, %d layout retries", statuses, took.Round(time.Millisecond), retries)
		_, q, _ := f.lists(t, sid)
		if len(q) != len(want) {
			t.Errorf("questions %v, want %d elements", q, len(want))
		}
		for _, id := range q {
			if !want[id] {
				t.Errorf("question %d should not be listed", id)
			}
		}
	})
}

// TestCalls: a create at the end or after a prior in a survey of 30
// elements takes at most a few DynamoDB calls, however long the survey.
func TestCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	var ids []int64
	for i := range 30 {
		typ := survey.TypeText
		p := survey.Placement{}
		switch {
		case i == 0:
			typ = survey.TypeWelcome
		case i == 1:
			typ = survey.TypeAppreciation
		case i == 5:
			typ = survey.TypeGroup
		case i > 5 && i < 9:
			g := ids[5]
			p.Group = &g
		}
		e := survey.NewElement(typ)
		e.Title = fmt.Sprintf("Element %d", i)
		ch, err := f.st.CreateElement(t.Context(), f.acct.ID, sid, e, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ch.Element.ID)
	}
	_, q0, _ := f.lists(t, sid)
	cases := []struct {
		name, method, path, body string
		code, max                int
	}{
		{"create at the end", "POST", listPath(sid), `{"title":"End","type":2}`, 201, 4},
		{"create after a prior", "POST", listPath(sid), fmt.Sprintf(`{"title":"Mid","type":2,"prior_question":%d}`, ids[10]), 201, 4},
		{"create into a group", "POST", listPath(sid), fmt.Sprintf(`{"title":"Member","type":2,"related_group":%d}`, ids[5]), 201, 4},
		{"create at the end again", "POST", listPath(sid), `{"title":"End 2","type":2}`, 201, 4},
		{"GET one", "GET", itemPath(sid, ids[20]), "", 200, 1},
		{"GET list", "GET", listPath(sid), "", 200, 1},
		{"PATCH a field", "PATCH", itemPath(sid, ids[20]), `{"title":"Renamed"}`, 200, 2},
		{"PATCH a move", "PATCH", itemPath(sid, ids[20]), fmt.Sprintf(`{"prior_question":%d}`, ids[3]), 200, 2},
		{"DELETE", "DELETE", itemPath(sid, ids[25]), "", 204, 2},
	}
	for _, c := range cases {
		r := f.do(t, c.method, c.path, c.body)
		if r.code != c.code {
			t.Errorf("%s: %d %s", c.name, r.code, r.body)
			continue
		}
		t.Logf("%s in a survey of %d elements: %d DynamoDB calls %v", c.name, len(q0)+2, r.calls, r.ops)
		if r.calls > c.max {
			t.Errorf("%s: %d DynamoDB calls, want at most %d (%v)", c.name, r.calls, c.max, r.ops)
		}
	}
	_, q, _ := f.lists(t, sid)
	if len(q) != len(q0)+4-1 {
		t.Errorf("%d questions, want %d", len(q), len(q0)+3)
	}
}
