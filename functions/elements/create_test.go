package elements_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

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
			map[string]any{"title": script, "html_title": script, "description_text": script, "html_description_text": `<p onclick="x()">a &amp; b</p>` + script,
				"description": script, "enter_text": "<b>Go</b>"}},
		{"null placement is absent", `{"title":"E","type":2,"prior_question":null,"related_group":null}`, map[string]any{"related_group": nil}},
		{"read-only and unknown fields ignored", `{"title":"E","type":2,"id":5,"order":99,"color":"red"}`, map[string]any{"correct_choice": nil}},
		{"10,000 unknown fields", many.String(), map[string]any{"title": "Many"}},
	}
	for _, ct := range []string{"application/json; charset=utf-8", "application/vnd.api+json"} {
		r := serve(t, f.h, "POST", listPath(sid), f.key, ct, `{"title":"CT","type":2}`)
		if r.code != 201 {
			t.Errorf("POST with Content-Type %q: %d %s", ct, r.code, r.body)
		}
	}
	// A body without a Content-Type is 415 (contract section 3, amended).
	if r := serve(t, f.h, "POST", listPath(sid), f.key, "", `{"title":"CT","type":2}`); r.code != 415 ||
		string(r.body) != `{"detail":"Unsupported media type \"\" in request."}` {
		t.Errorf("POST without Content-Type: %d %s", r.code, r.body)
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
			want := 42 // 41 (steps and icon_type among them), and conditions on the questions list's elements
			if got["type"] == 1.0 {
				want = 41
			}
			if len(got) != want && got["type"] != 9.0 {
				t.Errorf("the answer has %d fields, want %d", len(got), want)
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
		{name: "valid fields with a foreign prior", body: fmt.Sprintf(`{"title":"Changed","type":3,"show_charts":false,"prior_question":%d}`, elsewhere),
			want: fieldErr("prior_question", invalidPK(elsewhere))},
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

// TestCreateTakesEveryPatchField: a field PATCH takes is never dropped on
// create. Each body, sent to create, answers the
// same element as an empty create followed by the same PATCH, and the
// element stored is that one; the response-only fields of contract 6
// (answer_required above all) and the appreciation fields included.
func TestCreateTakesEveryPatchField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	other := f.newSurvey(t)
	tests := []struct {
		typ  int
		body string
	}{
		{2, `"answer_required":true,"max_length":40`},
		{3, `"vertical_choices":true,"answer_required":true,"randomize":true,"choices":[{"name":"A"},{"name":"B"}],"allow_multiple_select":true,"max_selectable_choices":2`},
		{6, `"answer_required":true,"scale_min":1,"scale_max":5,"left_label":"no","right_label":"yes"`},
		{9, `"share_link_active":true,"is_default":true,"link_active":true,"link_button_text":"Go on","link_type":2,"link":` + fmt.Sprint(other) + `,"reload_active":true,"reload_time":30`},
		{9, `"link_active":true,"link_type":1,"link_url":"https://example.com/more","link_button_text":"More"`},
		{11, `"answer_required":true,"max_file_size_mb":3,"allowed_file_types":["png"]`},
		{12, `"answer_required":true,"rows":[{"name":"r"}],"columns":[{"name":"c"}]`},
	}
	// ignore are what two separate elements cannot share.
	ignore := func(m map[string]any) map[string]any {
		for _, k := range []string{"id", "order", "choices", "rows", "columns"} {
			delete(m, k)
		}
		return m
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("type ", tt.typ), func(t *testing.T) {
			made := f.create(t, sid, fmt.Sprintf(`{"title":"E","type":%d,%s}`, tt.typ, tt.body))
			plain := f.create(t, sid, fmt.Sprintf(`{"title":"E","type":%d}`, tt.typ))
			r := f.do(t, "PATCH", itemPath(sid, idOf(t, plain)), "{"+tt.body+"}")
			if r.code != 200 {
				t.Fatalf("PATCH: %d %s", r.code, r.body)
			}
			patched := decode(t, r.body)
			stored := f.get(t, sid, idOf(t, made))
			sameMap(t, "create with the fields against create and PATCH", ignore(maps.Clone(made)), ignore(maps.Clone(patched)))
			sameMap(t, "GET after create", ignore(stored), ignore(patched))
			if tt.typ != 9 && made["answer_required"] != true {
				t.Errorf("answer_required = %v after create with true", made["answer_required"])
			}
		})
	}
}
