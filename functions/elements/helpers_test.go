package elements_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/elements"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
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
	r := testenv.Serve(h, testenv.NewRequest(method, path, key, contentType, testenv.Body(body)))
	return reply{code: r.Code, body: r.Body, header: r.Header, calls: r.Calls.DynamoDB(), ops: r.Calls.Ops()}
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
	o := testenv.NewOwner(t, survey.PlanPro, "f")
	f := &fixture{st: o.Store, h: testenv.Conform(elements.New(elements.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store})), acct: o.Account, key: o.Key, fid: o.Folder}
	// Warm the authenticator: later counts are the handler's own calls.
	o.Warm(t, f.h, listPath("warm"), 404)
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
	return testenv.NewSurvey(t, f.st, f.acct.ID, f.fid, "s").ID
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

// expect checks a reply's status and, when want is set, its exact body.
func expect(t *testing.T, what string, r reply, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: status %d, want %d (%s)", what, r.code, code, r.body)
		return
	}
	if want != "" {
		testenv.SameJSON(t, what, r.body, want)
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
		"left_label": nil, "right_label": nil, "rating_max": 5.0, "steps": 5.0, "icon_type": 1.0, "max_length": 5000.0,
		"max_file_size_mb": 10.0, "allowed_file_types": []any{"pdf", "jpg", "jpeg", "png", "docx", "xlsx", "zip"},
		"order": float64(order),
	}
	if typ != 1 && typ != 9 {
		m["conditions"] = []any{}
	}
	if typ == 9 {
		maps.Copy(m, map[string]any{
			"share_link_active": false, "is_default": false, "link_active": false, "link_button_text": "",
			"link_type": 1.0, "link": nil, "link_url": nil, "reload_active": false, "reload_time": 0.0,
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
