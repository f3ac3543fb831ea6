package survey_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func ptr[T any](v T) *T { return &v }

// quiz is one question of every type, ids 10..22, with choices 101..103,
// rows 201..202 and columns 301..302 where the type has them.
func quiz() []survey.Element {
	choices := []survey.ChoiceItem{
		{ID: 101, Name: "Red", Order: 1}, {ID: 102, Name: "Green", AltName: ptr("سبز"), Order: 2},
		{ID: 103, Name: "Blue", Order: 3},
	}
	el := func(id int64, t survey.ElementType) survey.Element {
		e := survey.NewElement(t)
		e.ID = id
		switch t {
		case survey.TypeMultipleChoice, survey.TypePictureChoice, survey.TypeRanking, survey.TypeDropdown:
			e.Choices = choices
		case survey.TypeMatrix:
			e.Rows = []survey.NamedItem{{ID: 201, Name: "Tea"}, {ID: 202, Name: "Coffee"}}
			e.Columns = []survey.NamedItem{{ID: 301, Name: "Like"}, {ID: 302, Name: "Dislike"}}
		}
		return e
	}
	qs := []survey.Element{}
	for t := survey.TypeWelcome; t <= survey.TypeStatement; t++ {
		qs = append(qs, el(int64(9+t), t))
	}
	return qs
}

// byType is the element of type t in qs.
func byType(qs []survey.Element, t survey.ElementType) *survey.Element {
	for i := range qs {
		if qs[i].Type == t {
			return &qs[i]
		}
	}
	panic("no element of type " + t.String())
}

func TestAnswerable(t *testing.T) {
	want := map[survey.ElementType]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 10: true, 11: true, 12: true}
	for ty := survey.ElementType(0); ty <= 14; ty++ {
		if got := ty.Answerable(); got != want[ty] {
			t.Errorf("type %d: Answerable() = %v, want %v", ty, got, want[ty])
		}
	}
}

func TestNewElementAnswerDefaults(t *testing.T) {
	e := survey.NewElement(survey.TypeText)
	if e.ScaleMin != 0 || e.ScaleMax != 10 || e.RatingMax != 5 || e.MaxLength != 5000 || e.CorrectChoice != nil {
		t.Fatalf("defaults: %+v", e)
	}
	b, err := json.Marshal(e.View(survey.Layout{}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{
		"choices": []any{}, "rows": []any{}, "columns": []any{}, "scale_min": 0.0, "scale_max": 10.0,
		"left_label": nil, "right_label": nil, "rating_max": 5.0, "max_length": 5000.0, "correct_choice": nil,
	} {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, v) {
			t.Errorf("view %s = %#v (present %v), want %#v", k, g, ok, v)
		}
	}
}

func TestViewCorrectChoice(t *testing.T) {
	e := *byType(quiz(), survey.TypeMultipleChoice)
	e.CorrectChoice = ptr[int64](102)
	v := e.View(survey.Layout{})
	want := &survey.ChoiceItem{ID: 102, Name: "Green", AltName: ptr("سبز"), Order: 2}
	if !reflect.DeepEqual(v.CorrectChoice, want) {
		t.Fatalf("correct_choice = %+v, want %+v", v.CorrectChoice, want)
	}
	t.Run("ChoiceGone", func(t *testing.T) {
		e := e
		e.CorrectChoice = ptr[int64](999)
		if v := e.View(survey.Layout{}); v.CorrectChoice != nil {
			t.Fatalf("correct_choice = %+v, want nil", v.CorrectChoice)
		}
	})
	t.Run("ResponderViewHasNoKey", func(t *testing.T) {
		b, err := json.Marshal(e.ResponderView(survey.Layout{}))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "correct_choice") {
			t.Fatalf("responder view shows the answer key: %s", b)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if len(got["choices"].([]any)) != 3 {
			t.Fatalf("responder view choices: %v", got["choices"])
		}
	})
	t.Run("OwnerViewHasKey", func(t *testing.T) {
		b, _ := json.Marshal(e.View(survey.Layout{}))
		if !strings.Contains(string(b), `"correct_choice":{"id":102,"name":"Green","alt_name":"سبز","image_url":null,"order":2}`) {
			t.Fatalf("owner view: %s", b)
		}
	})
}

// answerErrors returns the {"<id>": [msg...]} of a CheckAnswers error.
func answerErrors(t *testing.T, err error) map[string]any {
	t.Helper()
	var e *survey.Error
	if !errors.As(err, &e) || e.Code != survey.EINVALID {
		t.Fatalf("error %v, want EINVALID", err)
	}
	if len(e.Fields) != 1 {
		t.Fatalf("fields %v, want only answers", e.Fields)
	}
	got, ok := e.Fields["answers"].(survey.Fields)
	if !ok {
		t.Fatalf("answers errors %T %v", e.Fields["answers"], e.Fields["answers"])
	}
	return got
}

func TestCheckAnswersValid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(qs []survey.Element)
		answer map[string]string
		want   map[int64]string // canonical; absent = no answer
	}{
		{"Text", nil, map[string]string{"11": `"  Hello <b> & سلام  "`}, map[int64]string{11: `"Hello <b> & سلام"`}},
		{"TextAtMaxLength", func(qs []survey.Element) { byType(qs, 2).MaxLength = 3 },
			map[string]string{"11": `" سلا "`}, map[int64]string{11: `"سلا"`}},
		{"OneChoice", nil, map[string]string{"12": `[102]`}, map[int64]string{12: `[102]`}},
		{"ChoiceAsFloat", nil, map[string]string{"12": `[102.0]`}, map[int64]string{12: `[102]`}},
		{"ManyChoicesInElementOrder", func(qs []survey.Element) { byType(qs, 3).AllowMultipleSelect = true },
			map[string]string{"12": `[103, 101]`}, map[int64]string{12: `[101,103]`}},
		{"ManyWithinMinMax", func(qs []survey.Element) {
			e := byType(qs, 4)
			e.AllowMultipleSelect, e.MinSelectableChoices, e.MaxSelectableChoices = true, 2, 2
		}, map[string]string{"13": `[102,101]`}, map[int64]string{13: `[101,102]`}},
		{"MinIgnoredWithoutMultiple", func(qs []survey.Element) { byType(qs, 3).MinSelectableChoices = 2 },
			map[string]string{"12": `[101]`}, map[int64]string{12: `[101]`}},
		{"Ranking", nil, map[string]string{"14": `[103,101,102]`}, map[int64]string{14: `[103,101,102]`}},
		{"Scale", nil, map[string]string{"15": `0`}, map[int64]string{15: `0`}},
		{"ScaleTop", func(qs []survey.Element) { byType(qs, 6).ScaleMin, byType(qs, 6).ScaleMax = 1, 5 },
			map[string]string{"15": `5`}, map[int64]string{15: `5`}},
		{"Rating", nil, map[string]string{"16": `5`}, map[int64]string{16: `5`}},
		{"Dropdown", nil, map[string]string{"19": ` 103 `}, map[int64]string{19: `103`}},
		{"Matrix", nil, map[string]string{"21": `{"202": 301, "201": 302}`}, map[int64]string{21: `{"201":302,"202":301}`}},
		{"MatrixPartial", nil, map[string]string{"21": `{"202": 302}`}, map[int64]string{21: `{"202":302}`}},
		{"BlankAnswersAreNone", nil, map[string]string{
			"11": `"   "`, "12": `[]`, "13": `null`, "21": `{}`, "15": ``, "20": `null`, "17": `[]`, "22": `""`,
		}, map[int64]string{}},
		{"RequiredAnswered", func(qs []survey.Element) {
			for i := range qs {
				qs[i].AnswerRequired = true
			}
		}, map[string]string{
			"11": `"x"`, "12": `[101]`, "13": `[101]`, "14": `[101,102,103]`, "15": `3`, "16": `1`,
			"19": `101`, "20": `"upload-id"`, "21": `{"201":301}`,
		}, map[int64]string{
			11: `"x"`, 12: `[101]`, 13: `[101]`, 14: `[101,102,103]`, 15: `3`, 16: `1`, 19: `101`, 20: `"upload-id"`, 21: `{"201":301}`,
		}},
		{"NoAnswers", nil, nil, map[int64]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := quiz()
			if tc.edit != nil {
				tc.edit(qs)
			}
			in := map[string]json.RawMessage{}
			for k, v := range tc.answer {
				in[k] = json.RawMessage(v)
			}
			got, err := survey.CheckAnswers(qs, nil, in)
			if err != nil {
				t.Fatalf("CheckAnswers: %v", err)
			}
			gotS := map[int64]string{}
			for k, v := range got {
				gotS[k] = string(v)
			}
			if !reflect.DeepEqual(gotS, tc.want) {
				t.Fatalf("got %v, want %v", gotS, tc.want)
			}
		})
	}
}

func TestCheckAnswersInvalid(t *testing.T) {
	list := func(msgs ...string) []string { return msgs }
	for _, tc := range []struct {
		name   string
		edit   func(qs []survey.Element)
		answer map[string]string
		want   map[string][]string
	}{
		{"UnknownQuestion", nil, map[string]string{"999": `"x"`, "abc": `1`, "011": `"x"`, "10": `"x"`},
			map[string][]string{"999": list(survey.MsgUnknownQuestion), "abc": list(survey.MsgUnknownQuestion),
				"011": list(survey.MsgUnknownQuestion), "10": list(survey.MsgTakesNoAnswer)}},
		{"TakesNoAnswer", nil, map[string]string{"17": `"x"`, "22": `1`, "18": `[1]`},
			map[string][]string{"17": list(survey.MsgTakesNoAnswer), "22": list(survey.MsgTakesNoAnswer),
				"18": list(survey.MsgTakesNoAnswer)}},
		{"FileUploadNotAnID", nil, map[string]string{"20": `5`},
			map[string][]string{"20": list(survey.MsgInvalidUpload)}},
		{"FileUploadSpaces", nil, map[string]string{"20": `"a b"`},
			map[string][]string{"20": list(survey.MsgInvalidUpload)}},
		{"Required", func(qs []survey.Element) {
			for i := range qs {
				qs[i].AnswerRequired = true
			}
		}, map[string]string{"11": `"  "`, "12": `[]`},
			map[string][]string{"11": list(survey.MsgAnswerRequired), "12": list(survey.MsgAnswerRequired),
				"13": list(survey.MsgAnswerRequired), "14": list(survey.MsgAnswerRequired),
				"15": list(survey.MsgAnswerRequired), "16": list(survey.MsgAnswerRequired),
				"19": list(survey.MsgAnswerRequired), "20": list(survey.MsgAnswerRequired), "21": list(survey.MsgAnswerRequired)}},
		{"TextWrongType", nil, map[string]string{"11": `5`},
			map[string][]string{"11": list(survey.MsgNotString)}},
		{"TextTooLong", func(qs []survey.Element) { byType(qs, 2).MaxLength = 3 },
			map[string]string{"11": `"abcd"`},
			map[string][]string{"11": list("Ensure this field has no more than 3 characters.")}},
		{"ChoiceNotList", nil, map[string]string{"12": `101`, "13": `"101"`, "14": `{"a":1}`},
			map[string][]string{"12": list(`Expected a list of items but got type "int".`),
				"13": list(`Expected a list of items but got type "str".`),
				"14": list(`Expected a list of items but got type "dict".`)}},
		{"ChoiceNotInteger", nil, map[string]string{"12": `["101", true, 1.5]`},
			map[string][]string{"12": list(survey.MsgNotInteger)}},
		{"ChoiceNotOfElement", nil, map[string]string{"12": `[999]`, "19": `202`},
			map[string][]string{"12": list(survey.InvalidPK(999)), "19": list(survey.InvalidPK(202))}},
		{"ChoiceRepeated", func(qs []survey.Element) { byType(qs, 3).AllowMultipleSelect = true },
			map[string]string{"12": `[101,101]`}, map[string][]string{"12": list(survey.MsgChoiceRepeated)}},
		{"OnlyOneWithoutMultiple", nil, map[string]string{"12": `[101,102]`},
			map[string][]string{"12": list("Ensure this field has no more than 1 elements.")}},
		{"BelowMin", func(qs []survey.Element) {
			e := byType(qs, 3)
			e.AllowMultipleSelect, e.MinSelectableChoices = true, 2
		}, map[string]string{"12": `[101]`}, map[string][]string{"12": list("Ensure this field has at least 2 elements.")}},
		{"AboveMax", func(qs []survey.Element) {
			e := byType(qs, 4)
			e.AllowMultipleSelect, e.MaxSelectableChoices = true, 2
		}, map[string]string{"13": `[101,102,103]`},
			map[string][]string{"13": list("Ensure this field has no more than 2 elements.")}},
		{"RankingIncomplete", nil, map[string]string{"14": `[101,102]`},
			map[string][]string{"14": list(survey.MsgRankEveryChoice)}},
		{"RankingRepeated", nil, map[string]string{"14": `[101,102,102]`},
			map[string][]string{"14": list(survey.MsgChoiceRepeated)}},
		{"RankingForeign", nil, map[string]string{"14": `[101,102,104]`},
			map[string][]string{"14": list(survey.InvalidPK(104))}},
		{"DropdownWrongType", nil, map[string]string{"19": `[101]`},
			map[string][]string{"19": list(survey.MsgNotInteger)}},
		{"ScaleRange", func(qs []survey.Element) { byType(qs, 6).ScaleMin = 1 },
			map[string]string{"15": `0`}, map[string][]string{"15": list("Ensure this value is greater than or equal to 1.")}},
		{"ScaleTooHigh", nil, map[string]string{"15": `11`},
			map[string][]string{"15": list("Ensure this value is less than or equal to 10.")}},
		{"ScaleNotInteger", nil, map[string]string{"15": `2.5`},
			map[string][]string{"15": list(survey.MsgNotInteger)}},
		{"ScaleHuge", nil, map[string]string{"15": `1e400`},
			map[string][]string{"15": list(survey.MsgNotInteger)}},
		{"RatingZero", nil, map[string]string{"16": `0`},
			map[string][]string{"16": list("Ensure this value is greater than or equal to 1.")}},
		{"RatingAboveMax", nil, map[string]string{"16": `6`},
			map[string][]string{"16": list("Ensure this value is less than or equal to 5.")}},
		{"RatingString", nil, map[string]string{"16": `"3"`},
			map[string][]string{"16": list(survey.MsgNotInteger)}},
		{"MatrixNotObject", nil, map[string]string{"21": `[201]`},
			map[string][]string{"21": list(`Expected a dictionary of items but got type "list".`)}},
		{"MatrixUnknownRow", nil, map[string]string{"21": `{"203": 301, "0201": 301, "x": 301}`},
			map[string][]string{"21": list(`Unknown row "0201".`, `Unknown row "203".`, `Unknown row "x".`)}},
		{"MatrixUnknownColumn", nil, map[string]string{"21": `{"201": 303}`},
			map[string][]string{"21": list(`Invalid column "303" for row "201".`)}},
		{"MatrixColumnNotInteger", nil, map[string]string{"21": `{"201": "301"}`},
			map[string][]string{"21": list(survey.MsgNotInteger)}},
		{"ManyAtOnce", nil, map[string]string{"11": `1`, "16": `9`, "999": `1`},
			map[string][]string{"11": list(survey.MsgNotString), "16": list("Ensure this value is less than or equal to 5."),
				"999": list(survey.MsgUnknownQuestion)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := quiz()
			if tc.edit != nil {
				tc.edit(qs)
			}
			in := map[string]json.RawMessage{}
			for k, v := range tc.answer {
				in[k] = json.RawMessage(v)
			}
			got, err := survey.CheckAnswers(qs, nil, in)
			if got != nil {
				t.Fatalf("answers %v with an error", got)
			}
			errs := answerErrors(t, err)
			want := map[string]any{}
			for k, v := range tc.want {
				want[k] = v
			}
			if !reflect.DeepEqual(errs, want) {
				t.Fatalf("errors\n got %v\nwant %v", errs, want)
			}
		})
	}
}

// TestCheckAnswersFileUploadRequired: a required file-upload question
// needs an answer (an upload id, kept as it is for the uploads check).
func TestCheckAnswersFileUploadRequired(t *testing.T) {
	qs := quiz()
	byType(qs, survey.TypeFileUpload).AnswerRequired = true
	if _, err := survey.CheckAnswers(qs, nil, nil); answerErrors(t, err)["20"] == nil {
		t.Fatalf("a required file upload without an answer: %v", err)
	}
	got, err := survey.CheckAnswers(qs, nil, map[string]json.RawMessage{"20": json.RawMessage(`"abc\u0044"`)})
	if err != nil || string(got[20]) != `"abcD"` {
		t.Fatalf("an upload id: %s, %v", got[20], err)
	}
}

func TestAnswerText(t *testing.T) {
	qs := quiz()
	for _, tc := range []struct {
		name string
		t    survey.ElementType
		a    string
		want string
	}{
		{"Text", 2, `"a; b, \"c\""`, `a; b, "c"`},
		{"None", 2, ``, ``},
		{"Null", 3, `null`, ``},
		{"Choices", 3, `[101,103]`, `Red; Blue`},
		{"ChoiceGone", 4, `[101,999]`, `Red; 999`},
		{"Ranking", 5, `[103,101,102]`, `Blue; Red; Green`},
		{"Dropdown", 10, `102`, `Green`},
		{"DropdownGone", 10, `7`, `7`},
		{"Scale", 6, `7`, `7`},
		{"Rating", 7, `3`, `3`},
		{"Matrix", 12, `{"202":301,"201":302}`, `Tea: Dislike; Coffee: Like`},
		{"MatrixGone", 12, `{"1000":301,"201":399,"999":302}`, `Tea: 399; 999: Dislike; 1000: Like`},
		{"TypeChangedSinceText", 6, `"was text"`, `was text`},
		{"Unreadable", 2, `[1,`, `[1,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := byType(qs, tc.t).AnswerText(json.RawMessage(tc.a)); got != tc.want {
				t.Fatalf("AnswerText(%s) = %q, want %q", tc.a, got, tc.want)
			}
		})
	}
}

// FuzzCheckAnswers feeds arbitrary answers to every question type: no
// panic; either canonical answers that pass again unchanged (and render),
// or an EINVALID with messages under answers.
func FuzzCheckAnswers(f *testing.F) {
	for _, s := range []string{
		`{"11":"x"}`, `{"12":[101]}`, `{"13":[101,102]}`, `{"14":[103,101,102]}`, `{"15":3}`, `{"16":5}`,
		`{"19":101}`, `{"21":{"201":301}}`, `{"20":"f"}`, `{"999":1}`, `{"12":[1e3]}`, `{"15":-0}`,
		`{"21":{"201":1e400}}`, `{"11":"\u0000 "}`, `{"14":[101,101,101]}`, `{"15":9223372036854775807}`,
		`{}`, `{"11":null,"12":{},"13":[],"21":[]}`,
	} {
		f.Add([]byte(s), true, uint8(2), uint8(2))
	}
	f.Fuzz(func(t *testing.T, body []byte, multiple bool, lo, hi uint8) {
		var in map[string]json.RawMessage
		if json.Unmarshal(body, &in) != nil {
			return
		}
		qs := quiz()
		for i := range qs {
			qs[i].AnswerRequired = lo%3 == 0
			qs[i].AllowMultipleSelect = multiple
			qs[i].MinSelectableChoices, qs[i].MaxSelectableChoices = int64(lo%4), int64(hi%4)
		}
		got, err := survey.CheckAnswers(qs, nil, in)
		if err != nil {
			errs := answerErrors(t, err)
			if len(errs) == 0 {
				t.Fatal("error without messages")
			}
			for k, v := range errs {
				if msgs, ok := v.([]string); !ok || len(msgs) == 0 {
					t.Fatalf("answers[%q] = %#v", k, v)
				}
			}
			return
		}
		again := map[string]json.RawMessage{}
		for id, a := range got {
			if !json.Valid(a) {
				t.Fatalf("canonical answer %d is not JSON: %s", id, a)
			}
			again[itoa(id)] = a
			for _, q := range qs {
				if q.ID == id {
					_ = q.AnswerText(a)
				}
			}
		}
		got2, err := survey.CheckAnswers(qs, nil, again)
		if err != nil {
			t.Fatalf("canonical answers refused: %v", err)
		}
		if !reflect.DeepEqual(got, got2) {
			t.Fatalf("canonical answers not stable: %v then %v", got, got2)
		}
	})
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// FuzzAnswerText renders arbitrary stored answers (a stored answer may
// predate an edit of its element): no panic, and a JSON string renders as
// its text.
func FuzzAnswerText(f *testing.F) {
	for _, s := range []string{`"x"`, `[101,102]`, `[ 1 , -2 ]`, `[01]`, `102`, `{"201":301}`, `{"x":"y"}`, `[1,`, `"a\u2028b"`, `-0`, `[]`} {
		f.Add([]byte(s))
	}
	qs := quiz()
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, e := range qs {
			got := e.AnswerText(raw)
			var s string
			if json.Unmarshal(raw, &s) == nil && got != s {
				t.Fatalf("type %d: %q renders as %q, want %q", e.Type, raw, got, s)
			}
		}
	})
}
