package elements_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// choiceIDs are the ids of an element's choices (or rows, columns), in
// order, checking each item's order where it has one.
func choiceIDs(t *testing.T, el map[string]any, field string) []int64 {
	t.Helper()
	items, ok := el[field].([]any)
	if !ok {
		t.Fatalf("%s is %#v", field, el[field])
	}
	var ids []int64
	for i, it := range items {
		m := it.(map[string]any)
		ids = append(ids, idOf(t, m))
		if o, has := m["order"]; has && num(t, o) != float64(i+1) {
			t.Errorf("%s[%d] has order %v", field, i, o)
		}
	}
	return ids
}

// TestChoicesCreate: each type's fields are stored and answered, the
// items get ids unique in the survey, and the survey detail shows them.
func TestChoicesCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	warm := f.create(t, sid, `{"title":"D","type":10,"choices":[{"name":"x"},{"name":"y"}]}`) // leases element and choice ids

	r := f.do(t, "POST", listPath(sid), `{"title":"Colour","type":3,"allow_multiple_select":true,
		"min_selectable_choices":1,"max_selectable_choices":2,
		"choices":[{"name":" Red ","alt_name":"قرمز","image_url":"https://img.example/red.png"},{"name":"Green","alt_name":""},{"name":"Blue","id":99999}]}`)
	if r.code != 201 {
		t.Fatalf("POST: %d %s", r.code, r.body)
	}
	t.Logf("create with 3 choices: %d DynamoDB calls %v", r.calls, r.ops)
	if r.calls != 3 {
		t.Errorf("create with choices took %d DynamoDB calls %v, want 3 (layout, transaction; ids from the lease; the activity log's BatchWriteItem)", r.calls, r.ops)
	}
	mc := decode(t, r.body)
	ids := choiceIDs(t, mc, "choices")
	if len(ids) != 3 || ids[2] == 99999 {
		t.Fatalf("choice ids %v (a create ignores the ids sent)", ids)
	}
	got, _ := json.Marshal(mc["choices"])
	want := fmt.Sprintf(`[{"alt_name":"قرمز","id":%d,"image_url":"https://img.example/red.png","name":"Red","order":1},`+
		`{"alt_name":null,"id":%d,"image_url":null,"name":"Green","order":2},{"alt_name":null,"id":%d,"image_url":null,"name":"Blue","order":3}]`,
		ids[0], ids[1], ids[2])
	if string(got) != want {
		t.Errorf("choices\n got %s\nwant %s", got, want)
	}
	for k, v := range map[string]any{"allow_multiple_select": true, "min_selectable_choices": 1.0, "max_selectable_choices": 2.0, "correct_choice": nil} {
		if mc[k] != v {
			t.Errorf("%s = %v, want %v", k, mc[k], v)
		}
	}
	sameMap(t, "GET after create", f.get(t, sid, idOf(t, mc)), mc)

	pic := f.create(t, sid, `{"title":"P","type":4,"choices":[{"name":"a","image_url":"http://img.example/a.png"}]}`)
	matrix := f.create(t, sid, `{"title":"M","type":12,"rows":[{"name":"Tea"},{"name":"Coffee"}],"columns":[{"name":"Like"},{"name":"Dislike"}]}`)
	scale := f.create(t, sid, `{"title":"S","type":6,"scale_min":1,"scale_max":7,"left_label":"bad","right_label":""}`)
	rating := f.create(t, sid, `{"title":"R","type":7,"rating_max":10}`)
	text := f.create(t, sid, `{"title":"T","type":2,"max_length":140}`)
	file := f.create(t, sid, `{"title":"F","type":11,"max_file_size_mb":25,"allowed_file_types":["PDF","png","pdf","heic"]}`)
	drop := warm
	for _, tc := range []struct {
		el   map[string]any
		want map[string]any
	}{
		{scale, map[string]any{"scale_min": 1.0, "scale_max": 7.0, "left_label": "bad", "right_label": nil}},
		{rating, map[string]any{"rating_max": 10.0}},
		{text, map[string]any{"max_length": 140.0}},
		{file, map[string]any{"max_file_size_mb": 25.0, "allowed_file_types": []any{"pdf", "png", "heic"}}},
	} {
		for k, v := range tc.want {
			if !reflect.DeepEqual(tc.el[k], v) {
				t.Errorf("type %v: %s = %v, want %v", tc.el["type"], k, tc.el[k], v)
			}
		}
	}
	all := slices.Concat(ids, choiceIDs(t, pic, "choices"), choiceIDs(t, matrix, "rows"), choiceIDs(t, matrix, "columns"), choiceIDs(t, drop, "choices"))
	seen := map[int64]bool{}
	for _, id := range all {
		if seen[id] {
			t.Errorf("item id %d given twice in one survey: %v", id, all)
		}
		seen[id] = true
	}

	// The survey detail shows the fields; question_count is unchanged by them.
	d := f.detail(t, sid)
	if d.QuestionCount != 8 {
		t.Errorf("question_count = %d, want 8", d.QuestionCount)
	}
	b, _ := json.Marshal(d.Questions)
	var pages [][]map[string]any
	_ = json.Unmarshal(b, &pages)
	if len(pages) != 8 {
		t.Fatalf("%d pages", len(pages))
	}
	first := pages[1][0]
	delete(first, "second_operand")
	delete(first, "logical_operator")
	delete(first, "arithmetic_operator")
	sameMap(t, "detail's question", first, mc)
	if !slices.Equal(choiceIDs(t, pages[3][0], "rows"), choiceIDs(t, matrix, "rows")) {
		t.Errorf("detail's matrix rows: %v", pages[3][0]["rows"])
	}
}

// TestChoicesInvalid: every rule of the section-10 table answers 400 on
// its field, in DRF's shapes, and creates nothing.
func TestChoicesInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	many := func(n int, item string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(item, i)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	notTaken := func(t survey.ElementType) string { return survey.MsgFieldNotTaken(t) }
	tests := []struct {
		name, body, want string
	}{
		{"choices not a list", `{"type":3,"choices":{"name":"a"}}`, `{"choices":{"non_field_errors":["Expected a list of items but got type \"dict\"."]}}`},
		{"choices null", `{"type":3,"choices":null}`, fieldErr("choices", notNull)},
		{"choices empty", `{"type":3,"choices":[]}`, `{"choices":{"non_field_errors":["This list may not be empty."]}}`},
		{"201 choices", `{"type":3,"choices":` + many(201, `{"name":"c%d"}`) + `}`, `{"choices":{"non_field_errors":["Ensure this field has no more than 200 elements."]}}`},
		{"item not an object", `{"type":3,"choices":[{"name":"a"},"b"]}`, `{"choices":[{},{"non_field_errors":["Invalid data. Expected a dictionary, but got str."]}]}`},
		{"name missing and blank", `{"type":3,"choices":[{"name":"a"},{"name":"  "},{}]}`, `{"choices":[{},{"name":["` + blank + `"]},{"name":["` + required + `"]}]}`},
		{"name too long", `{"type":5,"choices":[{"name":"` + persian(501) + `"}]}`, `{"choices":[{"name":["` + tooLong(500) + `"]}]}`},
		{"name not a string", `{"type":5,"choices":[{"name":5}]}`, `{"choices":[{"name":["` + notString + `"]}]}`},
		{"names repeated", `{"type":10,"choices":[{"name":"a"},{"name":" a "}]}`, `{"choices":[{},{"name":["` + survey.MsgNameTaken + `"]}]}`},
		{"alt_name too long", `{"type":3,"choices":[{"name":"a","alt_name":"` + persian(501) + `"}]}`, `{"choices":[{"alt_name":["` + tooLong(500) + `"]}]}`},
		{"image_url not http", `{"type":3,"choices":[{"name":"a","image_url":"ftp://x.example/a"}]}`, `{"choices":[{"image_url":["` + badURL + `"]}]}`},
		{"image_url relative", `{"type":4,"choices":[{"name":"a","image_url":"/media/a.png"}]}`, `{"choices":[{"image_url":["` + badURL + `"]}]}`},
		{"image_url required on 4", `{"type":4,"choices":[{"name":"a","image_url":"https://x.example/a"},{"name":"b"}]}`, `{"choices":[{},{"image_url":["` + required + `"]}]}`},
		{"min above max", `{"type":3,"allow_multiple_select":true,"min_selectable_choices":2,"max_selectable_choices":1,"choices":[{"name":"a"},{"name":"b"}]}`,
			fieldErr("min_selectable_choices", "Ensure this value is less than or equal to max_selectable_choices (1).")},
		{"max above choices", `{"type":4,"max_selectable_choices":2,"choices":[{"name":"a","image_url":"https://x.example/a"}]}`,
			fieldErr("max_selectable_choices", "Ensure this value is less than or equal to the number of choices (1).")},
		{"max above 200", `{"type":3,"max_selectable_choices":201}`, fieldErr("max_selectable_choices", "Ensure this value is less than or equal to 200.")},
		{"min negative", `{"type":3,"min_selectable_choices":-1}`, fieldErr("min_selectable_choices", "Ensure this value is greater than or equal to 0.")},
		{"correct_choice on create", `{"type":3,"choices":[{"name":"a"}],"correct_choice":5}`, fieldErr("correct_choice", invalidPK(5))},
		{"correct_choice not a pk", `{"type":10,"correct_choice":"5"}`, fieldErr("correct_choice", "Incorrect type. Expected pk value, received str.")},
		{"rows 51", `{"type":12,"rows":` + many(51, `{"name":"r%d"}`) + `}`, `{"rows":{"non_field_errors":["Ensure this field has no more than 50 elements."]}}`},
		{"columns empty", `{"type":12,"columns":[]}`, `{"columns":{"non_field_errors":["This list may not be empty."]}}`},
		{"row names repeated", `{"type":12,"rows":[{"name":"a"},{"name":"a"}]}`, `{"rows":[{},{"name":["` + survey.MsgNameTaken + `"]}]}`},
		{"scale_min 2", `{"type":6,"scale_min":2}`, fieldErr("scale_min", "Ensure this value is less than or equal to 1.")},
		{"scale_max 1", `{"type":6,"scale_max":1}`, fieldErr("scale_max", "Ensure this value is greater than or equal to 2.")},
		{"scale_max 11", `{"type":6,"scale_max":11}`, fieldErr("scale_max", "Ensure this value is less than or equal to 10.")},
		{"left_label 101", `{"type":6,"left_label":"` + persian(101) + `"}`, fieldErr("left_label", tooLong(100))},
		{"rating_max 2", `{"type":7,"rating_max":2}`, fieldErr("rating_max", "Ensure this value is greater than or equal to 3.")},
		{"rating_max 11", `{"type":7,"rating_max":11}`, fieldErr("rating_max", "Ensure this value is less than or equal to 10.")},
		{"rating_max a string", `{"type":7,"rating_max":"5"}`, fieldErr("rating_max", notInt)},
		{"max_length 0", `{"type":2,"max_length":0}`, fieldErr("max_length", "Ensure this value is greater than or equal to 1.")},
		{"max_length 5001", `{"type":2,"max_length":5001}`, fieldErr("max_length", "Ensure this value is less than or equal to 5000.")},
		{"max_file_size_mb 0", `{"type":11,"max_file_size_mb":0}`, fieldErr("max_file_size_mb", "Ensure this value is greater than or equal to 1.")},
		{"max_file_size_mb 26", `{"type":11,"max_file_size_mb":26}`, fieldErr("max_file_size_mb", "Ensure this value is less than or equal to 25.")},
		{"allowed_file_types empty", `{"type":11,"allowed_file_types":[]}`, fieldErr("allowed_file_types", "This list may not be empty.")},
		{"allowed_file_types a string", `{"type":11,"allowed_file_types":"pdf"}`, fieldErr("allowed_file_types", `Expected a list of items but got type "str".`)},
		{"allowed_file_types bad items", `{"type":11,"allowed_file_types":["pdf","tar.gz","",5,"abcdefghijk",".pdf"]}`,
			`{"allowed_file_types":{"1":["Enter an extension of 1 to 10 letters or digits."],"2":["Enter an extension of 1 to 10 letters or digits."],` +
				`"3":["Not a valid string."],"4":["Enter an extension of 1 to 10 letters or digits."],"5":["Enter an extension of 1 to 10 letters or digits."]}}`},
		{"max_file_size_mb on text", `{"type":2,"max_file_size_mb":5}`, fieldErr("max_file_size_mb", notTaken(2))},
		{"allowed_file_types on rating", `{"type":7,"allowed_file_types":["pdf"]}`, fieldErr("allowed_file_types", notTaken(7))},
		// Refused on a type that does not take the field.
		{"choices on text", `{"type":2,"choices":[{"name":"a"}]}`, fieldErr("choices", notTaken(2))},
		{"choices on matrix", `{"type":12,"choices":[{"name":"a"}]}`, fieldErr("choices", notTaken(12))},
		{"rows on multiple choice", `{"type":3,"rows":[{"name":"a"}]}`, fieldErr("rows", notTaken(3))},
		{"allow_multiple_select on dropdown", `{"type":10,"allow_multiple_select":true}`, fieldErr("allow_multiple_select", notTaken(10))},
		{"correct_choice on ranking", `{"type":5,"correct_choice":5}`, fieldErr("correct_choice", notTaken(5))},
		{"scale_max on rating", `{"type":7,"scale_max":5}`, fieldErr("scale_max", notTaken(7))},
		{"rating_max on scale", `{"type":6,"rating_max":4}`, fieldErr("rating_max", notTaken(6))},
		{"max_length on multiple choice", `{"type":3,"max_length":10}`, fieldErr("max_length", notTaken(3))},
		{"labels on group", `{"type":8,"left_label":"x","right_label":null}`, fieldErr("left_label", notTaken(8))},
		{"columns on welcome", `{"type":1,"columns":[{"name":"a"}]}`, fieldErr("columns", notTaken(1))},
		{"every problem at once", `{"type":2,"title":"","choices":[{"name":"a"}],"max_length":0}`,
			`{"title":["` + blank + `"],"max_length":["Ensure this value is greater than or equal to 1."],"choices":["` + notTaken(2) + `"]}`},
		{"element too large", `{"type":3,"choices":` + many(200, `{"name":"%03d`+persian(400)+`","alt_name":"`+persian(500)+`"}`) + `}`,
			fieldErr("non_field_errors", survey.MsgElementTooLarge)},
	}
	before := f.state(t, sid)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if !strings.Contains(body, `"title"`) {
				body = `{"title":"E",` + body[1:]
			}
			expect(t, "POST", f.do(t, "POST", listPath(sid), body), 400, tt.want)
		})
	}
	unchanged(t, "refused creates", before, f.state(t, sid))

	// What a read shows for a field the type does not take may be sent
	// back: the type's defaults are accepted anywhere.
	echo := f.create(t, sid, `{"title":"E","type":2,"choices":[],"rows":[],"columns":[],"correct_choice":null,
		"allow_multiple_select":false,"min_selectable_choices":0,"max_selectable_choices":0,"scale_min":0,"scale_max":10,
		"left_label":null,"right_label":"","rating_max":5,"max_length":100}`)
	if echo["max_length"] != 100.0 {
		t.Errorf("max_length = %v", echo["max_length"])
	}
}

// TestChoicesPatch: a PATCH of choices keeps the ids its items carry, gives
// new ones to the others and removes the rest; correct_choice follows;
// a new type drops what it does not take.
func TestChoicesPatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	other := f.create(t, sid, `{"title":"O","type":10,"choices":[{"name":"o"}]}`)
	foreign := choiceIDs(t, other, "choices")[0]
	el := f.create(t, sid, `{"title":"Q","type":3,"choices":[{"name":"A"},{"name":"B"},{"name":"C"}]}`)
	eid := idOf(t, el)
	abc := choiceIDs(t, el, "choices")
	a, b, c := abc[0], abc[1], abc[2]
	path := itemPath(sid, eid)

	r := f.do(t, "PATCH", path, fmt.Sprintf(`{"correct_choice":%d}`, b))
	expect(t, "PATCH correct_choice", r, 200, "")
	cc, _ := json.Marshal(decode(t, r.body)["correct_choice"])
	if want := fmt.Sprintf(`{"alt_name":null,"id":%d,"image_url":null,"name":"B","order":2}`, b); string(cc) != want {
		t.Errorf("correct_choice %s, want %s", cc, want)
	}

	t.Run("echo keeps everything", func(t *testing.T) {
		read := f.get(t, sid, eid)
		body, _ := json.Marshal(read)
		r := f.do(t, "PATCH", path, string(body))
		expect(t, "PATCH of the element as read", r, 200, "")
		sameMap(t, "echoed", decode(t, r.body), read)
	})

	t.Run("refusals change nothing", func(t *testing.T) {
		before := f.state(t, sid)
		for _, tc := range []struct{ body, want string }{
			{fmt.Sprintf(`{"choices":[{"id":%d,"name":"A"},{"id":%d,"name":"X"}]}`, a, foreign),
				fmt.Sprintf(`{"choices":[{},{"id":["%s"]}]}`, strings.ReplaceAll(invalidPK(foreign), `"`, `\"`))},
			{fmt.Sprintf(`{"choices":[{"id":%d,"name":"A"},{"id":%d,"name":"X"}]}`, a, a), `{"choices":[{},{"id":["` + survey.MsgIDRepeated + `"]}]}`},
			{fmt.Sprintf(`{"choices":[{"id":"%d","name":"A"}]}`, a), `{"choices":[{"id":["Incorrect type. Expected pk value, received str."]}]}`},
			{fmt.Sprintf(`{"correct_choice":%d}`, foreign), fieldErr("correct_choice", invalidPK(foreign))},
			{fmt.Sprintf(`{"choices":[{"id":%d,"name":"A"}],"correct_choice":%d}`, a, c), fieldErr("correct_choice", invalidPK(c))},
			{`{"correct_choice":{"name":"B"}}`, `{"correct_choice":{"id":["` + required + `"]}}`},
			{`{"rows":[{"name":"r"}]}`, fieldErr("rows", survey.MsgFieldNotTaken(3))},
			{`{"type":4}`, `{"choices":[{"image_url":["` + required + `"]},{"image_url":["` + required + `"]},{"image_url":["` + required + `"]}]}`},
			{`{"type":9}`, fieldErr("type", survey.MsgTypeOtherList)},
		} {
			expect(t, "PATCH "+tc.body, f.do(t, "PATCH", path, tc.body), 400, tc.want)
		}
		unchanged(t, "refused PATCHes", before, f.state(t, sid))
	})

	t.Run("keep, add, remove", func(t *testing.T) {
		r := f.do(t, "PATCH", path, fmt.Sprintf(`{"choices":[{"id":%d,"name":"C2","alt_name":"c"},{"name":"D"},{"id":null,"name":"E"},{"id":%d,"name":"A"}]}`, c, a))
		expect(t, "PATCH choices", r, 200, "")
		t.Logf("PATCH choices with 2 new: %d DynamoDB calls %v", r.calls, r.ops)
		if r.calls > 4 {
			t.Errorf("PATCH took %d DynamoDB calls, want at most 4 (read, id lease, transaction; the quotas' Query, as a choice goes)", r.calls)
		}
		got := decode(t, r.body)
		ids := choiceIDs(t, got, "choices")
		if len(ids) != 4 || ids[0] != c || ids[3] != a || slices.Contains([]int64{a, b, c, foreign}, ids[1]) ||
			slices.Contains([]int64{a, b, c, foreign}, ids[2]) || ids[1] == ids[2] {
			t.Fatalf("ids %v: want [%d new new %d]", ids, c, a)
		}
		if got["correct_choice"] != nil {
			t.Errorf("correct_choice %v survives the removal of its choice", got["correct_choice"])
		}
		sameMap(t, "GET after PATCH", f.get(t, sid, eid), got)
		// The new ids are kept by the next PATCH in turn.
		r = f.do(t, "PATCH", path, fmt.Sprintf(`{"choices":[{"id":%d,"name":"D"}],"correct_choice":%d}`, ids[1], ids[1]))
		expect(t, "PATCH keeping a new id", r, 200, "")
		if got := decode(t, r.body); !slices.Equal(choiceIDs(t, got, "choices"), ids[1:2]) || got["correct_choice"].(map[string]any)["name"] != "D" {
			t.Errorf("after keeping %d: %s", ids[1], r.body)
		}
	})

	t.Run("a new type resets what it does not take", func(t *testing.T) {
		r := f.do(t, "PATCH", path, `{"type":2,"max_length":10}`)
		expect(t, "PATCH type 2", r, 200, "")
		got := decode(t, r.body)
		if len(got["choices"].([]any)) != 0 || got["correct_choice"] != nil || got["max_length"] != 10.0 {
			t.Errorf("after type 2: %s", r.body)
		}
		expect(t, "PATCH choices on text", f.do(t, "PATCH", path, `{"choices":[{"name":"a"}]}`), 400, fieldErr("choices", survey.MsgFieldNotTaken(2)))
		r = f.do(t, "PATCH", path, `{"type":12,"rows":[{"name":"r"}],"columns":[{"name":"c"}]}`)
		expect(t, "PATCH type 12 with rows", r, 200, "")
		if got := decode(t, r.body); got["max_length"] != 5000.0 || len(choiceIDs(t, got, "rows")) != 1 {
			t.Errorf("after type 12: %s", r.body)
		}
	})
	f.lists(t, sid)
}
