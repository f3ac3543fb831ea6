package elements_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

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
		other := f.newSurvey(t)
		r := f.do(t, "PATCH", itemPath(sid, a1),
			fmt.Sprintf(`{"share_link_active":true,"is_default":true,"link_active":true,"link_button_text":"Go on","link_type":2,"link":%d,"reload_active":true,"reload_time":10}`, other))
		expect(t, "PATCH appreciation fields", r, 200, "")
		got := decode(t, r.body)
		sameMap(t, "PATCH appreciation fields", got, element(a1, 9, 1, map[string]any{
			"share_link_active": true, "is_default": true, "link_active": true, "link_button_text": "Go on",
			"link_type": 2.0, "link": float64(other), "reload_active": true, "reload_time": 10.0,
		}))
		// The link's target (contract section 16): link_type 1 opens
		// link_url (absolute http(s)), 2 another live survey of the
		// account.
		before := f.state(t, sid)
		for _, tc := range []struct{ body, want string }{
			{`{"link_type":1}`, fieldErr("link_url", "This field is required.")},
			{`{"link_type":1,"link_url":"javascript:alert(1)"}`, fieldErr("link_url", "Enter a valid URL.")},
			{`{"link_type":1,"link_url":"/relative"}`, fieldErr("link_url", "Enter a valid URL.")},
			{`{"link_type":3}`, fieldErr("link_type", `"3" is not a valid choice.`)},
			{`{"link_type":2,"link":null}`, fieldErr("link", "This field is required.")},
			{fmt.Sprintf(`{"link":%d}`, sid), fieldErr("link", invalidPK(sid))},
			{`{"link":999999999}`, fieldErr("link", invalidPK(999999999))},
		} {
			expect(t, "PATCH "+tc.body, f.do(t, "PATCH", itemPath(sid, a1), tc.body), 400, tc.want)
		}
		unchanged(t, "refused links", before, f.state(t, sid))
		r = f.do(t, "PATCH", itemPath(sid, a1), `{"link_type":1,"link_url":"https://example.com/next"}`)
		expect(t, "PATCH link_url", r, 200, "")
		if got := decode(t, r.body); got["link_url"] != "https://example.com/next" || got["link_type"] != 1.0 {
			t.Errorf("link_url %v, link_type %v", got["link_url"], got["link_type"])
		}
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
