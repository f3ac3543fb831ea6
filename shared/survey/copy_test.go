package survey_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"surveyservice/shared/survey"
)

// TestRemapElement: a copy's element document gets its new id, its
// choices', rows' and columns' new ids, its correct choice's, and its
// conditions' first operands, second operand ids and (for a matrix) column
// ids in value; a dangling reference and every other field stay as they
// are, unknown fields included.
func TestRemapElement(t *testing.T) {
	t.Parallel()
	m := survey.IDMap{
		Elements: map[int64]int64{10: 110, 20: 120, 30: 130},
		Items:    map[int64]int64{1: 101, 2: 102, 3: 103, 4: 104, 5: 105},
	}
	matrixes := map[int64]bool{20: true}
	in := `{"id":30,"title":"Q","choices":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"correct_choice":2,
		"rows":[{"id":3,"name":"r"}],"columns":[{"id":4,"name":"c"}],"scale_max":10,"future_field":{"id":1},
		"conditions":[
			{"first_operand":10,"arithmetic_operator":10,"second_operand":{"id":1,"type":1,"value":null},"logical_operator":1},
			{"first_operand":20,"arithmetic_operator":1,"second_operand":{"id":3,"type":1,"value":"4"},"logical_operator":2},
			{"first_operand":10,"arithmetic_operator":1,"second_operand":{"id":null,"type":3,"value":"4"},"logical_operator":1},
			{"first_operand":99,"arithmetic_operator":8,"second_operand":null,"logical_operator":1}],
		"second_operand":{"id":1,"type":1,"value":null}}`
	out, err := survey.RemapElement([]byte(in), m, matrixes)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":130,"title":"Q","choices":[{"id":101,"name":"a"},{"id":102,"name":"b"}],"correct_choice":102,
		"rows":[{"id":103,"name":"r"}],"columns":[{"id":104,"name":"c"}],"scale_max":10,"future_field":{"id":1},
		"conditions":[
			{"first_operand":110,"arithmetic_operator":10,"second_operand":{"id":101,"type":1,"value":null},"logical_operator":1},
			{"first_operand":120,"arithmetic_operator":1,"second_operand":{"id":103,"type":1,"value":"104"},"logical_operator":2},
			{"first_operand":110,"arithmetic_operator":1,"second_operand":{"id":null,"type":3,"value":"4"},"logical_operator":1},
			{"first_operand":99,"arithmetic_operator":8,"second_operand":null,"logical_operator":1}],
		"second_operand":{"id":101,"type":1,"value":null}}`
	var got, exp any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(want), &exp)
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("remapped\n %s\nwant\n %s", out, want)
	}
	if _, err := survey.RemapElement([]byte(`[1]`), m, nil); err == nil {
		t.Error("a document that is not an object was remapped")
	}
}

// TestLayoutRemap: every list, group, membership and size follows the map.
func TestLayoutRemap(t *testing.T) {
	t.Parallel()
	l := survey.Layout{Welcome: []int64{1}, Questions: []int64{2, 3, 4}, Appreciations: []int64{5}, Groups: []int64{2},
		Members: map[int64]int64{3: 2}, Sizes: map[int64]int64{3: 40}, Version: 7}
	m := map[int64]int64{1: 11, 2: 12, 3: 13, 4: 14, 5: 15}
	got := l.Remap(m)
	want := survey.Layout{Welcome: []int64{11}, Questions: []int64{12, 13, 14}, Appreciations: []int64{15}, Groups: []int64{12},
		Members: map[int64]int64{13: 12}, Sizes: map[int64]int64{13: 40}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("remapped %+v, want %+v", got, want)
	}
}

// TestDroppedSettings: the gated settings away from their defaults that
// the plan lacks, sorted; none on enterprise.
func TestDroppedSettings(t *testing.T) {
	t.Parallel()
	desc := "here"
	s := survey.Settings{NoSpam: true, LocationIsActive: true, LocationDescription: &desc, HideProgressbar: true, ServiceAuthDomains: []string{}}
	for _, c := range []struct {
		plan survey.Plan
		want []string
	}{
		{survey.PlanFree, []string{"location_description", "location_is_active", "no_spam"}},
		{survey.PlanPro, []string{"location_description", "location_is_active"}},
		{survey.PlanEnterprise, []string{}},
	} {
		if got := survey.DroppedSettings(c.plan, s); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.plan, got, c.want)
		}
	}
}

// TestCopyName: " (copy)" within 255 code points.
func TestCopyName(t *testing.T) {
	t.Parallel()
	if got := survey.CopyName("NPS"); got != "NPS (copy)" {
		t.Errorf("%q", got)
	}
	long := string(make([]rune, 0))
	for range 255 {
		long += "ش"
	}
	if got := []rune(survey.CopyName(long)); len(got) != 255 {
		t.Errorf("%d code points", len(got))
	}
}

// TestNormalizeOrigin: origins as browsers serialize them; anything else
// refused.
func TestNormalizeOrigin(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://Example.COM":       "https://example.com",
		"https://example.com/":      "https://example.com",
		"https://example.com:443":   "https://example.com",
		"https://example.com:8443":  "https://example.com:8443",
		"http://localhost:3000":     "http://localhost:3000",
		"http://127.0.0.1":          "http://127.0.0.1",
		"https://[::1]:8443":        "https://[::1]:8443",
		"https://مثال.ایران":        "https://xn--mgbh0fb.xn--mgba3a4f16a",
		"http://example.com":        "",
		"https://example.com/a":     "",
		"https://example.com?q":     "",
		"https://example.com#f":     "",
		"https://u@example.com":     "",
		"https://*.example.com":     "",
		"https://example.com:0":     "",
		"https://example.com:":      "",
		"https://example":           "",
		"ftp://example.com":         "",
		"example.com":               "",
		"*":                         "",
		"https://example.com:08443": "",
		"https://a..com":            "",
		"https://.a.com":            "",
		"https://a.com..":           "",
		"https://-a.com":            "",
		"https://a-.com":            "",
		"https://a_b.com":           "",
	} {
		got, ok := survey.NormalizeOrigin(in)
		if ok != (want != "") || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
